import type pg from 'pg';
import type { DataSource } from 'typeorm';
import { isDatabaseUnavailable } from './database.js';

export interface Queryable {
  rows<R>(text: string, params?: unknown[]): Promise<R[]>;
}

class ClientQueryable implements Queryable {
  constructor(private readonly client: pg.PoolClient) {}
  async rows<R>(text: string, params: unknown[] = []): Promise<R[]> {
    return (await this.client.query(text, params)).rows as R[];
  }
}

/**
 * The SQL boundary of a service's repositories: parameterised statements on the data source's own pool,
 * returning rows for every statement kind, and transactions that roll back on any error.
 */
export class Sql implements Queryable {
  private readonly pool: pg.Pool;

  constructor(ds: DataSource) {
    const pool = (ds.driver as unknown as { master?: pg.Pool }).master;
    if (!pool) throw new Error('the data source is not initialized');
    this.pool = pool;
  }

  async rows<R>(text: string, params: unknown[] = []): Promise<R[]> {
    return (await this.pool.query(text, params)).rows as R[];
  }

  /**
   * A statement prepared once per connection under `name` (the same name must always carry the same text):
   * for hot statements whose planning costs more than their execution.
   */
  async prepared<R>(name: string, text: string, params: unknown[] = []): Promise<R[]> {
    return (await this.pool.query({ name, text, values: params })).rows as R[];
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
