import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763790000000 implements MigrationInterface {
  name = 'Init1763790000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sessions.sessions (
        seq bigserial NOT NULL,
        id text PRIMARY KEY,
        org_id text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        applicant_id text NOT NULL,
        workflow_template_id text NOT NULL,
        template_version integer NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed', 'manual_review', 'cancelled', 'expired', 'skipped', 'errored')),
        outcome text CHECK (outcome IN ('approved', 'declined')),
        expected_outcome text CHECK (expected_outcome IN ('pass', 'review', 'fail', 'doc_quality')),
        checks jsonb NOT NULL,
        metadata json NOT NULL,
        platform_metadata jsonb NOT NULL DEFAULT '{}',
        idv jsonb,
        decision_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((mode = 'test') = (expected_outcome IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX sessions_seq_uq ON sessions.sessions (seq)`);
    await q.query(`CREATE INDEX sessions_owner_seq_idx ON sessions.sessions (org_id, mode, seq DESC)`);
    await q.query(`CREATE INDEX sessions_owner_status_seq_idx ON sessions.sessions (org_id, mode, status, seq DESC)`);
    await q.query(`CREATE INDEX sessions_owner_applicant_seq_idx ON sessions.sessions (org_id, mode, applicant_id, seq DESC)`);

    await q.query(`
      CREATE TABLE sessions.runs (
        id bigserial PRIMARY KEY,
        session_id text NOT NULL REFERENCES sessions.sessions (id),
        template_id text NOT NULL,
        template_version integer NOT NULL,
        expected_outcome text NOT NULL,
        checks jsonb NOT NULL,
        findings jsonb NOT NULL,
        credit_recording text,
        screening jsonb NOT NULL,
        status text NOT NULL,
        outcome text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX runs_session_idx ON sessions.runs (session_id)`);

    await q.query(`
      CREATE TABLE sessions.jobs (
        id bigserial PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('test_run', 'invite_email')),
        session_id text NOT NULL REFERENCES sessions.sessions (id),
        principal jsonb NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        run_after timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX jobs_due_idx ON sessions.jobs (run_after, id)`);

    await q.query(`
      CREATE TABLE sessions.outbox (
        seq bigserial PRIMARY KEY,
        event_id text NOT NULL,
        session_id text NOT NULL,
        type text NOT NULL,
        event jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        relayed_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX outbox_event_id_uq ON sessions.outbox (event_id)`);
    await q.query(`CREATE INDEX outbox_unrelayed_idx ON sessions.outbox (seq) WHERE relayed_at IS NULL`);
    await q.query(`CREATE INDEX outbox_session_idx ON sessions.outbox (session_id)`);

    await q.query(`
      CREATE TABLE sessions.email_log (
        seq bigserial NOT NULL,
        id text PRIMARY KEY,
        org_id text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        session_id text NOT NULL REFERENCES sessions.sessions (id),
        template text NOT NULL,
        subject text NOT NULL,
        recipient text NOT NULL,
        status text NOT NULL CHECK (status IN ('suppressed', 'pending', 'sent', 'failed', 'skipped')),
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX email_log_seq_uq ON sessions.email_log (seq)`);
    await q.query(`CREATE INDEX email_log_owner_seq_idx ON sessions.email_log (org_id, seq DESC)`);
    await q.query(`CREATE INDEX email_log_session_idx ON sessions.email_log (session_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sessions.email_log, sessions.outbox, sessions.jobs, sessions.runs, sessions.sessions`);
  }
}
