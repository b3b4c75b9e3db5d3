import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Monitoring (docs/watchlist.md, "Monitoring"): one row per list version that screening handed over. The monitor
 * pages through the approved live sessions (by `seq`, `cursor` the last one done) and screens each against the
 * version; the row survives a crash, and a page is done again whole (what it stored is idempotent). A worker claims a
 * row by moving `run_after` past its lease; `finished_at` ends it.
 */
export class WatchlistMonitors1764800000000 implements MigrationInterface {
  name = 'WatchlistMonitors1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sessions.watchlist_monitors (
        list text NOT NULL,
        version bigint NOT NULL,
        committed_at timestamptz NOT NULL,
        cursor bigint NOT NULL DEFAULT 0,
        screened integer NOT NULL DEFAULT 0,
        hits integer NOT NULL DEFAULT 0,
        attempts integer NOT NULL DEFAULT 0,
        run_after timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        PRIMARY KEY (list, version)
      )`);
    await q.query(`CREATE INDEX watchlist_monitors_due_idx ON sessions.watchlist_monitors (run_after) WHERE finished_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sessions.watchlist_monitors`);
  }
}
