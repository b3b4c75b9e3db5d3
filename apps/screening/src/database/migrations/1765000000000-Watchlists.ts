import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Watchlists loaded by the operator (docs/watchlist.md). A list has versions: a load writes a new version
 * (`loading`) batch by batch, invisible to screening, and its commit makes it the list's `current_version` in one
 * transaction (the version before becomes `retired`). Screening reads only current versions, so a reader sees the
 * old list until the new one commits. The entities of retired and abandoned versions are deleted afterwards, in
 * chunks, by the service. No foreign keys from the entity rows: a version's million rows are never deleted in one
 * statement.
 */
export class Watchlists1765000000000 implements MigrationInterface {
  name = 'Watchlists1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE screening.watchlists (
        id text PRIMARY KEY,
        current_version bigint,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE screening.watchlist_versions (
        id bigserial PRIMARY KEY,
        list_id text NOT NULL REFERENCES screening.watchlists (id),
        format text NOT NULL,
        source text NOT NULL,
        state text NOT NULL CHECK (state IN ('loading', 'current', 'retired', 'abandoned')),
        published_on date,
        entities integer NOT NULL DEFAULT 0,
        names integer NOT NULL DEFAULT 0,
        skipped jsonb NOT NULL DEFAULT '{}',
        started_at timestamptz NOT NULL DEFAULT now(),
        touched_at timestamptz NOT NULL DEFAULT now(),
        committed_at timestamptz,
        purged_at timestamptz
      )`);
    // one load at a time per list
    await q.query(`CREATE UNIQUE INDEX watchlist_versions_loading_uq ON screening.watchlist_versions (list_id) WHERE state = 'loading'`);
    await q.query(`CREATE INDEX watchlist_versions_unpurged_idx ON screening.watchlist_versions (state) WHERE purged_at IS NULL AND state IN ('retired', 'abandoned')`);
    await q.query(`
      CREATE TABLE screening.watchlist_entities (
        version_id bigint NOT NULL,
        seq integer NOT NULL,
        entity_id text NOT NULL,
        names text[] NOT NULL,
        dates_of_birth text[] NOT NULL,
        nationalities text[] NOT NULL,
        CONSTRAINT watchlist_entities_pk PRIMARY KEY (version_id, seq)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE screening.watchlist_entities`);
    await q.query(`DROP TABLE screening.watchlist_versions`);
    await q.query(`DROP TABLE screening.watchlists`);
  }
}
