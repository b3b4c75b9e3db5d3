import { Inject, Injectable } from '@nestjs/common';
import {
  CHECK_TYPES,
  CONSOLE_NAME_SEARCH_MAX,
  SESSION_STATUSES,
  SUBJECTS,
  type ConsoleSessionListRequest,
  type EmailLogEntry,
  type EmailLogRequest,
  type EvaluateReply,
  type ListQuery,
  type Owner,
  type Page,
  type Principal,
  type Session,
  type SessionScreening,
  type SessionWatchlistHit,
  type SessionWatchlistHitsReply,
  type TemplateVersion,
  type TimelineEntry,
} from '@verity/contracts';
import { DomainError, type Issue } from '@verity/errors';
import { captureSecretFor, hashCaptureSecret, isId, MODES, newId, type IdKind, type Mode } from '@verity/keys';
import { esignMissingMessage, isCalendarDay, missingSigningKeys } from '@verity/metadata';
import { assertBeforeDeadline, CONFIG, parseListQuery, RpcClient, toPage, type RpcContext } from '@verity/platform';
import { debitLiveCreate, refundUnwritten } from '../billing/live-billing.js';
import type { SessionsConfig } from '../config.js';
import { EmailLogRepository } from '../emails/email-log.repository.js';
import { INVITE_SUBJECT, INVITE_TEMPLATE, maskEmail } from '../emails/invite.js';
import { Outbox } from '../events/outbox.js';
import { InviteEmailJob } from '../runs/invite-email.job.js';
import { TestRunJob } from '../runs/test-run.job.js';
import { validateCreateBody, validateDecisionBody, validateHitDecisionBody, validateNoteBody, validateReasonBody } from './session.validation.js';
import { TemplatePins } from './template-pins.js';
import { captureLink, type CaptureLinks } from './capture-link.js';
import { sessionChecks } from './checks.js';
import { SessionsRepository, type ConsoleListFilters, type PlatformMetadata, type SessionRow } from './sessions.repository.js';
import { timelineOf } from './timeline.js';
import { actionTarget } from './transitions.js';
import { decisionOf, hitsOf } from './watchlist-hits.js';

/** The read shape of docs/sessions.md; `idv` only for the read of one session that ran an identity check. */
export function toSession(row: SessionRow, links: CaptureLinks, withIdv = false): Session {
  const s: Session = {
    id: row.id,
    object: 'session',
    applicant_id: row.applicant_id,
    workflow_template_id: row.workflow_template_id,
    workflow_template_version: row.template_version,
    mode: row.mode,
    status: row.status,
    outcome: row.outcome,
    checks: sessionChecks(row.checks),
    metadata: { ...row.metadata, ...row.platform_metadata },
    ...captureLink(row, links),
    erased: row.erased_at !== null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
  if (withIdv && row.idv) s.idv = row.idv;
  return s;
}

/** The explanation of a run's screening in the read (contract names, never an applicant value); null without one. */
export function screeningOf(reply: EvaluateReply | null | undefined): SessionScreening | null {
  if (!reply || reply.status !== 'ok') return null;
  return {
    decision: reply.decision,
    score: reply.score,
    review_threshold: reply.review_threshold ?? null,
    decline_floored: reply.decline_floored,
    tags: reply.tags,
    rules_fired: reply.fired.map((f) => ({ name: f.name, rule_type: f.ruleType, action: f.action, priority: f.priority ?? null, fields: f.fields })),
  };
}

const LIST_FILTERS = {
  status: (v: string) => (SESSION_STATUSES as readonly string[]).includes(v),
  // a malformed id is answered like an unknown one: it matches nothing
  applicant_id: (v: string) => v.length > 0 && v.length <= 100,
};

/**
 * The most the notes of one session may weigh, as stored JSON (UTF-8). They accumulate on the session row, and the
 * whole row travels in every read of it as one NATS message (1 MiB at most).
 */
export const NOTES_MAX_BYTES = 256 * 1024;

/** How long a session read waits for the evidence service before answering from the run record. */
const EVIDENCE_TIMEOUT_MS = 1000;

type Action = 'cancel' | 'review' | 'decision';
const ACTION_VERB: Record<Action, string> = { cancel: 'cancelled', review: 'sent to manual review', decision: 'decided' };

/** 409 for text an erased session no longer takes (its applicant's personal data was erased, docs/privacy.md). */
function erasedRefusal(row: SessionRow, what: string): DomainError {
  return new DomainError('invalid_state_transition', {
    message: `The applicant of this session was erased: the session ${what}.`,
    details: { status: row.status, erased: true },
  });
}

@Injectable()
export class SessionsService {
  constructor(
    private readonly repo: SessionsRepository,
    private readonly emails: EmailLogRepository,
    private readonly outbox: Outbox,
    private readonly testRuns: TestRunJob,
    private readonly invitations: InviteEmailJob,
    private readonly pins: TemplatePins,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(CONFIG) private readonly cfg: SessionsConfig,
  ) {
    this.links = { baseUrl: cfg.CAPTURE_BASE_URL, secretKey: cfg.CAPTURE_SECRET_KEY };
  }

  private readonly links: CaptureLinks;

  /**
   * POST /v1/sessions. Order: body shape → metadata → expected_outcome → applicant → template → signing
   * requirements → (live) debit of the wallet → write. A refusal writes nothing; the session, its test run or
   * invitation job and its email log row are written by one statement.
   */
  async create(p: Principal, body: unknown, ctx: RpcContext): Promise<Session> {
    const input = validateCreateBody(body, p.mode);
    // both lookups at once; the applicant's refusal is still reported first
    const [applicantResult, templateResult] = await Promise.allSettled([
      this.lookup(p, ctx, 'applicant', 'applicant_id', input.applicant_id, (id, o) => this.rpc.call(SUBJECTS.applicantsGet, { id }, o)),
      this.lookup(p, ctx, 'workflowTemplate', 'workflow_template_id', input.workflow_template_id, (id, o) =>
        this.pins.get(p, id, o),
      ),
    ]);
    if (applicantResult.status === 'rejected') throw applicantResult.reason;
    if (templateResult.status === 'rejected') throw templateResult.reason;
    const applicant = applicantResult.value;
    const template = templateResult.value;
    this.assertSigningRequirements(template, input.metadata);

    const job = p.mode === 'test' ? ('test_run' as const) : applicant.email ? ('invite_email' as const) : null;
    const id = newId('session');
    const now = new Date();
    // a live session waits for its applicant's capture: only the client secret's hash is kept
    const capture =
      p.mode === 'live' ? { secret_hash: hashCaptureSecret(captureSecretFor(this.cfg.CAPTURE_SECRET_KEY, id)), expires_at: new Date(now.getTime() + this.cfg.CAPTURE_LINK_TTL) } : null;
    // a live create is billed (docs/sessions.md, "Billing"): the price of its checks is debited before anything is written, and
    // given back should nothing be written (billing/live-billing.ts); test mode never bills
    if (p.mode === 'live') await debitLiveCreate(this.rpc, p, id, template.checks, ctx);
    const row = await this.repo.create(
      p,
      {
        id,
        applicant_id: applicant.id,
        workflow_template_id: template.id,
        template_version: template.version,
        expected_outcome: input.expected_outcome,
        checks: template.checks,
        metadata: input.metadata,
        capture,
        photo_upload: template.photo_upload,
        device_intelligence: template.device_intelligence,
        now,
      },
      job ? { kind: job, principal: p } : null,
      // test mode never sends: the invitation is only logged
      applicant.email
        ? { template: INVITE_TEMPLATE, subject: INVITE_SUBJECT, recipient: maskEmail(applicant.email), status: p.mode === 'test' ? 'suppressed' : 'pending' }
        : null,
      // the caller's deadline, checked by the statement itself: nothing is written after the gateway answered
      new Date(ctx.deadline),
    ).catch((e: unknown) => {
      // after a failure the write may still have committed: the debit is given back once the session is seen absent
      if (p.mode === 'live') refundUnwritten(this.rpc, p, id, ctx, async () => (await this.repo.find(p, id)) === null);
      throw e;
    });
    if (!row) {
      // the deadline passed before the statement ran: nothing was written
      if (p.mode === 'live') refundUnwritten(this.rpc, p, id, ctx);
      throw new DomainError('service_unavailable');
    }
    // a job was queued (a test run, or a live invitation): start on it now rather than at the next poll
    if (job === 'test_run') this.testRuns.kick();
    else if (job === 'invite_email') this.invitations.kick();
    return toSession(row, this.links);
  }

  /**
   * GET /v1/sessions/{id}. `idv` is present when the run had an identity check; what it lists is what the
   * evidence service holds now (images deleted under retention drop out). Should evidence not answer in time,
   * the read still succeeds with what the run recorded when it stored the images.
   */
  async get(p: Principal, id: string, ctx: RpcContext): Promise<Session> {
    const row = isId('session', id) ? await this.repo.find(p, id) : null;
    if (!row) throw DomainError.notFound();
    return this.read(p, row, ctx);
  }

  /** The read of one session, `idv` included (GET /v1/sessions/{id}, and the sessions of a data subject's export). */
  async read(p: Principal, row: SessionRow, ctx: RpcContext): Promise<Session> {
    const session = toSession(row, this.links, true);
    session.screening = screeningOf(await this.repo.lastScreening(row.id));
    if (session.idv) {
      const timeoutMs = Math.max(50, Math.min(EVIDENCE_TIMEOUT_MS, (ctx.deadline - Date.now()) / 2));
      try {
        // what is stored now (retention drops images); what was read from the document stays the run's
        // the flag of a stored back is the console's alone: the API's idv never mentions the back
        const { available_images, capture_acquisition } = await this.rpc.call(SUBJECTS.evidenceAvailable, { session_id: row.id }, { principal: p, requestId: ctx.requestId, timeoutMs });
        session.idv = { ...session.idv, available_images, capture_acquisition };
      } catch (e) {
        ctx.log.warn({ err: e, session_id: row.id }, 'evidence did not answer; idv from the run record');
      }
    }
    return session;
  }

  /**
   * `sessions.timeline.v1` (the console's verification page): the session's creation, its events and its notes,
   * oldest first. Scoped like `get`: another owner's session, or a malformed id, is 404 like an unknown one.
   */
  async timeline(owner: Owner, id: unknown): Promise<{ data: TimelineEntry[] }> {
    const row = isId('session', id) ? await this.repo.find(owner, id) : null;
    if (!row) throw DomainError.notFound();
    const [events, findings, decisions] = await Promise.all([this.repo.events(row.id), this.repo.lastFindings(this.repo.db, row.id), this.repo.watchlistDecisions(this.repo.db, row.id)]);
    return { data: timelineOf(row, events, hitsOf(findings, decisions)) };
  }

  /**
   * `sessions.watchlist.hits.v1` (the console's verification page): the watchlist hits of the session's last run, each
   * with the reviewer's decision on it. Scoped like `get`; an erased session has none (its findings were erased).
   */
  async watchlistHits(owner: Owner, id: unknown): Promise<SessionWatchlistHitsReply> {
    const row = isId('session', id) ? await this.repo.find(owner, id) : null;
    if (!row) throw DomainError.notFound();
    const [findings, decisions] = await Promise.all([this.repo.lastFindings(this.repo.db, row.id), this.repo.watchlistDecisions(this.repo.db, row.id)]);
    return { data: hitsOf(findings, decisions) };
  }

  /**
   * `sessions.watchlist.decide.v1`: a reviewer clears (a false positive) or confirms (a true match) one hit, with a
   * reason, while the session waits in `manual_review`. The session's status is the review decision's alone
   * (`sessions.decision.v1`); a hit is decided once (409 after). Another owner's session or an unknown hit: 404.
   */
  async decideWatchlistHit(p: Principal, id: unknown, findingId: unknown, body: unknown, ctx: RpcContext): Promise<SessionWatchlistHit> {
    const d = validateHitDecisionBody(body);
    return this.repo.db.tx(async (q) => {
      const row = isId('session', id) ? await this.repo.lock(q, p, id) : null;
      if (!row) throw DomainError.notFound();
      if (row.erased_at) throw erasedRefusal(row, 'takes no decisions on watchlist hits');
      const hit = typeof findingId === 'string' ? hitsOf(await this.repo.lastFindings(q, row.id), []).find((h) => h.finding_id === findingId) : undefined;
      if (!hit) throw DomainError.notFound('finding_id');
      if (row.status !== 'manual_review') {
        throw new DomainError('invalid_state_transition', { message: 'Watchlist hits are decided while the session waits for review.', details: { status: row.status } });
      }
      assertBeforeDeadline(ctx);
      const stored = await this.repo.insertWatchlistDecision(q, row.id, { finding_id: hit.finding_id, outcome: d.outcome, reason: d.reason, decided_by: p.key_id, decided_by_email: d.reviewer_email });
      if (!stored) throw new DomainError('invalid_state_transition', { message: 'This hit has been decided already.', details: { status: row.status, decided: true } });
      return { ...hit, decision: decisionOf(stored) };
    });
  }

  async list(owner: Owner, query: ListQuery): Promise<Page<Session>> {
    const p = parseListQuery(query, LIST_FILTERS);
    const rows = await this.repo.list(owner, p.after, p.limit, p.filters);
    return toPage(rows, p.limit, (r) => r.seq, (r) => toSession(r, this.links));
  }

  /**
   * `sessions.console.list.v1`: the console's verifications list and review queue, for the owner of the principal
   * (docs/decisions.md, "Names in the console's lists"). `applicant_ids` is a name search's answer from applicants:
   * an empty set matches nothing.
   */
  async consoleList(owner: Owner, req: ConsoleSessionListRequest | undefined): Promise<Page<Session>> {
    const r = req ?? {};
    const issues: Issue[] = [];
    const bad = (path: string, message: string) => issues.push({ code: 'invalid_value', message, path: [path] });
    const p = parseListQuery({ limit: r.limit === undefined ? undefined : String(r.limit), cursor: r.cursor });
    const f: ConsoleListFilters = { status: null, check: null, from: null, before: null, applicant_ids: null };
    if (r.status !== undefined) {
      if ((SESSION_STATUSES as readonly unknown[]).includes(r.status)) f.status = r.status;
      else bad('status', 'status is not a session status');
    }
    if (r.check !== undefined) {
      if (!(CHECK_TYPES as readonly unknown[]).includes(r.check)) bad('check', 'check is not a check type');
      else if (r.check_outcome !== undefined && !['pass', 'review', 'fail', 'error'].includes(r.check_outcome)) bad('check_outcome', 'check_outcome is pass, review, fail or error');
      else f.check = r.check_outcome === undefined ? { type: r.check } : { type: r.check, outcome: r.check_outcome };
    } else if (r.check_outcome !== undefined) bad('check_outcome', 'check_outcome needs a check');
    const day = (v: unknown, path: string): Date | null => {
      if (v === undefined) return null;
      if (!isCalendarDay(v)) {
        bad(path, `${path} is a day, YYYY-MM-DD`);
        return null;
      }
      return new Date(`${v}T00:00:00Z`);
    };
    f.from = day(r.created_from, 'created_from');
    const to = day(r.created_to, 'created_to');
    f.before = to ? new Date(to.getTime() + 86_400_000) : null;
    if (r.applicant_ids !== undefined) {
      if (!Array.isArray(r.applicant_ids) || r.applicant_ids.length > CONSOLE_NAME_SEARCH_MAX || !r.applicant_ids.every((id) => typeof id === 'string' && id.length <= 100)) {
        bad('applicant_ids', `applicant_ids is a list of at most ${CONSOLE_NAME_SEARCH_MAX} applicant ids`);
      } else f.applicant_ids = r.applicant_ids;
    }
    if (issues.length > 0) throw DomainError.validation(issues);
    if (f.applicant_ids?.length === 0) return { data: [], next_cursor: null };
    const rows = await this.repo.consoleList(owner, p.after, p.limit, f);
    // with `idv`, as one session's read has it: the list shows the name a live run read from the document
    return toPage(rows, p.limit, (r) => r.seq, (r) => toSession(r, this.links, true));
  }

  /**
   * Notes can be added in every status; they change nothing else and emit no event. An erased session takes none
   * (a note is personal data of its applicant): 409.
   */
  async note(owner: Owner, id: string, body: unknown, ctx: RpcContext): Promise<Session> {
    const { note } = validateNoteBody(body);
    const row = await this.repo.db.tx(async (q) => {
      const current = isId('session', id) ? await this.repo.lock(q, owner, id) : null;
      if (!current) throw DomainError.notFound();
      if (current.erased_at) throw erasedRefusal(current, 'takes no more notes');
      assertBeforeDeadline(ctx);
      return this.repo.appendNote(q, id, note, new Date(), NOTES_MAX_BYTES);
    });
    if (!row) {
      throw DomainError.validation([
        { code: 'too_big', message: `the notes of a session may total at most ${NOTES_MAX_BYTES} bytes as JSON (UTF-8); this note does not fit`, path: ['note'] },
      ]);
    }
    return toSession(row, this.links);
  }

  async cancel(owner: Owner, id: string, body: unknown, ctx: RpcContext): Promise<Session> {
    const { reason } = validateReasonBody(body);
    return this.act(owner, id, 'cancel', ctx, { platform: reason === undefined ? {} : { cancellationReason: reason } });
  }

  async review(owner: Owner, id: string, body: unknown, ctx: RpcContext): Promise<Session> {
    const { reason } = validateReasonBody(body);
    return this.act(owner, id, 'review', ctx, { platform: reason === undefined ? {} : { manualReviewReason: reason } });
  }

  async decision(owner: Owner, id: string, body: unknown, ctx: RpcContext): Promise<Session> {
    const { outcome, reason } = validateDecisionBody(body);
    return this.act(owner, id, 'decision', ctx, { outcome, decision_reason: reason });
  }

  /** Operator read of the email log (admin CLI); no principal, the organization is named. */
  async emailLog(req: EmailLogRequest): Promise<{ data: EmailLogEntry[] }> {
    const issues: Issue[] = [];
    if (!isId('org', req.org_id)) issues.push({ code: 'invalid_value', message: 'org_id must be an organization id', path: ['org_id'] });
    const limit = req.limit ?? 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      issues.push({ code: 'invalid_value', message: 'limit must be a whole number from 1 to 100', path: ['limit'] });
    }
    if (req.mode !== undefined && !(MODES as readonly string[]).includes(req.mode)) {
      issues.push({ code: 'invalid_value', message: 'mode must be test or live', path: ['mode'] });
    }
    if (issues.length > 0) throw DomainError.validation(issues);
    return { data: await this.emails.list(req.org_id, limit, (req.mode as Mode | undefined) ?? null) };
  }

  /**
   * An operator action: the row is locked, the transition table decides (409 otherwise), and the change and
   * its event commit together.
   */
  private async act(
    owner: Owner,
    id: string,
    action: Action,
    ctx: RpcContext,
    change: { platform?: Partial<PlatformMetadata>; outcome?: 'approved' | 'declined'; decision_reason?: string },
  ): Promise<Session> {
    const row = await this.repo.db.tx(async (q) => {
      const current = isId('session', id) ? await this.repo.lock(q, owner, id) : null;
      if (!current) throw DomainError.notFound();
      const to = actionTarget(current.status, action);
      if (!to) {
        throw new DomainError('invalid_state_transition', {
          message: `A session in status ${current.status} cannot be ${ACTION_VERB[action]}.`,
          details: { status: current.status },
        });
      }
      // the action holds no personal data, its reason would: refused rather than dropped silently
      if (current.erased_at && (change.decision_reason !== undefined || Object.keys(change.platform ?? {}).length > 0)) {
        throw erasedRefusal(current, 'takes no reason: send the action without one');
      }
      const now = new Date();
      const updated = await this.repo.changeStatus(q, id, [current.status], {
        status: to,
        outcome: change.outcome ?? null,
        platform: change.platform,
        decision_reason: change.decision_reason,
        now,
      });
      await this.outbox.add(q, updated!, now);
      assertBeforeDeadline(ctx);
      return updated!;
    });
    this.outbox.kick();
    return toSession(row, this.links);
  }

  /**
   * A resource of another service, read with the caller's principal. A missing, malformed or unknown id is
   * 404 `resource_not_found` naming the body field.
   */
  private async lookup<T>(
    p: Principal,
    ctx: RpcContext,
    kind: IdKind,
    param: string,
    id: unknown,
    call: (id: string, opts: { principal: Principal; requestId: string; timeoutMs: number }) => Promise<T>,
  ): Promise<T> {
    if (!isId(kind, id)) throw DomainError.notFound(param);
    const timeoutMs = Math.max(50, ctx.deadline - Date.now());
    try {
      return await call(id, { principal: p, requestId: ctx.requestId, timeoutMs });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'resource_not_found') throw DomainError.notFound(param);
      throw e;
    }
  }

  /**
   * Api-spec Session metadata rule 4: a signing document placing variables makes their keys required at
   * create. Checked after shape validation, so `""` and `null` never get here.
   */
  private assertSigningRequirements(template: TemplateVersion, metadata: Record<string, unknown>): void {
    if (!template.checks.includes('document_signing') || !template.signing_document) return;
    const missing = missingSigningKeys(template.signing_document.variables, metadata);
    if (missing.length === 0) return;
    throw new DomainError('esign_requirements_not_met', {
      message: esignMissingMessage(missing),
      param: 'metadata',
      details: { reason: 'esign_session_metadata_required', missing_keys: missing.map((k) => `metadata.${k}`) },
    });
  }
}

