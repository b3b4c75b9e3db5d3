import type pg from 'pg';
import { isDatabaseUnavailable } from './database.js';
import { addScrapeSampler, metrics, secondsSince } from './metrics.js';
import { inSpan, SpanKind } from './tracing.js';

/** The statement's kind (its first word) for a span's name: never its text's values (they are parameters anyway). */
function operationOf(text: string): string {
  const m = /^\s*([A-Za-z]+)/.exec(text);
  return m ? m[1]!.toUpperCase() : 'QUERY';
}

/** Runs one statement, timed (`verity_db_query_duration_seconds`) and, when tracing, in a span of its own. */
async function timed<T>(text: string, run: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  try {
    const op = operationOf(text);
    return await inSpan(`db ${op}`, SpanKind.CLIENT, { 'db.system.name': 'postgresql', 'db.operation.name': op }, run);
  } finally {
    metrics.dbQueryDuration.observe(secondsSince(started));
  }
}

/**
 * A row type from its contract type, so that each shape is written once: `T` with the fields `K` (timestamps, ISO
 * 8601 text on the wire) as node-postgres reads a `timestamptz`, a `Date` (or null where the field may be null).
 * A repository omits the wire-only fields and adds the columns only its table has.
 */
export type WithDates<T, K extends keyof T> = Omit<T, K> & { [P in K]: null extends T[P] ? Date | null : Date };

export interface Queryable {
  rows<R>(text: string, params?: unknown[]): Promise<R[]>;
}

class ClientQueryable implements Queryable {
  constructor(private readonly client: pg.PoolClient) {}
  async rows<R>(text: string, params: unknown[] = []): Promise<R[]> {
    return (await timed(text, () => this.client.query(text, params))).rows as R[];
  }
}

/**
 * The SQL boundary of a service's repositories: parameterised statements on the service's pool (`createServicePool`),
 * returning rows for every statement kind, and transactions that roll back on any error. `pool` is there for
 * the rare code that needs a connection of its own (streaming a large value).
 */
export class Sql implements Queryable {
  constructor(readonly pool: pg.Pool) {
    // statements waiting for a connection: the pool is the bottleneck (PG_POOL_MAX), sampled on scrape
    addScrapeSampler(() => metrics.dbPoolWaiting.set(pool.waitingCount));
  }

  /** Closes every connection once the statements under way have finished. */
  async end(): Promise<void> {
    await this.pool.end();
  }

  async rows<R>(text: string, params: unknown[] = []): Promise<R[]> {
    return (await timed(text, () => this.pool.query(text, params))).rows as R[];
  }

  /**
   * A statement prepared once per connection under `name` (the same name must always carry the same text):
   * for hot statements whose planning costs more than their execution.
   */
  async prepared<R>(name: string, text: string, params: unknown[] = []): Promise<R[]> {
    return (await timed(text, () => this.pool.query({ name, text, values: params }))).rows as R[];
  }

  /**
   * Runs `fn` in a transaction on one connection. A connection lost or timed out on the way is discarded
   * rather than rolled back (a ROLLBACK would only wait on it again) and never returns to the pool.
   */
  async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // a checked-out connection that dies between statements (Postgres restarted, the idle-transaction timeout)
    // reports it here; without a listener the error would end the process
    let lost: Error | undefined;
    const onError = (e: Error) => (lost ??= e);
    client.on('error', onError);
    let discard: Error | undefined;
    try {
      await client.query('BEGIN');
      const out = await fn(new ClientQueryable(client));
      await client.query('COMMIT');
      return out;
    } catch (e) {
      if (lost || isDatabaseUnavailable(e)) discard = lost ?? (e as Error);
      else await client.query('ROLLBACK').catch((r: Error) => (discard = r));
      throw e;
    } finally {
      client.off('error', onError);
      client.release(discard ?? lost);
    }
  }
}
