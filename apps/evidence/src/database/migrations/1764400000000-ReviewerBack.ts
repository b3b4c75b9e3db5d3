import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The back of a document is shown to reviewers in the console (docs/evidence.md), and every view of it is written to
 * the activity log like any image's: the log's artifacts include `back`.
 */
export class ReviewerBack1764400000000 implements MigrationInterface {
  name = 'ReviewerBack1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE evidence.activity DROP CONSTRAINT activity_artifact_check`);
    await q.query(`ALTER TABLE evidence.activity ADD CONSTRAINT activity_artifact_check CHECK (artifact IN ('portrait', 'front', 'selfie', 'back'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM evidence.activity WHERE artifact = 'back'`);
    await q.query(`ALTER TABLE evidence.activity DROP CONSTRAINT activity_artifact_check`);
    await q.query(`ALTER TABLE evidence.activity ADD CONSTRAINT activity_artifact_check CHECK (artifact IN ('portrait', 'front', 'selfie'))`);
  }
}
