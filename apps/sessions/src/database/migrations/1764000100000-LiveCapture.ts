import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live verification (docs/capture.md): a live session's capture link (only the client secret's hash is kept), when
 * it expires and was submitted, what the applicant's browser and connection said (`capture_context`), the
 * template's capture switches pinned at create; live runs as jobs and run records without an expected outcome;
 * devices and document numbers seen, for device intelligence (velocity, repeat applicants).
 */
export class LiveCapture1764000100000 implements MigrationInterface {
  name = 'LiveCapture1764000100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE sessions.sessions
        ADD COLUMN capture_secret_hash text,
        ADD COLUMN capture_expires_at timestamptz,
        ADD COLUMN capture_submitted_at timestamptz,
        ADD COLUMN capture_acquisition text CHECK (capture_acquisition IN ('camera', 'upload')),
        ADD COLUMN capture_context jsonb NOT NULL DEFAULT '{}',
        ADD COLUMN photo_upload boolean NOT NULL DEFAULT false,
        ADD COLUMN device_intelligence boolean NOT NULL DEFAULT false`);
    await q.query(`CREATE UNIQUE INDEX sessions_capture_secret_uq ON sessions.sessions (capture_secret_hash) WHERE capture_secret_hash IS NOT NULL`);
    // the expiry sweep: open links past their time
    await q.query(`
      CREATE INDEX sessions_capture_open_idx ON sessions.sessions (capture_expires_at)
       WHERE status IN ('pending', 'in_progress') AND capture_submitted_at IS NULL AND capture_expires_at IS NOT NULL`);
    await q.query(`ALTER TABLE sessions.jobs DROP CONSTRAINT jobs_kind_check`);
    await q.query(`ALTER TABLE sessions.jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('test_run', 'invite_email', 'live_run'))`);
    await q.query(`ALTER TABLE sessions.runs ALTER COLUMN expected_outcome DROP NOT NULL`);
    await q.query(`
      CREATE TABLE sessions.devices (
        org_id text NOT NULL,
        mode text NOT NULL,
        device_id text NOT NULL,
        session_id text NOT NULL REFERENCES sessions.sessions (id),
        ip text NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org_id, mode, device_id, session_id, ip)
      )`);
    await q.query(`
      CREATE TABLE sessions.document_numbers (
        org_id text NOT NULL,
        mode text NOT NULL,
        number_hash text NOT NULL,
        applicant_id text NOT NULL,
        session_id text NOT NULL REFERENCES sessions.sessions (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org_id, mode, number_hash, session_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sessions.document_numbers, sessions.devices`);
    await q.query(`ALTER TABLE sessions.runs ALTER COLUMN expected_outcome SET NOT NULL`);
    await q.query(`ALTER TABLE sessions.jobs DROP CONSTRAINT jobs_kind_check`);
    await q.query(`ALTER TABLE sessions.jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('test_run', 'invite_email'))`);
    await q.query(`DROP INDEX sessions.sessions_capture_open_idx, sessions.sessions_capture_secret_uq`);
    await q.query(`
      ALTER TABLE sessions.sessions DROP COLUMN capture_secret_hash, DROP COLUMN capture_expires_at, DROP COLUMN capture_submitted_at,
        DROP COLUMN capture_acquisition, DROP COLUMN capture_context, DROP COLUMN photo_upload, DROP COLUMN device_intelligence`);
  }
}
