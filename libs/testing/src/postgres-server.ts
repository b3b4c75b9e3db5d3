import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** The newest installed Postgres server binaries (Debian layout). */
function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = readdirSync(base)
    .filter((v) => /^[0-9]+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error(`no Postgres server under ${base}`);
  return path.join(base, versions[0]!, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A Postgres server of a test's own, in a temporary directory on a free port, that the test may stop, pause
 * and restart without touching the shared server other tests use. Runs as the `postgres` OS user (Postgres
 * refuses to run as root).
 */
export class PostgresServer {
  private proc: ChildProcess | null = null;
  private paused: number[] = [];

  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly uid: number,
    private readonly gid: number,
  ) {}

  /** Initialises a new cluster (trust authentication on loopback, no fsync) and starts it. */
  static async create(): Promise<PostgresServer> {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    const dir = mkdtempSync(path.join(os.tmpdir(), 'verity-pg-'));
    chownSync(dir, uid, gid);
    const init = spawnSync(path.join(postgresBin(), 'initdb'), ['-D', path.join(dir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
      uid,
      gid,
      cwd: dir,
      encoding: 'utf8',
    });
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
    const server = new PostgresServer(dir, await freePort(), uid, gid);
    await server.start();
    return server;
  }

  /** A URL of database `name` on this server. */
  url(name: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${name}`;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** Starts the server (again) on the same directory and port; resolves once it accepts queries. */
  async start(timeoutMs = 20_000): Promise<void> {
    if (this.proc) return;
    const args = ['-D', path.join(this.dir, 'data'), '-p', String(this.port), '-k', this.dir, '-c', 'listen_addresses=127.0.0.1'];
    args.push('-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200', '-c', 'shared_buffers=32MB');
    const proc = spawn(path.join(postgresBin(), 'postgres'), args, { uid: this.uid, gid: this.gid, cwd: this.dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    proc.on('exit', () => {
      if (this.proc === proc) this.proc = null;
    });
    this.proc = proc;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`postgres exited: ${err}`);
      const c = new pg.Client({ connectionString: this.url('postgres'), connectionTimeoutMillis: 1000 });
      try {
        await c.connect();
        await c.query('SELECT 1');
        await c.end();
        return;
      } catch {
        await c.end().catch(() => undefined);
      }
      if (Date.now() > deadline) throw new Error(`postgres did not start: ${err}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Stops the server: `fast` ends every session (as a restart does); `immediate` is a crash. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null) return;
    this.resume();
    const exited = once(proc, 'exit');
    proc.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
    await exited;
  }

  /** The server and every backend stop answering (SIGSTOP): connections stay open and nothing replies. */
  pause(): void {
    const pid = this.proc?.pid;
    if (!pid) return;
    process.kill(pid, 'SIGSTOP');
    this.paused = [pid, ...children(pid)];
    for (const p of this.paused.slice(1)) process.kill(p, 'SIGSTOP');
  }

  resume(): void {
    for (const p of this.paused.reverse()) {
      try {
        process.kill(p, 'SIGCONT');
      } catch {
        // gone
      }
    }
    this.paused = [];
  }

  /** Stops the server and removes its directory. */
  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Process ids whose parent is `pid` (from /proc). */
function children(pid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(e));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}
