import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A reviewer's decision on one watchlist hit of a session (docs/watchlist.md, "Reviewing hits"): the hit is a finding
 * of the session's run (`sessions.runs.findings`), named by its id; `cleared` (a false positive) or `confirmed` (a
 * true match), with the reason, who decided and when. One decision per hit. The reason is about the applicant: it goes
 * with the findings on erasure, and with the session when test data is purged.
 */
export class WatchlistDecisions1764900000000 implements MigrationInterface {
  name = 'WatchlistDecisions1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sessions.watchlist_decisions (
        session_id text NOT NULL REFERENCES sessions.sessions (id) ON DELETE CASCADE,
        finding_id text NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('cleared', 'confirmed')),
        reason text NOT NULL,
        decided_by text NOT NULL,
        decided_by_email text,
        decided_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, finding_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sessions.watchlist_decisions`);
  }
}
