import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A template version's own watchlist thresholds (docs/watchlist.md, "Per workflow"): `{ review?, fail? }`, each over
 * the region's configuration. Versions written before hold none (`{}`): the region's thresholds, exactly what their
 * runs used. A column with a constant default rewrites no row (and so never meets the trigger that keeps versions
 * immutable).
 */
export class WatchlistThresholds1765000000003 implements MigrationInterface {
  name = 'WatchlistThresholds1765000000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE screening.template_versions ADD COLUMN watchlist_thresholds json NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE screening.template_versions DROP COLUMN watchlist_thresholds`);
  }
}
