import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sessions keeps what the capture needs of its uploads (docs/capture.md): the images' sizes by artifact and the
 * challenge frames' indexes, from what evidence answered the gateway, instead of asking evidence back on every get,
 * image stored and submit. A capture open across the upgrade shows its earlier uploads as missing: its applicant
 * uploads them again.
 */
export class CaptureImages1765200000000 implements MigrationInterface {
  name = 'CaptureImages1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions.sessions ADD COLUMN capture_images jsonb NOT NULL DEFAULT '{}'::jsonb, ADD COLUMN capture_frames smallint[] NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions.sessions DROP COLUMN capture_images, DROP COLUMN capture_frames`);
  }
}
