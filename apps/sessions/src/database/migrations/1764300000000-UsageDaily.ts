import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Metering (docs/sessions.md, "Usage and timeline (console)"): sessions created per organization, mode, UTC day and
 * check. Counts only, no personal data: neither the test-data purge nor an erasure removes them. Written by the create
 * statement itself from the release that brings this migration; back-filled here from the sessions that exist (each
 * counted once per check of its `checks`, by the UTC day of its `created_at`). Creates are not held off meanwhile: the
 * previous release, still serving while this runs and until the rollout ends, writes sessions without counting them
 * (what it writes after the back-fill's snapshot is not counted; nothing is counted twice).
 */
export class UsageDaily1764300000000 implements MigrationInterface {
  name = 'UsageDaily1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sessions.usage_daily (
        org_id text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        day date NOT NULL,
        "check" text NOT NULL,
        count bigint NOT NULL CHECK (count >= 0),
        PRIMARY KEY (org_id, mode, day, "check")
      )`);
    await q.query(`
      INSERT INTO sessions.usage_daily (org_id, mode, day, "check", count)
      SELECT s.org_id, s.mode, (s.created_at AT TIME ZONE 'UTC')::date, c.type, count(*)
        FROM sessions.sessions s
       CROSS JOIN LATERAL (SELECT DISTINCT e->>'type' AS type FROM jsonb_array_elements(s.checks) e) c
       GROUP BY 1, 2, 3, 4`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sessions.usage_daily`);
  }
}
