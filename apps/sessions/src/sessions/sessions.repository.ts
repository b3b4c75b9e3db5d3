import { Inject, Injectable } from '@nestjs/common';
import type { CheckOutcome, CheckType, EvidenceAvailability, ExpectedOutcome, Owner, Principal, SessionOutcome, SessionStatus } from '@verity/contracts';
import { randomAlphanumeric, type Mode } from '@verity/keys';
import { MicroBatch, Sql, type Queryable } from '@verity/platform';

export interface SessionRow {
  seq: string;
  id: string;
  org_id: string;
  mode: Mode;
  applicant_id: string;
  workflow_template_id: string;
  template_version: number;
  status: SessionStatus;
  outcome: SessionOutcome;
  expected_outcome: ExpectedOutcome | null;
  checks: Array<{ type: CheckType; outcome: CheckOutcome | null }>;
  /** The caller's object as sent (stored as `json`, so key order and number spelling are kept). */
  metadata: Record<string, unknown>;
  /** Platform-written keys (api-spec Session metadata rule 7), merged over the caller's on read. */
  platform_metadata: PlatformMetadata;
  idv: EvidenceAvailability | null;
  created_at: Date;
  updated_at: Date;
}

export interface PlatformMetadata {
  cancellationReason?: string;
  manualReviewReason?: string;
  erroredReason?: string;
  operatorNotes?: Array<{ note: string; created_at: string }>;
}

/** The email-log row of a new session's invitation: sent later (live) or only logged (test, `suppressed`). */
export interface NewEmail {
  template: string;
  subject: string;
  recipient: string;
  status: 'suppressed' | 'pending';
}

export interface NewSession {
  id: string;
  applicant_id: string;
  workflow_template_id: string;
  template_version: number;
  expected_outcome: ExpectedOutcome | null;
  checks: CheckType[];
  metadata: Record<string, unknown>;
  now: Date;
}

/** A change of status (with its outcome and platform-written keys) applied in one statement. */
export interface StatusChange {
  status: SessionStatus;
  outcome: SessionOutcome;
  platform?: Partial<PlatformMetadata>;
  checks?: Array<{ type: CheckType; outcome: CheckOutcome }>;
  idv?: EvidenceAvailability | null;
  decision_reason?: string;
  now: Date;
}

export interface JobRow {
  id: string;
  kind: 'test_run' | 'invite_email';
  session_id: string;
  principal: Principal;
  attempts: number;
}

/** Creates written by one statement at most; batches running at once (each holds a pooled connection). */
const CREATE_BATCH = 64;
const CREATE_BATCHES_IN_FLIGHT = 4;

interface PendingCreate {
  owner: Owner;
  s: NewSession;
  job: { kind: JobRow['kind']; principal: Principal } | null;
  email: NewEmail | null;
  deadline: Date;
}

const COLUMNS = `seq, id, org_id, mode, applicant_id, workflow_template_id, template_version, status, outcome,
  expected_outcome, checks, metadata, platform_metadata, idv, created_at, updated_at`;

/** Every query an API caller reaches is scoped by organization and mode: a row of another owner does not exist. */
@Injectable()
export class SessionsRepository {
  constructor(@Inject(Sql) readonly db: Sql) {}

  /**
   * Writes a new session together with its background job and its email-log row, atomically. This is the hot
   * path of the API: creates arriving together are written by one statement (one round trip and one commit
   * for the lot, prepared once per connection). Writes nothing for a create, and returns null for it, once
   * its `deadline` has passed by the database's clock when the statement runs.
   */
  create(
    owner: Owner,
    s: NewSession,
    job: { kind: JobRow['kind']; principal: Principal } | null,
    email: NewEmail | null,
    deadline: Date,
  ): Promise<SessionRow | null> {
    return this.creates.add({ owner, s, job, email, deadline });
  }

  // one create's failure must not fail the others written with it: a failed batch goes again one by one
  private readonly creates = new MicroBatch((batch: PendingCreate[]) => this.createMany(batch), CREATE_BATCH, CREATE_BATCHES_IN_FLIGHT, { retryAlone: true });

  private async createMany(batch: PendingCreate[]): Promise<Array<SessionRow | null>> {
    const col = <T>(f: (c: PendingCreate) => T) => batch.map(f);
    const rows = await this.db.prepared<SessionRow>(
      'sessions_create',
      `WITH r AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[], $9::text[],
                              $10::timestamptz[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::timestamptz[])
           AS r(id, org_id, mode, applicant_id, workflow_template_id, template_version, expected_outcome, checks, metadata,
                now, job_kind, principal, email_id, template, subject, recipient, email_status, deadline)
       ), s AS (
         INSERT INTO sessions.sessions
           (id, org_id, mode, applicant_id, workflow_template_id, template_version, status, expected_outcome, checks, metadata, created_at, updated_at)
         SELECT id, org_id, mode, applicant_id, workflow_template_id, template_version, 'pending', expected_outcome, checks::jsonb, metadata::json, now, now
           FROM r WHERE clock_timestamp() < r.deadline
         RETURNING ${COLUMNS}
       ), j AS (
         INSERT INTO sessions.jobs (kind, session_id, principal)
         SELECT r.job_kind, s.id, r.principal::jsonb FROM s JOIN r ON r.id = s.id WHERE r.job_kind IS NOT NULL
       ), e AS (
         INSERT INTO sessions.email_log (id, org_id, mode, session_id, template, subject, recipient, status)
         SELECT r.email_id, r.org_id, r.mode, s.id, r.template, r.subject, r.recipient, r.email_status FROM s JOIN r ON r.id = s.id WHERE r.email_id IS NOT NULL
       )
       SELECT * FROM s`,
      [
        col((c) => c.s.id),
        col((c) => c.owner.org_id),
        col((c) => c.owner.mode),
        col((c) => c.s.applicant_id),
        col((c) => c.s.workflow_template_id),
        col((c) => c.s.template_version),
        col((c) => c.s.expected_outcome),
        col((c) => JSON.stringify(c.s.checks.map((type) => ({ type, outcome: null })))),
        col((c) => JSON.stringify(c.s.metadata)),
        col((c) => c.s.now),
        col((c) => c.job?.kind ?? null),
        col((c) => (c.job ? JSON.stringify(c.job.principal) : null)),
        col((c) => (c.email ? `eml_${randomAlphanumeric(24)}` : null)),
        col((c) => c.email?.template ?? null),
        col((c) => c.email?.subject ?? null),
        col((c) => c.email?.recipient ?? null),
        col((c) => c.email?.status ?? null),
        col((c) => c.deadline),
      ],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return batch.map((c) => byId.get(c.s.id) ?? null);
  }

  async find(owner: Owner, id: string): Promise<SessionRow | null> {
    const rows = await this.db.rows<SessionRow>(`SELECT ${COLUMNS} FROM sessions.sessions WHERE id = $1 AND org_id = $2 AND mode = $3`, [
      id,
      owner.org_id,
      owner.mode,
    ]);
    return rows[0] ?? null;
  }

  /** The row, locked until the transaction ends, so that two actions on one session apply one after the other. */
  async lock(q: Queryable, owner: Owner, id: string): Promise<SessionRow | null> {
    const rows = await q.rows<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions.sessions WHERE id = $1 AND org_id = $2 AND mode = $3 FOR UPDATE`,
      [id, owner.org_id, owner.mode],
    );
    return rows[0] ?? null;
  }

  /** Newest first, `limit + 1` rows so the caller can tell whether another page exists. */
  async list(owner: Owner, after: bigint | null, limit: number, filters: { status?: string; applicant_id?: string }): Promise<SessionRow[]> {
    return this.db.rows<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions.sessions
        WHERE org_id = $1 AND mode = $2 AND ($3::bigint IS NULL OR seq < $3::bigint)
          AND ($4::text IS NULL OR status = $4) AND ($5::text IS NULL OR applicant_id = $5)
        ORDER BY seq DESC LIMIT $6`,
      [owner.org_id, owner.mode, after === null ? null : after.toString(), filters.status ?? null, filters.applicant_id ?? null, limit + 1],
    );
  }

  /**
   * Applies a change of status when the row is still in one of `from` (a background run loses to an operator
   * action that came first); null when it was not.
   */
  async changeStatus(q: Queryable, id: string, from: readonly SessionStatus[], c: StatusChange): Promise<SessionRow | null> {
    const rows = await q.rows<SessionRow>(
      `UPDATE sessions.sessions SET
         status = $3, outcome = $4, platform_metadata = platform_metadata || $5::jsonb,
         checks = COALESCE($6::jsonb, checks), idv = CASE WHEN $7 THEN $8::jsonb ELSE idv END,
         decision_reason = COALESCE($9, decision_reason), updated_at = $10
       WHERE id = $1 AND status = ANY($2::text[]) RETURNING ${COLUMNS}`,
      [
        id,
        from,
        c.status,
        c.outcome,
        JSON.stringify(c.platform ?? {}),
        c.checks ? JSON.stringify(c.checks) : null,
        c.idv !== undefined,
        c.idv ? JSON.stringify(c.idv) : null,
        c.decision_reason ?? null,
        c.now,
      ],
    );
    return rows[0] ?? null;
  }

  /** Appends one entry to `metadata.operatorNotes`. */
  async appendNote(q: Queryable, id: string, note: string, now: Date): Promise<SessionRow> {
    const rows = await q.rows<SessionRow>(
      `UPDATE sessions.sessions SET
         platform_metadata = jsonb_set(platform_metadata, '{operatorNotes}',
           COALESCE(platform_metadata->'operatorNotes', '[]'::jsonb) || jsonb_build_array(jsonb_build_object('note', $2::text, 'created_at', $3::text))),
         updated_at = $4
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, note, now.toISOString(), now],
    );
    return rows[0]!;
  }

  // --- background jobs (test runs, invitations) -------------------------------------------------------------

  /**
   * The next due job, row-locked for the rest of the transaction; other workers skip it. A worker that dies
   * releases the lock with its connection, so the job is due again at once.
   */
  async claimJob(q: Queryable): Promise<JobRow | null> {
    const rows = await q.rows<JobRow>(
      `SELECT id, kind, session_id, principal, attempts FROM sessions.jobs
        WHERE run_after <= now() ORDER BY run_after, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
    );
    return rows[0] ?? null;
  }

  /** Locks one job for the rest of the transaction; false when it is gone or another worker holds it. */
  async lockJob(q: Queryable, id: string): Promise<boolean> {
    return (await q.rows(`SELECT 1 FROM sessions.jobs WHERE id = $1 FOR UPDATE SKIP LOCKED`, [id])).length === 1;
  }

  async deleteJob(q: Queryable, id: string): Promise<void> {
    await q.rows(`DELETE FROM sessions.jobs WHERE id = $1`, [id]);
  }

  async postponeJob(id: string, delayMs: number): Promise<void> {
    await this.db.rows(`UPDATE sessions.jobs SET attempts = attempts + 1, run_after = now() + make_interval(secs => $2) WHERE id = $1`, [
      id,
      delayMs / 1000,
    ]);
  }

  /** The session of a job, whoever owns it (the job carries its owner's principal). */
  async findForJob(q: Queryable, id: string): Promise<SessionRow | null> {
    const rows = await q.rows<SessionRow>(`SELECT ${COLUMNS} FROM sessions.sessions WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  async insertRun(
    q: Queryable,
    r: {
      session_id: string;
      template_id: string;
      template_version: number;
      expected_outcome: ExpectedOutcome;
      checks: unknown;
      findings: unknown;
      credit_recording: string | null;
      screening: unknown;
      status: SessionStatus;
      outcome: SessionOutcome;
    },
  ): Promise<void> {
    await q.rows(
      `INSERT INTO sessions.runs
         (session_id, template_id, template_version, expected_outcome, checks, findings, credit_recording, screening, status, outcome)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        r.session_id,
        r.template_id,
        r.template_version,
        r.expected_outcome,
        JSON.stringify(r.checks),
        JSON.stringify(r.findings),
        r.credit_recording,
        JSON.stringify(r.screening),
        r.status,
        r.outcome,
      ],
    );
  }
}
