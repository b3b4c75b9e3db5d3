import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The index screening finds candidates by (docs/watchlist.md, "Finding candidates"): the phonetic and skeleton keys
 * of every name of every listed person, keyed by version first, so that a screening reads only current versions'
 * keys (an index range per list and key) and a retired version's keys are cleared by the same index.
 */
export class WatchlistKeys1765000000001 implements MigrationInterface {
  name = 'WatchlistKeys1765000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE screening.watchlist_keys (
        version_id bigint NOT NULL,
        key text NOT NULL,
        seq integer NOT NULL,
        CONSTRAINT watchlist_keys_pk PRIMARY KEY (version_id, key, seq)
      )`);
    // versions loaded before keys existed have none: they are retired, so that a reload is needed to screen against them
    await q.query(`UPDATE screening.watchlists SET current_version = NULL`);
    await q.query(`UPDATE screening.watchlist_versions SET state = 'retired' WHERE state = 'current'`);
    await q.query(`UPDATE screening.watchlist_versions SET state = 'abandoned' WHERE state = 'loading'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE screening.watchlist_keys`);
  }
}
