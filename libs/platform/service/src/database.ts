import pg from 'pg';
import { DataSource, type MigrationInterface } from 'typeorm';
import { serviceRole } from './database-roles.js';

export type MigrationClass = new () => MigrationInterface;

/** How long a service waits on Postgres before it gives up (configuration: `postgresEnv`). */
export interface DatabaseTimeouts {
  /** Opening a connection, or waiting for a free one of the pool. */
  connectMs: number;
  /** Postgres cancels a longer statement; 0: no limit (migrations). */
  statementMs: number;
  /** Postgres ends a session whose transaction sits idle longer. */
  idleInTransactionMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 3000, statementMs: 10_000, idleInTransactionMs: 60_000 };

/**
 * How much longer than the statement timeout the client waits for an answer: Postgres's own cancellation
 * normally answers first; this catches a server that answers nothing (stopped, hung, cut off).
 */
export const PG_READ_GRACE_MS = 1000;
/** TCP keepalive on every connection, so that a peer gone without a word is noticed on idle connections too. */
const KEEPALIVE_DELAY_MS = 10_000;

/** The connections of one process to its region's database. */
export interface ServicePoolOptions {
  url: string;
  poolMax: number;
  applicationName: string;
  timeouts?: DatabaseTimeouts;
}

export interface ServiceDatabaseOptions extends ServicePoolOptions {
  /** The service's own schema: its tables and its migrations table live there and nowhere else. */
  schema: string;
  migrations: MigrationClass[];
}

/** node-postgres pool options that bound every wait on the server (see DatabaseTimeouts). */
export function poolTimeoutOptions(t: DatabaseTimeouts): Record<string, unknown> {
  return {
    connectionTimeoutMillis: t.connectMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    ...(t.statementMs > 0 ? { statement_timeout: t.statementMs, query_timeout: t.statementMs + PG_READ_GRACE_MS } : {}),
    idle_in_transaction_session_timeout: t.idleInTransactionMs,
  };
}

/** Size, idle release and timeouts of a node-postgres pool, the same for the serving pool and for migrations. */
function poolOptionsOf(opts: ServicePoolOptions): Record<string, unknown> {
  return { max: opts.poolMax, idleTimeoutMillis: 10_000, ...poolTimeoutOptions(opts.timeouts ?? DEFAULT_DATABASE_TIMEOUTS) };
}

/**
 * The node-postgres pool a service serves from (its repositories reach it through `Sql`). Lazy: the caller checks
 * that Postgres answers. An idle connection that dies (Postgres restarted) leaves the pool on its own; the next
 * statement reports the outage, so the pool's own error event is only acknowledged (without a listener it would
 * end the process).
 */
export function createServicePool(opts: ServicePoolOptions): pg.Pool {
  const pool = new pg.Pool({ connectionString: opts.url, application_name: opts.applicationName, ...poolOptionsOf(opts) });
  pool.on('error', () => undefined);
  return pool;
}

/** A TypeORM data source for one service's own schema, to run its migrations; never synchronize. */
export function createServiceDataSource(opts: ServiceDatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: opts.url,
    schema: opts.schema,
    migrations: opts.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    poolSize: opts.poolMax,
    applicationName: opts.applicationName,
    extra: poolOptionsOf(opts),
  });
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // Postgres: shutting down, crashed, starting up, too many connections, statement or idle-transaction timeout
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '57014',
  '25P03',
]);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/**
 * Whether an error means that Postgres could not be reached or did not answer in time (refused, lost, stopped,
 * restarting, timed out), as opposed to a fault of the statement: the request may succeed when retried.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  type Cause = { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown; errors?: unknown };
  let err = e as Cause | undefined;
  for (let depth = 0; err && typeof err === 'object' && depth < 4; depth++) {
    const { code, message } = err;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
    if (Array.isArray(err.errors) && err.errors.some((x) => isDatabaseUnavailable(x))) return true;
    err = (err.driverError ?? err.cause) as Cause | undefined;
  }
  return false;
}

/** Creates the database named in `url` if it does not exist (connecting to the server's `postgres` database). */
export async function ensureDatabase(url: string, template?: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`unsupported database name "${name}"`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
      } catch (e) {
        // another process created it first
        if ((e as { code?: string }).code !== '42P04') throw e;
      }
    }
  } finally {
    await client.end();
  }
}

/**
 * Creates the schema if missing, applies pending migrations, and gives the service's role (`serviceRole`) the use
 * of its schema's tables and sequences and nothing else; `rolePassword` lets that role log in with it. Run before a
 * rollout by the schema's owner, not by the serving process.
 */
export async function migrateServiceSchema(opts: ServiceDatabaseOptions & { rolePassword?: string }): Promise<string[]> {
  // a migration may rewrite a large table: no statement timeout
  const ds = createServiceDataSource({ ...opts, poolMax: 1, timeouts: { ...(opts.timeouts ?? DEFAULT_DATABASE_TIMEOUTS), statementMs: 0 } });
  await ds.initialize();
  try {
    await ds.query(`CREATE SCHEMA IF NOT EXISTS "${opts.schema}"`);
    const ran = await ds.runMigrations({ transaction: 'each' });
    await grantServiceRole(ds, opts.schema, opts.rolePassword);
    return ran.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}

/** SQLSTATEs of a role made or changed at the same moment by another migration (both regions migrate at once). */
const ROLE_RACES = new Set(['42710', '23505', 'XX000']);

/**
 * The service's role: created if missing (able to log in, inheriting nothing), its password set when given, and
 * granted exactly the data rights on its own schema: read and write rows, use sequences. No DDL, no other schema
 * (PUBLIC's default use of a new schema is revoked too), so a service cannot read another's tables.
 */
async function grantServiceRole(ds: DataSource, schema: string, password: string | undefined): Promise<void> {
  const role = serviceRole(schema);
  const q = (sql: string, params?: unknown[]) => ds.query(sql, params);
  for (let attempt = 0; ; attempt++) {
    try {
      const [{ exists }] = (await q('SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AS exists', [role])) as [{ exists: boolean }];
      if (!exists) await q(`CREATE ROLE "${role}" LOGIN NOINHERIT`);
      if (password !== undefined) {
        const [{ sql }] = (await q(`SELECT format('ALTER ROLE %I LOGIN PASSWORD %L', $1::text, $2::text) AS sql`, [role, password])) as [{ sql: string }];
        await q(sql);
      }
      break;
    } catch (e) {
      if (attempt >= 3 || !ROLE_RACES.has((e as { code?: string }).code ?? '')) throw e;
    }
  }
  await q(`REVOKE ALL ON SCHEMA "${schema}" FROM PUBLIC`);
  await q(`GRANT USAGE ON SCHEMA "${schema}" TO "${role}"`);
  await q(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO "${role}"`);
  await q(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA "${schema}" TO "${role}"`);
}

/** Tells apart "cannot reach Postgres" from other failures for a clear start-up message. */
export function describeDbError(e: unknown): string {
  const code = (e as { code?: string }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT') {
    return 'Postgres is not reachable';
  }
  return (e as Error).message ?? String(e);
}
