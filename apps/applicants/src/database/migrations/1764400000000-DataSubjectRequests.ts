import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Data subject requests (docs/privacy.md) and erased applicants. */
export class DataSubjectRequests1764400000000 implements MigrationInterface {
  name = 'DataSubjectRequests1764400000000';

  async up(q: QueryRunner): Promise<void> {
    // an erased applicant keeps its row (id, mode, created_at) with every personal field null
    await q.query(`ALTER TABLE applicants.applicants ADD COLUMN erased_at timestamptz`);
    await q.query(`ALTER TABLE applicants.applicants ALTER COLUMN family_name DROP NOT NULL, ALTER COLUMN given_names DROP NOT NULL`);
    await q.query(`
      CREATE TABLE applicants.data_subject_requests (
        seq bigserial NOT NULL,
        id text PRIMARY KEY,
        org_id text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        type text NOT NULL CHECK (type IN ('access', 'erasure')),
        applicant_id text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed')),
        principal jsonb NOT NULL,
        steps jsonb NOT NULL DEFAULT '{}',
        export jsonb,
        certificate text,
        attempts integer NOT NULL DEFAULT 0,
        run_after timestamptz NOT NULL DEFAULT now(),
        lease_until timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      )`);
    await q.query(`CREATE INDEX data_subject_requests_due_idx ON applicants.data_subject_requests (run_after) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX data_subject_requests_applicant_idx ON applicants.data_subject_requests (org_id, mode, applicant_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE applicants.data_subject_requests`);
    await q.query(`DELETE FROM applicants.applicants WHERE family_name IS NULL`);
    await q.query(`ALTER TABLE applicants.applicants ALTER COLUMN family_name SET NOT NULL, ALTER COLUMN given_names SET NOT NULL`);
    await q.query(`ALTER TABLE applicants.applicants DROP COLUMN erased_at`);
  }
}
