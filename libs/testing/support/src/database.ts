import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Migrated once per test run (tools/scripts/test.mjs), cloned per test file. */
export const TEMPLATE_DB = process.env.TEST_TEMPLATE_DB ?? 'verity_test_template';

export function dbUrl(name: string): string {
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A database of its own for one test file, cloned from the migrated template. */
export async function cloneTestDatabase(label: string): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `vt_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DB}"`));
  return {
    name,
    url: dbUrl(name),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/** Runs one query against a database (for assertions on stored rows). */
export async function query<R extends pg.QueryResultRow = Record<string, unknown>>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** A prefix that isolates one test's NATS subjects and Redis keys from every other run. */
export function isolationPrefix(label: string): string {
  return `t${label.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 12)}${randomBytes(3).toString('hex')}_`;
}
