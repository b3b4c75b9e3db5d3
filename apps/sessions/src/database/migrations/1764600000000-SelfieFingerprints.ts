import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The selfies of an organization's live runs, as their 64-bit picture fingerprints (docs/reading.md, "A selfie seen
 * before"): a selfie within a few bits of one sent for another applicant is a reason for review. A fingerprint
 * identifies a picture, not a person, and cannot be turned back into one; it goes with its session on erasure.
 */
export class SelfieFingerprints1764600000000 implements MigrationInterface {
  name = 'SelfieFingerprints1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sessions.selfie_fingerprints (
        org_id text NOT NULL,
        mode text NOT NULL,
        fingerprint bit(64) NOT NULL,
        applicant_id text NOT NULL,
        session_id text NOT NULL REFERENCES sessions.sessions (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (org_id, mode, session_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sessions.selfie_fingerprints`);
  }
}
