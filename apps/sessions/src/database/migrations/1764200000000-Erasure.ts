import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Erasure of an applicant's personal data (docs/privacy.md): when it happened; null while the session holds it. */
export class Erasure1764200000000 implements MigrationInterface {
  name = 'Erasure1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions.sessions ADD COLUMN erased_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions.sessions DROP COLUMN erased_at`);
  }
}
