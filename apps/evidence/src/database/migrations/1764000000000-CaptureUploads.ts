import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The images of a live capture as the applicant uploaded them (`front`, `back`, `selfie`; normalized JPEG), one
 * of each kind per session, replaced by a new upload; and who owns the session they belong to. The live run
 * reads them and stores its evidence (`artifacts`) from them.
 */
export class CaptureUploads1764000000000 implements MigrationInterface {
  name = 'CaptureUploads1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE evidence.uploads (
        session_id text NOT NULL,
        artifact text NOT NULL CHECK (artifact IN ('front', 'back', 'selfie')),
        org_id text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        storage_key text NOT NULL,
        width integer NOT NULL CHECK (width > 0),
        height integer NOT NULL CHECK (height > 0),
        byte_size integer NOT NULL CHECK (byte_size >= 0),
        sha256 text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, artifact)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE evidence.uploads`);
  }
}
