import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763780000000 implements MigrationInterface {
  name = 'Init1763780000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE applicants.applicants (
        seq bigserial NOT NULL,
        id text PRIMARY KEY,
        org_id text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        family_name text NOT NULL,
        given_names text[] NOT NULL DEFAULT '{}',
        name_suffix text,
        email text,
        phone text,
        date_of_birth date,
        address jsonb,
        external_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX applicants_seq_uq ON applicants.applicants (seq)`);
    await q.query(`CREATE INDEX applicants_owner_seq_idx ON applicants.applicants (org_id, mode, seq DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE applicants.applicants`);
  }
}
