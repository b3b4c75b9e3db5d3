import pg from 'pg';
import { DataSource, type MigrationInterface } from 'typeorm';

export type MigrationClass = new () => MigrationInterface;

export interface ServiceDatabaseOptions {
  url: string;
  /** The service's own schema: its tables and its migrations table live there and nowhere else. */
  schema: string;
  migrations: MigrationClass[];
  poolMax: number;
  applicationName: string;
}

/** A TypeORM data source for one service's own schema, with its migrations; never synchronize. */
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
    extra: { max: opts.poolMax, idleTimeoutMillis: 10_000 },
  });
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

/** Creates the schema if missing and applies pending migrations. Run before a rollout, not by the serving process. */
export async function migrateServiceSchema(opts: ServiceDatabaseOptions): Promise<string[]> {
  const ds = createServiceDataSource({ ...opts, poolMax: 1 });
  await ds.initialize();
  try {
    await ds.query(`CREATE SCHEMA IF NOT EXISTS "${opts.schema}"`);
    const ran = await ds.runMigrations({ transaction: 'each' });
    return ran.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}

/** Tells apart "cannot reach Postgres" from other failures for a clear start-up message. */
export function describeDbError(e: unknown): string {
  const code = (e as { code?: string }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT') {
    return 'Postgres is not reachable';
  }
  return (e as Error).message ?? String(e);
}
