import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The credentials the local object store accepts (its built-in account). */
export const OBJECT_STORE_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/**
 * An S3-compatible object store as a server of its own (s3rver from npm: the S3 REST protocol over HTTP, objects on
 * disk; MinIO's server is in neither the npm registry nor Debian's packages), in a process of its own with a
 * directory of its own and the given buckets. `stop` and `start` take it down and bring it back on the same port
 * with the same objects, as an outage of the store would.
 */
export class ObjectStoreServer {
  private child: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    readonly directory: string,
    private readonly buckets: string[],
  ) {}

  static async start(buckets: string[]): Promise<ObjectStoreServer> {
    const s = new ObjectStoreServer(await freePort(), mkdtempSync(path.join(os.tmpdir(), 'verity-objects-')), buckets);
    await s.start();
    return s;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const bin = createRequire(import.meta.url).resolve('s3rver/bin/s3rver.js');
    const args = [bin, '-d', this.directory, '-a', '127.0.0.1', '-p', String(this.port), '--silent', '--no-vhost-buckets'];
    for (const b of this.buckets) args.push('--configure-bucket', b);
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    this.child = child;
    const until = Date.now() + 15_000;
    while (!(await accepts(this.port))) {
      if (child.exitCode !== null) throw new Error(`the object store exited (${child.exitCode}): ${stderr}`);
      if (Date.now() > until) throw new Error(`the object store did not listen on ${this.port} within 15 s: ${stderr}`);
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}
