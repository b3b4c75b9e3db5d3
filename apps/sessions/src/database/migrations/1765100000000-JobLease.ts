import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A job is claimed with a lease (libs/platform/service `LeasedJobTable`): the holder's token and when it was taken. While it
 * is held, `run_after` is when the lease runs out.
 */
export class JobLease1765100000000 implements MigrationInterface {
  name = 'JobLease1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions.jobs ADD COLUMN lease text, ADD COLUMN leased_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions.jobs DROP COLUMN lease, DROP COLUMN leased_at`);
  }
}
