/**
 * Each service connects to Postgres as its own role (docs/operations.md, "Database roles"), which the migrate step
 * gives the use of its own schema's rows and nothing else. On a copy of the migrated test database: every service's
 * role reads and writes its own tables, and none reads, writes or alters another's, nor creates anything. (The
 * stacks of the other end-to-end files run every service as its role, so what the services do needs no more.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { SERVICES, serviceDatabaseUrl } from '@verity/stack';
import { cloneTestDatabase } from '@verity/testing';

let db: Awaited<ReturnType<typeof cloneTestDatabase>>;
const schemaOf = (service: string) => service.replace(/-/g, '_');

/** Runs `sql` as `service`'s role; the SQLSTATE of its refusal, or 'ok'. */
async function as(service: string, sql: string): Promise<string> {
  const c = new pg.Client({ connectionString: serviceDatabaseUrl(db.url, service) });
  await c.connect();
  try {
    await c.query(sql);
    return 'ok';
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  } finally {
    await c.end();
  }
}

/** A table of each service's schema (its migrations table: every schema has one). */
const tableOf = (service: string) => `"${schemaOf(service)}".migrations`;

before(async () => {
  db = await cloneTestDatabase('roles');
});

after(async () => {
  await db?.drop();
});

describe('database roles: a service reaches its own schema only', () => {
  for (const service of SERVICES) {
    it(`${service}: reads its own tables; another service's are refused (42501), and it creates nothing`, async () => {
      assert.equal(await as(service, `SELECT count(*) FROM ${tableOf(service)}`), 'ok');
      assert.equal(await as(service, `UPDATE ${tableOf(service)} SET name = name WHERE false`), 'ok');
      for (const other of SERVICES.filter((s) => s !== service)) {
        assert.equal(await as(service, `SELECT count(*) FROM ${tableOf(other)}`), '42501', `${service} reads ${other}`);
        assert.equal(await as(service, `DELETE FROM ${tableOf(other)} WHERE false`), '42501', `${service} deletes from ${other}`);
      }
      assert.equal(await as(service, `CREATE TABLE "${schemaOf(service)}".intruder (x int)`), '42501', 'no DDL in its own schema');
      assert.equal(await as(service, `CREATE TABLE public.intruder (x int)`), '42501', 'nor in public');
      assert.equal(await as(service, `DROP TABLE ${tableOf(service)}`), '42501', 'nor dropping its own tables');
    });
  }

  it('a wrong password is refused (28P01)', async () => {
    const u = new URL(serviceDatabaseUrl(db.url, 'sessions'));
    u.password = 'not-the-password';
    const c = new pg.Client({ connectionString: u.toString() });
    await assert.rejects(c.connect(), (e: { code?: string }) => e.code === '28P01');
  });
});
