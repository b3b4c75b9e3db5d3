import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Monitoring (docs/watchlist.md, "Monitoring"): each version that becomes current is handed to the sessions service,
 * which screens approved live sessions against it again. `monitor_notified_at` is set once sessions has the version:
 * until then a background pass hands it over again, so a commit followed by a crash is still monitored. Versions
 * committed before monitoring existed count as handed over.
 */
export class WatchlistMonitor1765000000002 implements MigrationInterface {
  name = 'WatchlistMonitor1765000000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE screening.watchlist_versions ADD COLUMN monitor_notified_at timestamptz`);
    await q.query(`UPDATE screening.watchlist_versions SET monitor_notified_at = now() WHERE state <> 'loading'`);
    await q.query(`CREATE INDEX watchlist_versions_monitor_idx ON screening.watchlist_versions (id) WHERE monitor_notified_at IS NULL AND state = 'current'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE screening.watchlist_versions DROP COLUMN monitor_notified_at`);
  }
}
