import { Inject, Injectable } from '@nestjs/common';
import {
  SUBJECTS,
  WATCHLIST_ID_FORMAT,
  type IdvHolder,
  type Principal,
  type SessionWatchlistHitRef,
  type TemplateVersion,
  type WatchlistHit,
  type WatchlistMonitorReply,
  type WatchlistMonitorRequest,
  type WatchlistPerson,
} from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { newId } from '@verity/keys';
import { CONFIG, JobHost, JobWorker, LOGGER, type Logger, type Queryable, type RetryPolicy, RpcClient, type RpcContext, RpcServer, Sql } from '@verity/platform';
import type { SessionsConfig } from '../config.js';
import { Outbox } from '../events/outbox.js';
import { watchlistHitEvent } from '../events/session-event.js';
import { SESSION_COLUMNS, type SessionRow } from '../sessions/sessions.repository.js';
import { watchlistFindings, watchlistRequest } from './live-run.js';

/** Sessions screened per page: one page is screened, then stored in one transaction with the monitor's cursor. */
export const MONITOR_PAGE = 100;
/** Screenings of a page in flight at once. */
const CONCURRENCY = 4;
/** How long a claimed page is left to its worker before another may take it (the worker died). */
const LEASE_MS = 120_000;
/** A page that failed is done again after 2 s, doubling to a minute, for as long as it takes. */
export const MONITOR_RETRY: RetryPolicy = { delaysMs: [2000, 4000, 8000, 16_000, 32_000, 60_000], forever: true };
const DAY_MS = 86_400_000;

interface MonitorRow {
  list: string;
  version: string;
  committed_at: Date;
  cursor: string;
  attempts: number;
}

interface Candidate {
  seq: string;
  id: string;
  org_id: string;
  applicant_id: string;
  workflow_template_id: string;
  template_version: number;
  holder: IdvHolder | null;
}

/** The principal of monitoring's calls, built by this service for the session's owner: no key, no scope. */
export function monitorPrincipal(orgId: string, region: Principal['region']): Principal {
  return {
    org_id: orgId,
    mode: 'live',
    region,
    key_id: 'watchlist-monitor',
    key_type: 'sk',
    scopes: [],
    tier: 'standard',
    custom_limits: null,
    billing: { subscription_status: 'active', past_due_since: null, wallet_balance: null, wallet_locked: false },
  };
}

/**
 * Monitoring, the sessions half (docs/watchlist.md, "Monitoring"; contract §21; docs/decisions.md): screening hands over
 * each list version that became current (`sessions.watchlist.monitor.v1`), and a row of `sessions.watchlist_monitors`
 * keeps it until every approved live session with a `watchlist` check, created in the `WATCHLIST_MONITOR_DAYS` before
 * the load, was screened again against that list. A page of sessions is screened, then stored in one transaction with
 * the row's cursor (checked, in that transaction, to be the one this worker claimed: the lease still held): a worker
 * that dies leaves its page to be done again, whole, after its lease. A job on the platform's `JobWorker`.
 *
 * Each session is screened with the watchlist thresholds of its pinned template version, as its live run was.
 * A hit not known for the session (no `watchlist_match` finding of any of its runs names the same list and listed
 * person) is added to the findings of the session's last run, where reviewers see hits; the session goes back to
 * `manual_review`, keeping its `approved` outcome until a reviewer decides, with `metadata.manualReviewReason`; and
 * one `kyc.session.watchlist_hit` is written to the outbox in the same transaction. A hit already known raises
 * nothing, so loading the same list again is silent. Test mode is never monitored.
 */
@Injectable()
export class WatchlistMonitorJob extends JobHost {
  protected readonly runner: JobWorker<MonitorRow>;

  constructor(
    @Inject(Sql) private readonly db: Sql,
    @Inject(RpcServer) private readonly server: RpcServer,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    private readonly outbox: Outbox,
    @Inject(CONFIG) private readonly cfg: SessionsConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    super();
    this.runner = new JobWorker<MonitorRow>(
      {
        name: 'sessions_watchlist_monitor',
        label: 'watchlist monitor page',
        claim: () => this.claim(),
        run: (job) => this.page(job),
        failure: {
          retry: MONITOR_RETRY,
          // the claim counted this try
          attempts: (job) => job.attempts - 1,
          retryLater: (job, delayMs) => this.retryLater(job, delayMs),
          giveUp: (job) => this.retryLater(job, MONITOR_RETRY.delaysMs.at(-1)!),
          passing: () => true,
        },
        logFields: (job) => ({ list: job.list, version: Number(job.version) }),
      },
      { everyMs: cfg.JOBS_POLL_MS, log },
    );
  }

  override onApplicationBootstrap(): void {
    // screening, on its own account: no principal
    this.server.handle(SUBJECTS.sessionsWatchlistMonitor, (p, ctx) => this.accept(p, ctx));
    super.onApplicationBootstrap();
  }

  /** Takes a version to monitor; one known already is not taken again. */
  async accept(p: WatchlistMonitorRequest, ctx: RpcContext): Promise<WatchlistMonitorReply> {
    if (ctx.principal) throw new DomainError('internal_error', { message: 'monitoring is asked by screening, without a principal' });
    const committed = typeof p?.committed_at === 'string' ? new Date(p.committed_at) : new Date(NaN);
    if (typeof p.list !== 'string' || !WATCHLIST_ID_FORMAT.test(p.list) || !Number.isSafeInteger(p.version) || p.version < 1 || Number.isNaN(committed.getTime())) {
      throw DomainError.validation([{ code: 'custom', message: 'list, version and committed_at are required', path: [] }]);
    }
    const rows = await this.db.rows(
      `INSERT INTO sessions.watchlist_monitors (list, version, committed_at) VALUES ($1, $2, $3) ON CONFLICT (list, version) DO NOTHING RETURNING 1`,
      [p.list, p.version, committed],
    );
    if (rows.length > 0) {
      ctx.log.info({ list: p.list, version: p.version }, 'watchlist monitoring started');
      this.runner.kick();
    }
    return { accepted: rows.length > 0 };
  }

  /** Claims the next due monitor for `LEASE_MS`, counting the try. */
  private async claim(): Promise<MonitorRow[]> {
    return this.db.rows<MonitorRow>(
      `UPDATE sessions.watchlist_monitors SET run_after = now() + $1 * interval '1 millisecond', attempts = attempts + 1
        WHERE (list, version) = (SELECT list, version FROM sessions.watchlist_monitors
                                  WHERE finished_at IS NULL AND run_after <= now() ORDER BY run_after, version LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING list, version, committed_at, cursor, attempts`,
      [LEASE_MS],
    );
  }

  private async retryLater(job: MonitorRow, delayMs: number): Promise<void> {
    await this.db.rows(`UPDATE sessions.watchlist_monitors SET run_after = now() + $3 * interval '1 millisecond' WHERE list = $1 AND version = $2 AND finished_at IS NULL`, [
      job.list,
      job.version,
      delayMs,
    ]);
  }

  /** One page: the next approved live sessions, screened against the list, then what was new stored with the cursor. */
  private async page(job: MonitorRow): Promise<void> {
    const version = Number(job.version);
    const since = new Date(job.committed_at.getTime() - this.cfg.WATCHLIST_MONITOR_DAYS * DAY_MS);
    const page = await this.db.rows<Candidate>(
      `SELECT seq, id, org_id, applicant_id, workflow_template_id, template_version, idv->'holder' AS holder FROM sessions.sessions
        WHERE seq > $1 AND mode = 'live' AND status = 'completed' AND outcome = 'approved' AND erased_at IS NULL
          AND created_at >= $2 AND checks @> '[{"type": "watchlist"}]'::jsonb
        ORDER BY seq LIMIT $3`,
      [job.cursor, since, MONITOR_PAGE],
    );
    const found = new Map<string, WatchlistHit[]>();
    let superseded = false;
    // the pinned template version of each session, read once a page: its watchlist thresholds, as the live run had them
    const versions = new Map<string, Promise<Pick<TemplateVersion, 'watchlist_thresholds'>>>();
    const templateOf = (s: Candidate) => {
      const key = `${s.workflow_template_id}:${s.template_version}`;
      if (!versions.has(key)) {
        versions.set(
          key,
          this.rpc
            .call(
              SUBJECTS.templatesVersion,
              { id: s.workflow_template_id, version: s.template_version },
              { principal: monitorPrincipal(s.org_id, this.cfg.REGION), requestId: newId('request') },
            )
            // a version that is gone cannot hold the page up: the region's thresholds, as for a template that sets none
            .catch((e: unknown) => {
              if (e instanceof DomainError && e.code === 'resource_not_found') return { watchlist_thresholds: {} };
              throw e;
            }),
        );
      }
      return versions.get(key)!;
    };
    for (let i = 0; i < page.length && !superseded; i += CONCURRENCY) {
      await Promise.all(
        page.slice(i, i + CONCURRENCY).map(async (s) => {
          const person = await this.personOf(s);
          if (!person) return;
          const reply = await this.rpc.call(
            SUBJECTS.screeningWatchlistScreen,
            { ...watchlistRequest(person, await templateOf(s)), list: job.list },
            { principal: monitorPrincipal(s.org_id, this.cfg.REGION), requestId: newId('request') },
          );
          // the list was replaced (or dropped) since: the later version has a monitor of its own
          if (reply.list_version !== version) superseded = true;
          else if (reply.hits.length > 0) found.set(s.id, reply.hits);
        }),
      );
    }
    let raised = 0;
    const done = superseded || page.length < MONITOR_PAGE;
    await this.db.tx(async (q) => {
      const [cur] = await q.rows<{ cursor: string }>(
        `SELECT cursor FROM sessions.watchlist_monitors WHERE list = $1 AND version = $2 AND finished_at IS NULL FOR UPDATE`,
        [job.list, job.version],
      );
      if (!cur || cur.cursor !== job.cursor) return; // another worker did this page after this one's lease ran out
      if (!superseded) {
        for (const [sessionId, hits] of found) if (await this.raise(q, sessionId, job.list, version, hits)) raised++;
      }
      await q.rows(
        `UPDATE sessions.watchlist_monitors
            SET cursor = $3, screened = screened + $4, hits = hits + $5, attempts = 0, run_after = now(), finished_at = CASE WHEN $6 THEN now() END
          WHERE list = $1 AND version = $2`,
        [job.list, job.version, page.at(-1)?.seq ?? job.cursor, superseded ? 0 : page.length, raised, done],
      );
    });
    if (raised > 0) this.outbox.kick();
    if (done) this.log.info({ list: job.list, version, superseded }, 'watchlist monitoring finished');
  }

  /**
   * The new hits of one session, in `q`: those no `watchlist_match` finding of its runs names already. With any, the
   * session goes back to review (still approved, until a reviewer decides), the hits join its last run's findings,
   * and one `kyc.session.watchlist_hit` is written. A session already in review (another list's monitor sent it
   * there since this page was read) gets the hits and the event, its status as it is. False when nothing was new or
   * the session moved on otherwise (erased, decided).
   */
  private async raise(q: Queryable, sessionId: string, list: string, version: number, hits: readonly WatchlistHit[]): Promise<boolean> {
    const known = await q.rows<{ entity_id: string }>(
      `SELECT f->'evidence'->>'entityId' AS entity_id FROM sessions.runs r CROSS JOIN LATERAL jsonb_array_elements(r.findings) f
        WHERE r.session_id = $1 AND f->>'findingType' = 'watchlist_match' AND f->'evidence'->>'listId' = $2`,
      [sessionId, list],
    );
    const seen = new Set(known.map((k) => k.entity_id));
    const fresh = hits.filter((h) => !seen.has(h.entity_id));
    if (fresh.length === 0) return false;
    const now = new Date();
    const [moved] = await q.rows<SessionRow>(
      `UPDATE sessions.sessions SET status = 'manual_review', platform_metadata = platform_metadata || $2::jsonb, updated_at = $3
        WHERE id = $1 AND mode = 'live' AND status = 'completed' AND outcome = 'approved' AND erased_at IS NULL
        RETURNING ${SESSION_COLUMNS}`,
      [sessionId, JSON.stringify({ manualReviewReason: `Watchlist monitoring: a hit on the list "${list}" after it was reloaded.` }), now],
    );
    // sent to review meanwhile (another list's monitor found it first): the hit is still new, and still told
    const [s] = moved
      ? [moved]
      : await q.rows<SessionRow>(
          `SELECT ${SESSION_COLUMNS} FROM sessions.sessions WHERE id = $1 AND mode = 'live' AND status = 'manual_review' AND erased_at IS NULL FOR UPDATE`,
          [sessionId],
        );
    if (!s) return false;
    const findings = watchlistFindings(sessionId, { hits: fresh, fail_threshold: null }).map((f, i) => ({
      ...f,
      id: `fnd_${sessionId.slice(4)}_m${version}_${i + 1}`,
      evidence: { ...f.evidence, monitoring: { listVersion: version, foundAt: now.toISOString() } },
    }));
    await q.rows(`UPDATE sessions.runs SET findings = findings || $2::jsonb WHERE id = (SELECT max(id) FROM sessions.runs WHERE session_id = $1)`, [
      sessionId,
      JSON.stringify(findings),
    ]);
    const refs: SessionWatchlistHitRef[] = fresh.map((h) => ({ list: h.list, entityId: h.entity_id, score: h.score }));
    await this.outbox.addEvent(q, sessionId, watchlistHitEvent(s, refs, now));
    return true;
  }

  /** Whom the live run screened: the document's holder, else the applicant's own names and date of birth. */
  private async personOf(s: Candidate): Promise<WatchlistPerson | null> {
    if (s.holder) {
      return { family_name: s.holder.family_name, given_names: [...s.holder.given_names], date_of_birth: s.holder.date_of_birth, nationality: s.holder.nationality ?? null };
    }
    try {
      const a = await this.rpc.call(
        SUBJECTS.applicantsGet,
        { id: s.applicant_id },
        { principal: monitorPrincipal(s.org_id, this.cfg.REGION), requestId: newId('request') },
      );
      if (a.erased) return null;
      return { family_name: a.family_name ?? '', given_names: [...(a.given_names ?? [])], date_of_birth: a.date_of_birth ?? null, nationality: null };
    } catch (e) {
      if (e instanceof DomainError && e.code === 'resource_not_found') return null;
      throw e;
    }
  }
}
