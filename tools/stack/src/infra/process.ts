import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, writeSync } from 'node:fs';
import net from 'node:net';

/** Whether a TCP port on loopback accepts a connection. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface ServerProcessOptions {
  /** What it is, for messages ("redis-server"). */
  name: string;
  command: string;
  args: string[];
  /** The loopback port it listens on once ready. */
  port: number;
  env?: NodeJS.ProcessEnv;
  /** Every line it prints is appended here, when given. */
  logFile?: string;
  /** Lines worth showing (warnings, errors), when given. */
  output?: ((line: string) => void) | null;
  /** Which printed lines `output` gets; all when absent. */
  shows?: (line: string) => boolean;
  readyTimeoutMs?: number;
}

/** A server run as a child process: started, ready once its port accepts connections, stopped with SIGTERM. */
export class ServerProcess {
  private tail = '';

  private constructor(
    readonly opts: ServerProcessOptions,
    readonly child: ChildProcess,
  ) {}

  static async start(opts: ServerProcessOptions): Promise<ServerProcess> {
    // another server on the port would answer in this one's place
    if (await accepts(opts.port)) throw new Error(`port ${opts.port} for ${opts.name} is in use`);
    const log = opts.logFile ? openSync(opts.logFile, 'a') : null;
    const child = spawn(opts.command, opts.args, { env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const server = new ServerProcess(opts, child);
    const collect = (d: Buffer) => {
      const text = d.toString();
      server.tail = (server.tail + text).slice(-4000);
      if (log !== null) writeSync(log, text);
      for (const line of text.split('\n')) if (line.trim() && (!opts.shows || opts.shows(line))) opts.output?.(line);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.on('exit', () => log !== null && closeSync(log));
    const failed = once(child, 'error').then(([e]) => {
      throw new Error(`${opts.name} could not be run: ${(e as Error).message}`);
    });
    failed.catch(() => undefined);
    const deadline = Date.now() + (opts.readyTimeoutMs ?? 10_000);
    while (!(await accepts(opts.port))) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${opts.name} exited: ${server.lastLines()}`);
      await Promise.race([failed, new Promise((r) => setTimeout(r, 50))]);
      if (Date.now() > deadline) {
        await server.stop();
        throw new Error(`${opts.name} did not listen on ${opts.port}: ${server.lastLines()}`);
      }
    }
    return server;
  }

  lastLines(): string {
    return this.tail.trim().split('\n').slice(-3).join(' | ');
  }

  stop(): Promise<void> {
    return stopChild(this.child);
  }
}

/** Stops a child process: SIGTERM, then SIGKILL if it is still running after five seconds. */
export async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = once(c, 'exit');
  c.kill('SIGTERM');
  const timer = setTimeout(() => c.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
