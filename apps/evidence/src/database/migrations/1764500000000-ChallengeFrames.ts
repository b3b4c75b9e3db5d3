import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The liveness challenge's frames are uploads too (`frame_0` to `frame_7`), with when each was taken
 * (`offset_ms`, from the first frame, as the page reports it): retention, erasure, export and the test-data purge
 * treat them as they treat every upload.
 */
export class ChallengeFrames1764500000000 implements MigrationInterface {
  name = 'ChallengeFrames1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE evidence.uploads DROP CONSTRAINT uploads_artifact_check`);
    await q.query(`ALTER TABLE evidence.uploads ADD CONSTRAINT uploads_artifact_check CHECK (artifact IN ('front', 'back', 'selfie') OR artifact ~ '^frame_[0-7]$')`);
    await q.query(`ALTER TABLE evidence.uploads ADD COLUMN offset_ms integer CHECK (offset_ms >= 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM evidence.uploads WHERE artifact LIKE 'frame\\_%'`);
    await q.query(`ALTER TABLE evidence.uploads DROP COLUMN offset_ms`);
    await q.query(`ALTER TABLE evidence.uploads DROP CONSTRAINT uploads_artifact_check`);
    await q.query(`ALTER TABLE evidence.uploads ADD CONSTRAINT uploads_artifact_check CHECK (artifact IN ('front', 'back', 'selfie'))`);
  }
}
