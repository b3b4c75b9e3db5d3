import { Inject, Injectable } from '@nestjs/common';
import type { CheckType, EvaluateReply, ExpectedOutcome, Idv, Owner, Principal, Session, SessionCheck, SessionOutcome, SessionStatus } from '@verity/contracts';
import { randomAlphanumeric } from '@verity/keys';
import { currentTraceparent, MicroBatch, Sql, unnestColumns, type Queryable, type WithDates } from '@verity/platform';
import type { OutboxEvent } from './timeline.js';

/** A finding of a run as `sessions.runs.findings` holds it (a watchlist hit's `evidence` in docs/watchlist.md). */
export interface StoredFinding {
  id: string;
  subjectType: string;
  severity: string;
  sourceAuthority: string;
  findingType: string;
  evidence: Record<string, unknown>;
}

export interface WatchlistDecisionRow {
  finding_id: string;
  outcome: 'cleared' | 'confirmed';
  reason: string;
  decided_by: string;
  decided_by_email: string | null;
  decided_at: Date;
}

/** A row of `sessions.sessions`: the session's own fields as on the wire, and what the table adds. */
export interface SessionRow
  extends WithDates<Pick<Session, 'id' | 'mode' | 'applicant_id' | 'workflow_template_id' | 'status' | 'outcome' | 'checks' | 'created_at' | 'updated_at'>, 'created_at' | 'updated_at'> {
  seq: string;
  org_id: string;
  template_version: number;
  expected_outcome: ExpectedOutcome | null;
  /** The caller's object as sent (stored as `json`, so key order and number spelling are kept). */
  metadata: Record<string, unknown>;
  /** Platform-written keys (docs/metadata.md), merged over the caller's on read. */
  platform_metadata: PlatformMetadata;
  idv: Idv | null;
  /** Live sessions: when the capture link stops working; null in test mode. */
  capture_expires_at: Date | null;
  capture_submitted_at: Date | null;
  capture_acquisition: 'camera' | 'upload' | null;
  capture_context: CaptureContext;
  /** The capture's images as evidence stored them (from `sessions.capture.image-stored.v1`): their sizes by artifact. */
  capture_images: Partial<Record<'front' | 'back' | 'selfie', { width: number; height: number }>>;
  /** The indexes of the liveness challenge's frames stored so far. */
  capture_frames: number[];
  /** The template's switches, pinned at create. */
  photo_upload: boolean;
  device_intelligence: boolean;
  /** When the applicant's personal data was erased (docs/privacy.md); from then on none is written to the row. */
  erased_at: Date | null;
}

/** What the applicant's browser and connection said during the capture (device intelligence). */
export interface CaptureContext {
  start?: { ip: string; user_agent: string | null; at: string };
  submit?: { ip: string; user_agent: string | null; at: string };
  device_id?: string | null;
  signals?: Record<string, unknown> | null;
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
  /** Live sessions: the capture link's secret hash and expiry. */
  capture: { secret_hash: string; expires_at: Date } | null;
  photo_upload: boolean;
  device_intelligence: boolean;
  now: Date;
}

/** A change of status (with its outcome and platform-written keys) applied in one statement. */
export interface StatusChange {
  status: SessionStatus;
  outcome: SessionOutcome;
  platform?: Partial<PlatformMetadata>;
  checks?: SessionCheck[];
  idv?: Idv | null;
  decision_reason?: string;
  now: Date;
}

/** The kinds of `sessions.jobs` (its `jobs_kind_check`). */
export const JOB_KINDS = ['test_run', 'live_run', 'invite_email'] as const;

export interface JobRow {
  id: string;
  kind: (typeof JOB_KINDS)[number];
  session_id: string;
  principal: Principal;
  attempts: number;
  /** The W3C `traceparent` of the request that queued it (tracing on), so that its run joins that trace. */
  trace_context: string | null;
}

/** Creates written by one statement at most; batches running at once (each holds a pooled connection). */
const CREATE_BATCH = 64;
const CREATE_BATCHES_IN_FLIGHT = 4;

/** The rows of a batched create: each session with its job, its email-log row and its deadline. */
const NEW_SESSIONS = unnestColumns({
  id: 'text',
  org_id: 'text',
  mode: 'text',
  applicant_id: 'text',
  workflow_template_id: 'text',
  template_version: 'int',
  expected_outcome: 'text',
  checks: 'text',
  metadata: 'text',
  now: 'timestamptz',
  job_kind: 'text',
  principal: 'text',
  email_id: 'text',
  template: 'text',
  subject: 'text',
  recipient: 'text',
  email_status: 'text',
  deadline: 'timestamptz',
  capture_secret_hash: 'text',
  capture_expires_at: 'timestamptz',
  photo_upload: 'boolean',
  device_intelligence: 'boolean',
  trace_context: 'text',
});

interface PendingCreate {
  owner: Owner;
  s: NewSession;
  job: { kind: JobRow['kind']; principal: Principal; trace: string | null } | null;
  email: NewEmail | null;
  deadline: Date;
}

/**
 * The metering of the sessions just written (CTE `s` of the create statement): each counts once per check of its
 * `checks` on the UTC day of its `created_at` (docs/sessions.md, "Usage and timeline (console)"). Part of the create statement,
 * so a create that writes nothing counts nothing. Grouped, so that one statement touches each counter once however
 * many of the batch's creates share it; in key order, so that batches committing side by side lock shared counters
 * in one order (no deadlock).
 */
const METER_CREATED = `INSERT INTO sessions.usage_daily (org_id, mode, day, "check", count)
         SELECT s.org_id, s.mode, (s.created_at AT TIME ZONE 'UTC')::date AS day, c.type, count(*)
           FROM s CROSS JOIN LATERAL (SELECT DISTINCT e->>'type' AS type FROM jsonb_array_elements(s.checks) e) c
          GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
         ON CONFLICT (org_id, mode, day, "check") DO UPDATE SET count = usage_daily.count + EXCLUDED.count`;

/** Every column of `SessionRow`, in a select list. */
export const SESSION_COLUMNS = `seq, id, org_id, mode, applicant_id, workflow_template_id, template_version, status, outcome,
  expected_outcome, checks, metadata, platform_metadata, idv, capture_expires_at, capture_submitted_at, capture_acquisition,
  capture_context, capture_images, capture_frames, photo_upload, device_intelligence, erased_at, created_at, updated_at`;

/** Every query an API caller reaches is scoped by organization and mode: a row of another owner does not exist. */
@Injectable()
export class SessionsRepository {
  constructor(@Inject(Sql) readonly db: Sql) {}

  /**
   * Writes a new session together with its background job and its email-log row, atomically. This is the hot
   * path of the API: creates arriving together are written by one statement (one round trip and one commit
   * for the lot, prepared once per connection). Writes nothing for a create, and returns null for it, once
   * its `deadline` has passed by the database's clock when the statement runs. The same statement counts each
   * session written in `sessions.usage_daily` (metering).
   */
  create(
    owner: Owner,
    s: NewSession,
    job: { kind: JobRow['kind']; principal: Principal } | null,
    email: NewEmail | null,
    deadline: Date,
  ): Promise<SessionRow | null> {
    // the job continues the request's trace (when tracing): it runs later, in another turn of the worker
    return this.creates.add({ owner, s, job: job && { ...job, trace: currentTraceparent() }, email, deadline });
  }

  // one create's failure must not fail the others written with it: a failed batch goes again one by one
  private readonly creates = new MicroBatch((batch: PendingCreate[]) => this.createMany(batch), CREATE_BATCH, CREATE_BATCHES_IN_FLIGHT, { retryAlone: true });

  private async createMany(batch: PendingCreate[]): Promise<Array<SessionRow | null>> {
    const rows = await this.db.prepared<SessionRow>(
      'sessions_create',
      `WITH r AS (
         SELECT * FROM ${NEW_SESSIONS.sql}
       ), s AS (
         INSERT INTO sessions.sessions
           (id, org_id, mode, applicant_id, workflow_template_id, template_version, status, expected_outcome, checks, metadata, created_at, updated_at,
            capture_secret_hash, capture_expires_at, photo_upload, device_intelligence)
         SELECT id, org_id, mode, applicant_id, workflow_template_id, template_version, 'pending', expected_outcome, checks::jsonb, metadata::json, now, now,
                capture_secret_hash, capture_expires_at, photo_upload, device_intelligence
           FROM r WHERE clock_timestamp() < r.deadline
         RETURNING ${SESSION_COLUMNS}
       ), j AS (
         INSERT INTO sessions.jobs (kind, session_id, principal, trace_context)
         SELECT r.job_kind, s.id, r.principal::jsonb, r.trace_context FROM s JOIN r ON r.id = s.id WHERE r.job_kind IS NOT NULL
       ), e AS (
         INSERT INTO sessions.email_log (id, org_id, mode, session_id, template, subject, recipient, status)
         SELECT r.email_id, r.org_id, r.mode, s.id, r.template, r.subject, r.recipient, r.email_status FROM s JOIN r ON r.id = s.id WHERE r.email_id IS NOT NULL
       ), m AS (
         ${METER_CREATED}
       )
       SELECT * FROM s`,
      NEW_SESSIONS.params(
        batch.map(({ owner, s, job, email, deadline }) => ({
          id: s.id,
          org_id: owner.org_id,
          mode: owner.mode,
          applicant_id: s.applicant_id,
          workflow_template_id: s.workflow_template_id,
          template_version: s.template_version,
          expected_outcome: s.expected_outcome,
          checks: JSON.stringify(s.checks.map((type): SessionCheck => ({ type, outcome: null, reasons: [], score: null }))),
          metadata: JSON.stringify(s.metadata),
          now: s.now,
          job_kind: job?.kind ?? null,
          principal: job ? JSON.stringify(job.principal) : null,
          email_id: email ? `eml_${randomAlphanumeric(24)}` : null,
          template: email?.template ?? null,
          subject: email?.subject ?? null,
          recipient: email?.recipient ?? null,
          email_status: email?.status ?? null,
          deadline,
          capture_secret_hash: s.capture?.secret_hash ?? null,
          capture_expires_at: s.capture?.expires_at ?? null,
          photo_upload: s.photo_upload,
          device_intelligence: s.device_intelligence,
          trace_context: job?.trace ?? null,
        })),
      ),
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return batch.map((c) => byId.get(c.s.id) ?? null);
  }

  async find(owner: Owner, id: string): Promise<SessionRow | null> {
    const rows = await this.db.rows<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions.sessions WHERE id = $1 AND org_id = $2 AND mode = $3`, [
      id,
      owner.org_id,
      owner.mode,
    ]);
    return rows[0] ?? null;
  }

  /** The row, locked until the transaction ends, so that two actions on one session apply one after the other. */
  async lock(q: Queryable, owner: Owner, id: string): Promise<SessionRow | null> {
    const rows = await q.rows<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions.sessions WHERE id = $1 AND org_id = $2 AND mode = $3 FOR UPDATE`,
      [id, owner.org_id, owner.mode],
    );
    return rows[0] ?? null;
  }

  /** Newest first, `limit + 1` rows so the caller can tell whether another page exists. */
  async list(owner: Owner, after: bigint | null, limit: number, filters: { status?: string; applicant_id?: string }): Promise<SessionRow[]> {
    return this.db.rows<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions.sessions
        WHERE org_id = $1 AND mode = $2 AND ($3::bigint IS NULL OR seq < $3::bigint)
          AND ($4::text IS NULL OR status = $4) AND ($5::text IS NULL OR applicant_id = $5)
        ORDER BY seq DESC LIMIT $6`,
      [owner.org_id, owner.mode, after === null ? null : after.toString(), filters.status ?? null, filters.applicant_id ?? null, limit + 1],
    );
  }

  /**
   * The console's list: newest first, `limit + 1` rows, filtered by status, a check (`[{ type, outcome? }]`, matched by
   * containment), creation between two instants and a set of applicants (null: any).
   */
  async consoleList(owner: Owner, after: bigint | null, limit: number, f: ConsoleListFilters): Promise<SessionRow[]> {
    return this.db.rows<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions.sessions
        WHERE org_id = $1 AND mode = $2 AND ($3::bigint IS NULL OR seq < $3::bigint)
          AND ($4::text IS NULL OR status = $4) AND ($5::jsonb IS NULL OR checks @> $5::jsonb)
          AND ($6::timestamptz IS NULL OR created_at >= $6) AND ($7::timestamptz IS NULL OR created_at < $7)
          AND ($8::text[] IS NULL OR applicant_id = ANY($8::text[]))
        ORDER BY seq DESC LIMIT $9`,
      [
        owner.org_id,
        owner.mode,
        after === null ? null : after.toString(),
        f.status,
        f.check ? JSON.stringify([f.check]) : null,
        f.from,
        f.before,
        f.applicant_ids,
        limit + 1,
      ],
    );
  }

  /**
   * Applies a change of status when the row is still in one of `from` (a background run loses to an operator
   * action that came first); null when it was not. An erased session takes the status, never the personal
   * fields (reasons, what was read from the document).
   */
  async changeStatus(q: Queryable, id: string, from: readonly SessionStatus[], c: StatusChange): Promise<SessionRow | null> {
    const rows = await q.rows<SessionRow>(
      `UPDATE sessions.sessions SET
         status = $3, outcome = $4,
         platform_metadata = CASE WHEN erased_at IS NULL THEN platform_metadata || $5::jsonb ELSE platform_metadata END,
         checks = COALESCE($6::jsonb, checks), idv = CASE WHEN $7 AND erased_at IS NULL THEN $8::jsonb ELSE idv END,
         decision_reason = CASE WHEN erased_at IS NULL THEN COALESCE($9, decision_reason) ELSE decision_reason END, updated_at = $10
       WHERE id = $1 AND status = ANY($2::text[]) RETURNING ${SESSION_COLUMNS}`,
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

  /**
   * Appends one entry to `metadata.operatorNotes`, unless the notes would then weigh more than `maxBytes` as stored
   * JSON or the session is erased: null then, and nothing is written.
   */
  async appendNote(q: Queryable, id: string, note: string, now: Date, maxBytes: number): Promise<SessionRow | null> {
    const rows = await q.rows<SessionRow>(
      `UPDATE sessions.sessions SET
         platform_metadata = jsonb_set(platform_metadata, '{operatorNotes}',
           COALESCE(platform_metadata->'operatorNotes', '[]'::jsonb) || jsonb_build_array(jsonb_build_object('note', $2::text, 'created_at', $3::text))),
         updated_at = $4
       WHERE id = $1 AND erased_at IS NULL
         AND octet_length((COALESCE(platform_metadata->'operatorNotes', '[]'::jsonb)
               || jsonb_build_array(jsonb_build_object('note', $2::text, 'created_at', $3::text)))::text) <= $5
       RETURNING ${SESSION_COLUMNS}`,
      [id, note, now.toISOString(), now, maxBytes],
    );
    return rows[0] ?? null;
  }

  /**
   * The domain events of a session recorded in the outbox, in the order they were written (`outbox_session_idx`):
   * the type, the status carried and its instant. Whoever owns the session: the caller has scoped it.
   */
  async events(sessionId: string): Promise<OutboxEvent[]> {
    return this.db.rows<OutboxEvent>(
      `SELECT type, event->'data'->>'status' AS status, COALESCE(event->'data'->>'occurredAt', event->>'timestamp') AS at
         FROM sessions.outbox WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
  }

  /** The findings of the session's last run (empty without a run, and once its applicant is erased). */
  async lastFindings(q: Queryable, sessionId: string): Promise<StoredFinding[]> {
    const [r] = await q.rows<{ findings: StoredFinding[] | null }>(`SELECT findings FROM sessions.runs WHERE session_id = $1 ORDER BY id DESC LIMIT 1`, [sessionId]);
    return Array.isArray(r?.findings) ? r.findings : [];
  }

  /** The reviewers' decisions on the session's watchlist hits, oldest first. */
  async watchlistDecisions(q: Queryable, sessionId: string): Promise<WatchlistDecisionRow[]> {
    return q.rows<WatchlistDecisionRow>(
      `SELECT finding_id, outcome, reason, decided_by, decided_by_email, decided_at FROM sessions.watchlist_decisions WHERE session_id = $1 ORDER BY decided_at, finding_id`,
      [sessionId],
    );
  }

  /** Stores a decision on one hit; null when the hit already has one (nothing changed). */
  async insertWatchlistDecision(
    q: Queryable,
    sessionId: string,
    d: { finding_id: string; outcome: 'cleared' | 'confirmed'; reason: string; decided_by: string; decided_by_email: string | null },
  ): Promise<WatchlistDecisionRow | null> {
    const rows = await q.rows<WatchlistDecisionRow>(
      `INSERT INTO sessions.watchlist_decisions (session_id, finding_id, outcome, reason, decided_by, decided_by_email)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (session_id, finding_id) DO NOTHING
       RETURNING finding_id, outcome, reason, decided_by, decided_by_email, decided_at`,
      [sessionId, d.finding_id, d.outcome, d.reason, d.decided_by, d.decided_by_email],
    );
    return rows[0] ?? null;
  }

  /** The screening reply of the session's last run: undefined without a run, null for a run without screening. */
  async lastScreening(sessionId: string): Promise<EvaluateReply | null | undefined> {
    const [r] = await this.db.rows<{ screening: EvaluateReply | null }>(`SELECT screening FROM sessions.runs WHERE session_id = $1 ORDER BY id DESC LIMIT 1`, [sessionId]);
    return r === undefined ? undefined : r.screening;
  }

  // --- background jobs (runs/session-jobs.ts claims and settles them) ---------------------------------------

  /** The session of a job, whoever owns it (the job carries its owner's principal). */
  async findForJob(q: Queryable, id: string): Promise<SessionRow | null> {
    const rows = await q.rows<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions.sessions WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  async insertRun(
    q: Queryable,
    r: {
      session_id: string;
      template_id: string;
      template_version: number;
      expected_outcome: ExpectedOutcome | null;
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

  // --- the capture flow (live sessions) ---------------------------------------------------------------------

  /** The session a client secret's hash belongs to, whoever owns it. */
  async findByCaptureHash(hash: string): Promise<SessionRow | null> {
    const rows = await this.db.rows<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions.sessions WHERE capture_secret_hash = $1`, [hash]);
    return rows[0] ?? null;
  }

  /**
   * Writes down what the capture saw: `context` merged over what is there (a key already set is kept unless
   * `replace`). Nothing on an erased session.
   */
  async noteCapture(q: Queryable, id: string, context: CaptureContext, replace: boolean): Promise<void> {
    await q.rows(
      `UPDATE sessions.sessions SET capture_context = CASE WHEN $3 THEN capture_context || $2::jsonb ELSE $2::jsonb || capture_context END
        WHERE id = $1 AND erased_at IS NULL`,
      [id, JSON.stringify(context), replace],
    );
  }

  /** Records an image of the capture (its size) or a frame of its challenge (its index), as evidence stored it. */
  async noteStored(q: Queryable, id: string, stored: { artifact: string; width: number; height: number } | { frame: number }): Promise<SessionRow> {
    const rows = await q.rows<SessionRow>(
      'frame' in stored
        ? `UPDATE sessions.sessions SET capture_frames = CASE WHEN $2 = ANY(capture_frames) THEN capture_frames ELSE array_append(capture_frames, $2) END
            WHERE id = $1 RETURNING ${SESSION_COLUMNS}`
        : `UPDATE sessions.sessions SET capture_images = capture_images || jsonb_build_object($2::text, jsonb_build_object('width', $3::int, 'height', $4::int))
            WHERE id = $1 RETURNING ${SESSION_COLUMNS}`,
      'frame' in stored ? [id, stored.frame] : [id, stored.artifact, stored.width, stored.height],
    );
    return rows[0]!;
  }

  /** Marks the capture submitted (the link is used from now on) with its acquisition. */
  async submitCapture(q: Queryable, id: string, acquisition: 'camera' | 'upload', now: Date): Promise<SessionRow> {
    const rows = await q.rows<SessionRow>(
      `UPDATE sessions.sessions SET capture_submitted_at = $2, capture_acquisition = $3, updated_at = $2 WHERE id = $1 RETURNING ${SESSION_COLUMNS}`,
      [id, now, acquisition],
    );
    return rows[0]!;
  }

  /** Queues a background job of the session in the caller's transaction. */
  async addJob(q: Queryable, kind: JobRow['kind'], sessionId: string, principal: Principal): Promise<void> {
    await q.rows(`INSERT INTO sessions.jobs (kind, session_id, principal, trace_context) VALUES ($1, $2, $3, $4)`, [kind, sessionId, JSON.stringify(principal), currentTraceparent()]);
  }

  /**
   * Sessions whose capture link ran out while they waited for the applicant (`pending` or `in_progress`, not
   * submitted) become `expired`; a submitted capture is never expired under its run. At most `limit` at a time.
   */
  async expireDue(limit: number): Promise<number> {
    const rows = await this.db.rows(
      `UPDATE sessions.sessions SET status = 'expired', updated_at = now()
        WHERE id IN (SELECT id FROM sessions.sessions
                      WHERE status IN ('pending', 'in_progress') AND capture_submitted_at IS NULL AND capture_expires_at <= now()
                      ORDER BY capture_expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      [limit],
    );
    return rows.length;
  }

  /** A device seen on a session, from an address; nothing on an erased session. */
  async noteDevice(q: Queryable, owner: Owner, deviceId: string, sessionId: string, ip: string): Promise<void> {
    await q.rows(
      `INSERT INTO sessions.devices (org_id, mode, device_id, session_id, ip)
       SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM sessions.sessions WHERE id = $4 AND erased_at IS NULL)
       ON CONFLICT DO NOTHING`,
      [owner.org_id, owner.mode, deviceId, sessionId, ip],
    );
  }

  /** The owner's sessions a device started, and the distinct addresses it came from. */
  async deviceHistory(q: Queryable, owner: Owner, deviceId: string): Promise<{ sessions: number; ips: number }> {
    const [r] = await q.rows<{ sessions: string; ips: string }>(
      `SELECT count(DISTINCT session_id) AS sessions, count(DISTINCT ip) AS ips FROM sessions.devices WHERE org_id = $1 AND mode = $2 AND device_id = $3`,
      [owner.org_id, owner.mode, deviceId],
    );
    return { sessions: Number(r?.sessions ?? 0), ips: Number(r?.ips ?? 0) };
  }

  /**
   * The verifications linked to `sessionId` through a shared device or document number, walked breadth first up to
   * `limit` of them (this one included); `truncated` when the walk stopped at the limit.
   */
  async ring(q: Queryable, owner: Owner, sessionId: string, limit: number): Promise<{ size: number; truncated: boolean }> {
    const seen = new Set([sessionId]);
    let frontier = [sessionId];
    while (frontier.length > 0 && seen.size <= limit) {
      const rows = await q.rows<{ session_id: string }>(
        `SELECT d2.session_id FROM sessions.devices d1
           JOIN sessions.devices d2 ON d2.org_id = d1.org_id AND d2.mode = d1.mode AND d2.device_id = d1.device_id
          WHERE d1.org_id = $1 AND d1.mode = $2 AND d1.session_id = ANY($3::text[])
         UNION
         SELECT n2.session_id FROM sessions.document_numbers n1
           JOIN sessions.document_numbers n2 ON n2.org_id = n1.org_id AND n2.mode = n1.mode AND n2.number_hash = n1.number_hash
          WHERE n1.org_id = $1 AND n1.mode = $2 AND n1.session_id = ANY($3::text[])
         LIMIT $4`,
        [owner.org_id, owner.mode, frontier, limit + 1],
      );
      frontier = rows.map((r) => r.session_id).filter((id) => !seen.has(id));
      for (const id of frontier) seen.add(id);
    }
    return { size: Math.min(seen.size, limit), truncated: seen.size > limit };
  }

  /**
   * Records a document number's keyed hash for a session (not for an erased one); answers how many other applicants
   * of the owner showed it.
   */
  async noteDocumentNumber(q: Queryable, owner: Owner, hash: string, applicantId: string, sessionId: string): Promise<number> {
    await q.rows(
      `INSERT INTO sessions.document_numbers (org_id, mode, number_hash, applicant_id, session_id)
       SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM sessions.sessions WHERE id = $5 AND erased_at IS NULL)
       ON CONFLICT DO NOTHING`,
      [owner.org_id, owner.mode, hash, applicantId, sessionId],
    );
    const [r] = await q.rows<{ n: string }>(
      `SELECT count(DISTINCT applicant_id) AS n FROM sessions.document_numbers WHERE org_id = $1 AND mode = $2 AND number_hash = $3 AND applicant_id <> $4`,
      [owner.org_id, owner.mode, hash, applicantId],
    );
    return Number(r?.n ?? 0);
  }

  /**
   * Records the run's selfie fingerprint (16 hex digits) and answers the organization's earlier sessions of another
   * applicant whose selfie is within `maxBits` bits of it, newest first (at most 5): the same picture sent again.
   */
  async noteSelfie(q: Queryable, owner: Owner, fingerprint: string, applicantId: string, sessionId: string, maxBits: number): Promise<string[]> {
    await q.rows(
      `INSERT INTO sessions.selfie_fingerprints (org_id, mode, fingerprint, applicant_id, session_id)
       SELECT $1, $2, ('x' || $3)::bit(64), $4, $5 WHERE EXISTS (SELECT 1 FROM sessions.sessions WHERE id = $5 AND erased_at IS NULL)
       ON CONFLICT (org_id, mode, session_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint`,
      [owner.org_id, owner.mode, fingerprint, applicantId, sessionId],
    );
    const rows = await q.rows<{ session_id: string }>(
      `SELECT session_id FROM sessions.selfie_fingerprints
        WHERE org_id = $1 AND mode = $2 AND applicant_id <> $4 AND session_id <> $5
          AND bit_count(fingerprint # ('x' || $3)::bit(64)) <= $6
        ORDER BY created_at DESC LIMIT 5`,
      [owner.org_id, owner.mode, fingerprint, applicantId, sessionId, maxBits],
    );
    return rows.map((r) => r.session_id);
  }

  /**
   * A run that lost its session to an erasure committed meanwhile: drops the document number and selfie fingerprint
   * it recorded, which the erasure could not see yet. Nothing when the session is not erased.
   */
  async dropRunOfErased(q: Queryable, sessionId: string): Promise<void> {
    for (const table of ['document_numbers', 'selfie_fingerprints']) {
      await q.rows(
        `DELETE FROM sessions.${table} WHERE session_id = $1 AND EXISTS (SELECT 1 FROM sessions.sessions WHERE id = $1 AND erased_at IS NOT NULL)`,
        [sessionId],
      );
    }
  }
}

export interface ConsoleListFilters {
  status: string | null;
  check: { type: string; outcome?: string } | null;
  from: Date | null;
  before: Date | null;
  applicant_ids: string[] | null;
}
