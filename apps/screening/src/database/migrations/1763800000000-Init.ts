import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workflow templates and their immutable versions. A template row carries the owner, the creation time
 * and the number of its current version; every accepted write adds a version holding the full snapshot.
 * Snapshots are `json`, not `jsonb`: stored and returned exactly as accepted (member order, every string).
 */
export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE screening.templates (
        seq bigserial NOT NULL,
        id text PRIMARY KEY,
        org_id text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        current_version integer NOT NULL CHECK (current_version >= 1),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX templates_seq_uq ON screening.templates (seq)`);
    await q.query(`CREATE INDEX templates_owner_seq_idx ON screening.templates (org_id, mode, seq DESC)`);
    await q.query(`
      CREATE TABLE screening.template_versions (
        template_id text NOT NULL REFERENCES screening.templates (id) ON DELETE CASCADE,
        version integer NOT NULL CHECK (version >= 1),
        org_id text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        name text NOT NULL,
        checks text[] NOT NULL,
        screening_rules json NOT NULL,
        metadata json NOT NULL,
        device_intelligence boolean NOT NULL,
        photo_upload boolean NOT NULL,
        review_threshold double precision NOT NULL,
        signing_document json,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT template_versions_pk PRIMARY KEY (template_id, version)
      )`);
    // A version is immutable once written.
    await q.query(`
      CREATE FUNCTION screening.template_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'a workflow template version is immutable';
      END $$`);
    await q.query(`
      CREATE TRIGGER template_versions_no_update BEFORE UPDATE ON screening.template_versions
      FOR EACH ROW EXECUTE FUNCTION screening.template_versions_immutable()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE screening.template_versions`);
    await q.query(`DROP FUNCTION screening.template_versions_immutable()`);
    await q.query(`DROP TABLE screening.templates`);
  }
}
