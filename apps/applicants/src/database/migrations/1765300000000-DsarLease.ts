import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A data subject request is claimed as every job is (libs/platform/service `LeasedJobTable`): the holder's token and
 * when it was taken; while it is held, `run_after` is when the lease runs out. A request leased when this runs waits
 * its lease out.
 */
export class DsarLease1765300000000 implements MigrationInterface {
  name = 'DsarLease1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE applicants.data_subject_requests ADD COLUMN lease text, ADD COLUMN leased_at timestamptz`);
    await q.query(`UPDATE applicants.data_subject_requests SET run_after = greatest(run_after, lease_until) WHERE lease_until IS NOT NULL`);
    await q.query(`ALTER TABLE applicants.data_subject_requests DROP COLUMN lease_until`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE applicants.data_subject_requests ADD COLUMN lease_until timestamptz`);
    await q.query(`UPDATE applicants.data_subject_requests SET lease_until = run_after WHERE lease IS NOT NULL`);
    await q.query(`ALTER TABLE applicants.data_subject_requests DROP COLUMN lease, DROP COLUMN leased_at`);
  }
}
