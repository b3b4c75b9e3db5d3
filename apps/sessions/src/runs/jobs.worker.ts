import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { SUBJECTS, type Applicant, type CheckType, type EvaluationContextWire, type ExpectedOutcome, type Idv, type Principal } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { newId } from '@verity/keys';
import { CONFIG, inStoredTrace, LOGGER, Poller, RpcClient, Sql, type Logger, type Queryable } from '@verity/platform';
import type { SessionsConfig } from '../config.js';
import { EmailLogRepository } from '../emails/email-log.repository.js';
import { INVITE_TEMPLATE, inviteMessage, inviteMessageId } from '../emails/invite.js';
import { Mailer } from '../emails/mailer.js';
import { Outbox } from '../events/outbox.js';
import { SessionsRepository, type JobRow, type SessionRow } from '../sessions/sessions.repository.js';
import { captureLink, type CaptureLinks } from '../sessions/capture-link.js';
import { LiveRun } from './live-run.js';
import { CREDIT_RECORDINGS, restingOf, syntheticChecks, syntheticFindings, syntheticIdv, syntheticWatchlist, type CheckResult, type Resting } from './synthetic.js';

/** Jobs run at once side by side per process; each holds one database connection while it runs. */
const CONCURRENCY = 2;
/** A job failing for a passing reason (a service not answering) is retried with these delays, then given up. */
export const RETRY_DELAYS_MS = [200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000];
/** A live run is tried three times (docs/capture.md), then its session is `errored`. */
export const LIVE_RUN_RETRY_DELAYS_MS = [2000, 10_000];
/** Expired capture links settled per sweep (every `JOBS_POLL_MS`). */
const EXPIRY_BATCH = 500;
const RPC_TIMEOUT_MS = 4000;
/** What a live run's transaction may sit idle beyond its read timeout: the other calls of the run. */
const LIVE_RUN_IDLE_SLACK_MS = 30_000;

const STALLED_REASON = 'The verification stalled: a service it depends on did not answer.';

/**
 * Background work of sessions, kept in the `jobs` table so that nothing is lost when the process dies:
 * the synthetic run of a test session and the invitation email of a live one. A job is written in the same
 * transaction as its session; `CONCURRENCY` worker slots pick due jobs at once after create, at start and every
 * `JOBS_POLL_MS`. A job runs inside a transaction that row-locks it: a worker that dies releases it with its
 * connection, so another (or the restarted process) picks it up immediately, and its result commits
 * together with the job's deletion, so it takes effect once. Expired capture links are settled on the same tick.
 */
@Injectable()
export class JobsWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly jobs: Poller;
  private readonly expiry: Poller;

  constructor(
    @Inject(Sql) private readonly db: Sql,
    private readonly repo: SessionsRepository,
    private readonly emails: EmailLogRepository,
    private readonly outbox: Outbox,
    private readonly mailer: Mailer,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(CONFIG) private readonly cfg: SessionsConfig,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly live: LiveRun,
  ) {
    this.links = { baseUrl: cfg.CAPTURE_BASE_URL, secretKey: cfg.CAPTURE_SECRET_KEY };
    this.jobs = new Poller(() => this.work(), cfg.JOBS_POLL_MS, (err) => log.warn({ err }, 'jobs worker failed; retrying on the next tick'), CONCURRENCY);
    this.expiry = new Poller(() => this.expire(), cfg.JOBS_POLL_MS, (err) => log.warn({ err }, 'expiring capture links failed; retrying on the next tick'));
  }

  private readonly links: CaptureLinks;

  onApplicationBootstrap(): void {
    // unfinished jobs of a previous process first
    this.jobs.start();
    this.expiry.start(this.cfg.JOBS_POLL_MS);
  }

  /** Live sessions whose link ran out before their applicant submitted: `expired` (a reserved event, not delivered). */
  async expire(): Promise<void> {
    while (!this.expiry.stopping && (await this.repo.expireDue(EXPIRY_BATCH)) === EXPIRY_BATCH);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([this.jobs.stop(), this.expiry.stop()]);
  }

  /**
   * Fills the free worker slots; each slot works until no job is due. A kick while every slot is busy makes one
   * look once more when it ends, so a job committed just now is not left for the next tick.
   */
  kick(): void {
    this.jobs.kick();
  }

  /** One slot's pass: runs due jobs until none is left. */
  private async work(): Promise<void> {
    while (!this.jobs.stopping && (await this.runNext()));
  }

  /** Runs one due job; false when none is due. */
  async runNext(): Promise<boolean> {
    const state: { failed?: { job: JobRow; error: unknown }; emitted: boolean; invite?: Invitation } = { emitted: false };
    const claimed = await this.db
      .tx(async (q) => {
        const job = await this.repo.claimJob(q);
        if (!job) return false;
        // a live run holds its transaction while the reader works, up to LIVE_READ_TIMEOUT
        if (job.kind === 'live_run') await this.repo.allowIdleTransaction(q, this.cfg.LIVE_READ_TIMEOUT + LIVE_RUN_IDLE_SLACK_MS);
        try {
          if (job.kind === 'invite_email') {
            // an invitation is sent after this commits, never inside it: the job stays, leased, until it is settled
            state.invite = (await this.prepareInvite(q, job, false)) ?? undefined;
            if (state.invite) await this.repo.leaseJob(q, job.id, this.inviteLeaseMs);
            else await this.repo.deleteJob(q, job.id);
            return true;
          }
          state.emitted = await this.perform(q, job, null);
          await this.repo.deleteJob(q, job.id);
        } catch (error) {
          state.failed = { job, error };
          throw error; // roll back whatever the job wrote
        }
        return true;
      })
      .catch((e: unknown) => {
        if (state.failed) return true;
        throw e;
      });
    if (state.failed) await this.fail(state.failed);
    else if (state.invite) await this.sendInvite(state.invite);
    else if (state.emitted) this.outbox.kick();
    return claimed;
  }

  /**
   * A failed job: a passing failure is retried later; a permanent one, or the last attempt, settles the job
   * for good (the test run errored, the invitation failed).
   */
  private async fail({ job, error }: { job: JobRow; error: unknown }): Promise<void> {
    const passing = !(error instanceof DomainError) || error.code === 'service_unavailable' || error.code === 'internal_error';
    const delay = (job.kind === 'live_run' ? LIVE_RUN_RETRY_DELAYS_MS : RETRY_DELAYS_MS)[job.attempts];
    if (passing && delay !== undefined) {
      this.log.warn({ err: error, job: job.id, kind: job.kind, attempt: job.attempts + 1 }, 'job failed; will retry');
      await this.repo.postponeJob(job.id, delay);
      return;
    }
    this.log.error({ err: error, job: job.id, kind: job.kind }, 'job given up');
    const reason = passing ? STALLED_REASON : `The verification could not run: ${(error as DomainError).message}`;
    let emitted = false;
    await this.db.tx(async (q) => {
      if (!(await this.repo.lockJob(q, job.id))) return; // gone, or another worker has it
      emitted = await this.perform(q, job, reason);
      await this.repo.deleteJob(q, job.id);
    });
    if (emitted) this.outbox.kick();
  }

  /** Does the job's work in `q`; with `givenUp` set, settles it as failed instead. True when an event was written. */
  private async perform(q: Queryable, job: JobRow, givenUp: string | null): Promise<boolean> {
    const session = await this.repo.findForJob(q, job.session_id);
    if (!session) return false;
    if (job.kind === 'invite_email') {
      await this.prepareInvite(q, job, givenUp !== null);
      return false;
    }
    return inStoredTrace(job.trace_context, `job ${job.kind}`, { 'verity.job.kind': job.kind }, () =>
      job.kind === 'live_run' ? this.liveRun(q, session, job.principal, givenUp) : this.testRun(q, session, job.principal, givenUp),
    );
  }

  /**
   * The synthetic run of a test session (docs/sessions.md): check outcomes from the expected outcome, findings,
   * the credit-history recording, then screening of the pinned template version over NATS. The resting
   * status, the run record (template version, findings, rule trace) and the event commit together. A session
   * an operator already moved on (cancelled, sent to review) keeps its status: the run is dropped.
   */
  private async testRun(q: Queryable, s: SessionRow, principal: Principal, givenUp: string | null): Promise<boolean> {
    if (s.status !== 'pending' && s.status !== 'in_progress') return false;
    const expected = s.expected_outcome ?? 'pass';
    const types = s.checks.map((c) => c.type);
    const results = syntheticChecks(expected, types);
    let resting: Resting;
    let screening: unknown;
    const findings = syntheticFindings(s.id, results);
    // what the identity check captured (docs/sessions.md); a run given up captured nothing
    const idv = givenUp === null ? syntheticIdv(expected, types) : null;
    if (givenUp !== null) {
      resting = { status: 'errored', outcome: null, reason: givenUp };
      screening = null;
    } else {
      const opts = { principal, requestId: newId('request'), timeoutMs: RPC_TIMEOUT_MS };
      // The synthetic artifacts are stored before the resting status commits, so a client that sees the
      // status can fetch the images. The call is idempotent: a run retried after a failure stores nothing twice.
      const stored = idv
        ? this.rpc.call(SUBJECTS.evidenceStoreSynthetic, { session_id: s.id, capture_acquisition: idv.capture_acquisition, artifacts: idv.available_images }, opts)
        : null;
      const evaluated = this.rpc
        .call(SUBJECTS.applicantsGet, { id: s.applicant_id }, opts)
        .then((applicant) =>
          this.rpc.call(
            SUBJECTS.screeningEvaluate,
            { template_id: s.workflow_template_id, version: s.template_version, context: evaluationContext(applicant, results, findings) },
            opts,
          ),
        );
      // side by side: the job holds its connection and row lock for as short a time as possible
      const [reply] = await Promise.all([evaluated, stored]);
      resting = restingOf(results, reply);
      screening = reply;
    }
    return this.rest(q, s, resting, results, idv, {
      expected_outcome: expected,
      findings,
      credit_recording: types.includes('credit_history') ? CREDIT_RECORDINGS[expected].recording : null,
      screening,
    });
  }

  /**
   * The end of a run, test or live: the session moves to its resting status (pending → in_progress → resting,
   * two system transitions of the table committed as one), the run is recorded and its event written, all in
   * `q`. False when the session had moved on meanwhile (nothing written).
   */
  private async rest(
    q: Queryable,
    s: SessionRow,
    resting: Resting,
    checks: CheckResult[],
    idv: Idv | null,
    run: { expected_outcome: ExpectedOutcome | null; findings: unknown; credit_recording: string | null; screening: unknown },
  ): Promise<boolean> {
    const now = new Date();
    const updated = await this.repo.changeStatus(q, s.id, ['pending', 'in_progress'], {
      status: resting.status,
      outcome: resting.outcome,
      checks,
      idv,
      platform: resting.status === 'errored' ? { erroredReason: resting.reason } : {},
      now,
    });
    if (!updated) return false;
    await this.repo.insertRun(q, {
      session_id: s.id,
      template_id: s.workflow_template_id,
      template_version: s.template_version,
      ...run,
      checks,
      status: updated.status,
      outcome: updated.outcome,
    });
    return this.outbox.add(q, updated, now);
  }

  /**
   * The live run of a submitted capture (docs/capture.md): the region's reader judges the identity checks and stores
   * the evidence, provider checks end `error`, screening runs with the document's names; the resting status, the
   * run record and the event commit together, exactly as a test run's. A run given up after three tries ends the
   * session `errored` with `metadata.erroredReason`.
   */
  private async liveRun(q: Queryable, s: SessionRow, principal: Principal, givenUp: string | null): Promise<boolean> {
    if (s.status !== 'pending' && s.status !== 'in_progress') return false;
    if (givenUp !== null) {
      const now = new Date();
      const updated = await this.repo.changeStatus(q, s.id, ['pending', 'in_progress'], { status: 'errored', outcome: null, platform: { erroredReason: givenUp }, now });
      return updated ? this.outbox.add(q, updated, now) : false;
    }
    const found = await this.live.findings(q, s, principal);
    const reply = await this.rpc.call(
      SUBJECTS.screeningEvaluate,
      { template_id: s.workflow_template_id, version: s.template_version, context: found.context },
      { principal, requestId: newId('request'), timeoutMs: RPC_TIMEOUT_MS },
    );
    const emitted = await this.rest(q, s, restingOf(found.checks, reply), found.checks, found.idv, { expected_outcome: null, findings: found.findings, credit_recording: null, screening: reply });
    // the session's applicant may have been erased while this run was in flight: what it recorded of the document goes too
    await this.repo.dropRunOfErased(q, s.id);
    return emitted;
  }

  /**
   * The invitation of a live session, while it still waits for the applicant: settles it in `q` when there is
   * nothing to send (given up, the session moved on, no address or link), else returns what to send once `q`
   * has committed.
   */
  private async prepareInvite(q: Queryable, job: JobRow, givenUp: boolean): Promise<Invitation | null> {
    const s = await this.repo.findForJob(q, job.session_id);
    if (!s) return null;
    if (givenUp) return this.settled(q, s.id, 'failed');
    if (s.status !== 'pending') return this.settled(q, s.id, 'skipped');
    const applicant = await this.rpc.call(SUBJECTS.applicantsGet, { id: s.applicant_id }, { principal: job.principal, requestId: newId('request'), timeoutMs: RPC_TIMEOUT_MS });
    if (!applicant.email) return this.settled(q, s.id, 'skipped');
    const { url } = captureLink(s, this.links);
    if (!url) return this.settled(q, s.id, 'skipped');
    const emailId = await this.emails.pendingId(q, s.id, INVITE_TEMPLATE);
    if (!emailId) return null; // settled already
    return { jobId: job.id, attempts: job.attempts, sessionId: s.id, to: applicant.email, messageId: inviteMessageId(emailId, this.cfg.SMTP_FROM), ...inviteMessage(url) };
  }

  private async settled(q: Queryable, sessionId: string, status: 'failed' | 'skipped'): Promise<null> {
    await this.emails.settle(q, sessionId, INVITE_TEMPLATE, status);
    return null;
  }

  /**
   * Sends a committed invitation, then settles it. Its Message-ID comes from its email-log row, so should the
   * process die between the mail server's acceptance and the settling (the job's lease then runs out and it is
   * sent again), the copy is the same message, which mail systems recognise. A database that does not answer
   * after the send is asked again; the email is not.
   */
  private async sendInvite(inv: Invitation): Promise<void> {
    // settled meanwhile (the applicant was erased): nothing goes out
    if (!(await this.emails.pendingId(this.db, inv.sessionId, INVITE_TEMPLATE))) {
      await this.repo.deleteJob(this.db, inv.jobId);
      return;
    }
    try {
      await this.mailer.send({ to: inv.to, subject: inv.subject, text: inv.text, messageId: inv.messageId, template: INVITE_TEMPLATE, sessionId: inv.sessionId });
    } catch (error) {
      const permanent = (error as { responseCode?: unknown }).responseCode !== undefined && Number((error as { responseCode?: unknown }).responseCode) >= 500;
      const delay = RETRY_DELAYS_MS[inv.attempts];
      if (!permanent && delay !== undefined) {
        this.log.warn({ err: error, job: inv.jobId, session_id: inv.sessionId, attempt: inv.attempts + 1 }, 'invitation not sent; will retry');
        await this.repo.postponeJob(inv.jobId, delay);
        return;
      }
      this.log.error({ err: error, job: inv.jobId, session_id: inv.sessionId }, 'invitation given up');
      await this.settleInvite(inv, 'failed');
      return;
    }
    await this.settleInvite(inv, 'sent');
  }

  /** Records the outcome of a send and ends its job, asking again while the database does not answer. */
  private async settleInvite(inv: Invitation, status: 'sent' | 'failed'): Promise<void> {
    for (let i = 0; ; i++) {
      try {
        // the job first, then its email row: the order every other writer of both takes (no deadlock with an erasure)
        await this.db.tx(async (q) => {
          await this.repo.deleteJob(q, inv.jobId);
          await this.emails.settle(q, inv.sessionId, INVITE_TEMPLATE, status);
        });
        return;
      } catch (e) {
        const delay = RETRY_DELAYS_MS[i];
        if (delay === undefined || this.jobs.stopping) throw e;
        this.log.warn({ err: e, job: inv.jobId, session_id: inv.sessionId }, 'invitation sent but not yet recorded; retrying');
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** How long a claimed invitation is left to its sender before another worker may take it: every SMTP wait of one send. */
  private get inviteLeaseMs(): number {
    return 3 * this.cfg.SMTP_TIMEOUT + 5000;
  }
}

/** A committed invitation, ready to send. */
interface Invitation {
  jobId: string;
  attempts: number;
  sessionId: string;
  to: string;
  subject: string;
  text: string;
  messageId: string;
}

/**
 * What screening reads of a run. In test mode the names "from the document" are the applicant's own; the
 * name arrived as components, so the verbatim legal name is empty. No device or network signals are
 * collected in test mode, so `fraud.*` and `device.*` resolve to nothing.
 */
export function evaluationContext(
  a: Applicant,
  checks: ReadonlyArray<{ type: CheckType; outcome: EvaluationContextWire['checks'][CheckType] }>,
  findings: EvaluationContextWire['findings'],
): EvaluationContextWire {
  const applicant: EvaluationContextWire['applicant'] = { legalName: '', familyName: a.family_name ?? '', givenNames: a.given_names ?? [] };
  if (a.email) applicant.email = a.email;
  if (a.date_of_birth) applicant.dateOfBirth = a.date_of_birth;
  if (a.address?.country) applicant.address = { country: a.address.country };
  if (a.phone) applicant.phone = a.phone;
  const context: EvaluationContextWire = {
    applicant,
    findings,
    checks: Object.fromEntries(checks.map((c) => [c.type, c.outcome])),
    now: new Date().toISOString(),
  };
  const watchlist = syntheticWatchlist(checks);
  if (watchlist) context.watchlist = watchlist;
  return context;
}
