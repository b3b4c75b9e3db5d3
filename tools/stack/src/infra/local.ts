import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NATS_SERVER_BIN } from '../nats.js';
import { ensureInstalled, onPath, type Needed } from './packages.js';
import { PostgresServer } from './postgres.js';
import { ServerProcess } from './process.js';

/**
 * The servers a local stack or a test run needs, private to the checkout (docs/operations.md, "Local
 * infrastructure"): Postgres, Redis and, for the integration tests, an open NATS with JetStream. Each is one the
 * environment names (DATABASE_URL, REDIS_URL, NATS_URL) or, when it names none, a server of our own under `dir`
 * on a free loopback port, started now and stopped by `stop`.
 *
 * ```
 * <dir>/postgres/            the cluster (kept between runs when `keep`)
 * <dir>/postgres.password    its superuser's password
 * <dir>/redis/               Redis's working directory (it saves nothing)
 * <dir>/nats/                the JetStream store of the tests' NATS
 * <dir>/*.log                each server's output
 * ```
 */
export interface LocalInfraOptions {
  dir: string;
  /** Keep the Postgres cluster between runs (`npm start`), or make a new one each time (tests). */
  keep: boolean;
  /** Start an open NATS with JetStream (the integration tests' bus); regional stacks run servers of their own. */
  nats: boolean;
  /** Picks a free loopback port for each server. */
  freePort: () => Promise<number>;
  /** Where the infrastructure says what it does. */
  say: (line: string) => void;
  /** Servers given by the environment, used instead of our own. */
  given?: { postgresUrl?: string; redisUrl?: string; natsUrl?: string };
  maxConnections?: number;
}

/** The programs the local infrastructure runs, and their Debian packages. */
export function infraPrograms(need: { redis: boolean; nats: boolean }): Needed[] {
  return [
    ...(need.redis ? [{ what: 'redis-server', packages: ['redis-server'], present: () => onPath('redis-server') }] : []),
    ...(need.nats ? [{ what: 'nats-server', packages: ['nats-server'], present: () => onPath(NATS_SERVER_BIN) }] : []),
  ];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Claims the checkout's local infrastructure for this process (`<dir>/running.pid`): refused while another
 * `npm start` of the checkout runs; a claim whose process is gone is taken over. Released when the process exits.
 */
export function claimCheckout(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, 'running.pid');
  const holder = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : 0;
  if (holder && holder !== process.pid && alive(holder)) {
    throw new Error(`npm start is already running in this checkout (pid ${holder}); stop it first (Ctrl-C in its terminal, or kill ${holder})`);
  }
  writeFileSync(file, `${process.pid}\n`);
  process.once('exit', () => rmSync(file, { force: true }));
}

/**
 * A Postgres server that an earlier run of this checkout left behind (that run was killed before it could stop
 * it) still holds the cluster: stop it, so this run can start its own.
 */
async function stopLeftover(dataDir: string, say: (line: string) => void): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!pid || !alive(pid)) return;
  say(`stopping the Postgres server (pid ${pid}) an earlier run left running`);
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

export class LocalInfra {
  private constructor(
    /** An admin URL of Postgres (its `postgres` database, as a superuser): databases are made and dropped with it. */
    readonly postgresUrl: string,
    readonly redisUrl: string,
    readonly natsUrl: string | undefined,
    private readonly owned: { postgres?: PostgresServer; redis?: ServerProcess; nats?: ServerProcess },
    /** What runs where, for the start-up message. */
    readonly summary: string[],
  ) {}

  static async start(o: LocalInfraOptions): Promise<LocalInfra> {
    const given = o.given ?? {};
    // every stack runs nats-servers of its own, so the binary is needed even when NATS_URL is given
    ensureInstalled(infraPrograms({ redis: !given.redisUrl, nats: true }), o.say);
    mkdirSync(o.dir, { recursive: true, mode: 0o700 });
    const owned: { postgres?: PostgresServer; redis?: ServerProcess; nats?: ServerProcess } = {};
    const summary: string[] = [];
    const infra = new LocalInfra('', '', undefined, owned, summary);
    try {
      let postgresUrl = given.postgresUrl;
      if (!postgresUrl) {
        const dataDir = path.join(o.dir, 'postgres');
        if (!o.keep) rmSync(dataDir, { recursive: true, force: true });
        else await stopLeftover(dataDir, o.say);
        owned.postgres = await PostgresServer.prepare({
          dataDir,
          port: await o.freePort(),
          durability: o.keep ? 'full' : 'test',
          logFile: path.join(o.dir, 'postgres.log'),
          maxConnections: o.maxConnections,
        });
        await owned.postgres.start();
        postgresUrl = owned.postgres.url('postgres');
        summary.push(`Postgres 127.0.0.1:${owned.postgres.port} (${dataDir})`);
      } else summary.push('Postgres from DATABASE_URL');

      let redisUrl = given.redisUrl;
      if (!redisUrl) {
        const port = await o.freePort();
        const password = randomBytes(18).toString('base64url');
        const dir = path.join(o.dir, 'redis');
        mkdirSync(dir, { recursive: true });
        owned.redis = await ServerProcess.start({
          name: 'redis-server',
          command: 'redis-server',
          args: ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir, '--requirepass', password, '--logfile', ''],
          port,
          logFile: path.join(o.dir, 'redis.log'),
        });
        redisUrl = `redis://:${password}@127.0.0.1:${port}`;
        summary.push(`Redis 127.0.0.1:${port}`);
      } else summary.push('Redis from REDIS_URL');

      let natsUrl = given.natsUrl;
      if (!natsUrl && o.nats) {
        const port = await o.freePort();
        const store = path.join(o.dir, 'nats');
        rmSync(store, { recursive: true, force: true });
        owned.nats = await ServerProcess.start({
          name: 'nats-server',
          command: NATS_SERVER_BIN,
          args: ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store],
          port,
          logFile: path.join(o.dir, 'nats.log'),
        });
        natsUrl = `nats://127.0.0.1:${port}`;
        summary.push(`NATS with JetStream 127.0.0.1:${port}`);
      } else if (natsUrl) summary.push('NATS from NATS_URL');
      return new LocalInfra(postgresUrl, redisUrl, natsUrl, owned, summary);
    } catch (e) {
      await infra.stop();
      throw e;
    }
  }

  /** A URL of database `name` on the Postgres server. */
  databaseUrl(name: string): string {
    const u = new URL(this.postgresUrl);
    u.pathname = `/${name}`;
    return u.toString();
  }

  async stop(): Promise<void> {
    await Promise.all([this.owned.nats?.stop(), this.owned.redis?.stop(), this.owned.postgres?.stop()]);
  }
}
