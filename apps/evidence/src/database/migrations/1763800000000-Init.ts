import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Evidence: what was captured for a verification (`captures`, which also records who owns the session),
 * which artifacts are stored (`artifacts`), their bytes (`blobs`, the Postgres artifact store) and the
 * organization's activity log of the image endpoint (`activity`).
 */
export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE evidence.captures (
        session_id text PRIMARY KEY,
        org_id text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        capture_acquisition text CHECK (capture_acquisition IN ('camera', 'upload')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE evidence.blobs (
        id text PRIMARY KEY,
        byte_size integer NOT NULL CHECK (byte_size >= 0),
        bytes bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // JPEG does not compress: store out of line, uncompressed, so a range of the bytes is read without the rest
    await q.query(`ALTER TABLE evidence.blobs ALTER COLUMN bytes SET STORAGE EXTERNAL`);
    await q.query(`
      CREATE TABLE evidence.artifacts (
        session_id text NOT NULL REFERENCES evidence.captures (session_id) ON DELETE CASCADE,
        artifact text NOT NULL CHECK (artifact IN ('portrait', 'front', 'selfie', 'back')),
        content_type text NOT NULL CHECK (content_type = 'image/jpeg'),
        storage_key text NOT NULL,
        byte_size integer NOT NULL CHECK (byte_size >= 0),
        sha256 text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, artifact)
      )`);
    await q.query(`
      CREATE TABLE evidence.activity (
        seq bigserial NOT NULL,
        id text PRIMARY KEY,
        org_id text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        session_id text NOT NULL,
        action text NOT NULL CHECK (action IN ('kyc.idv.evidence_exported', 'kyc.idv.evidence_export_failed')),
        artifact text NOT NULL CHECK (artifact IN ('portrait', 'front', 'selfie')),
        outcome text NOT NULL,
        request_id text NOT NULL,
        key_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX activity_seq_uq ON evidence.activity (seq)`);
    await q.query(`CREATE INDEX activity_org_seq_idx ON evidence.activity (org_id, seq DESC)`);
    await q.query(`CREATE INDEX activity_org_session_seq_idx ON evidence.activity (org_id, session_id, seq DESC)`);
    await q.query(`CREATE INDEX captures_owner_idx ON evidence.captures (org_id, mode)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE evidence.activity`);
    await q.query(`DROP TABLE evidence.artifacts`);
    await q.query(`DROP TABLE evidence.blobs`);
    await q.query(`DROP TABLE evidence.captures`);
  }
}
