import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Data subject requests and retention (docs/privacy.md): `captures.erased_at` marks a session whose images were
 * erased (no image is stored for it again); indexes for retention by age and for finding a blob's references.
 */
export class PrivacyRetention1764300000000 implements MigrationInterface {
  name = 'PrivacyRetention1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE evidence.captures ADD COLUMN erased_at timestamptz`);
    await q.query(`CREATE INDEX artifacts_created_idx ON evidence.artifacts (created_at)`);
    await q.query(`CREATE INDEX uploads_created_idx ON evidence.uploads (created_at)`);
    await q.query(`CREATE INDEX blobs_created_idx ON evidence.blobs (created_at)`);
    await q.query(`CREATE INDEX artifacts_storage_key_idx ON evidence.artifacts (storage_key)`);
    await q.query(`CREATE INDEX uploads_storage_key_idx ON evidence.uploads (storage_key)`);
    await q.query(`CREATE INDEX uploads_owner_idx ON evidence.uploads (org_id, mode)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX evidence.uploads_owner_idx`);
    await q.query(`DROP INDEX evidence.uploads_storage_key_idx`);
    await q.query(`DROP INDEX evidence.artifacts_storage_key_idx`);
    await q.query(`DROP INDEX evidence.blobs_created_idx`);
    await q.query(`DROP INDEX evidence.uploads_created_idx`);
    await q.query(`DROP INDEX evidence.artifacts_created_idx`);
    await q.query(`ALTER TABLE evidence.captures DROP COLUMN erased_at`);
  }
}
