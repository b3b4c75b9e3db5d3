import { Inject, Injectable } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import type { Region } from '@verity/keys';
import { type CallOptions, CONFIG, JobHost, JobWorker, LOGGER, type Logger, type RetryPolicy, RpcClient } from '@verity/platform';
import { ApplicantsRepository } from '../applicants/applicants.repository.js';
import { toApplicant } from '../applicants/applicants.service.js';
import type { ApplicantsConfig } from '../config.js';
import type { ErasureKeys } from './erasure-keys.js';
import { DsarRepository, type ClaimedDsar, type DsarRow, type DsarStepResult } from './dsar.repository.js';
import { ERASURE_KEYS } from './tokens.js';

/** How long a request may stay pending before the metrics call it overdue. */
const OVERDUE_MS = 10 * 60_000;

/**
 * A failed step is tried again after 0.5, 1, 2, 4 s, then every 5 s for as long as it takes: a request is never
 * given up (a service down for a day delays it by that day).
 */
export const DSAR_RETRY: RetryPolicy = { delaysMs: [500, 1000, 2000, 4000, 5000], forever: true };

/**
 * Runs data subject requests to completion without an operator (docs/privacy.md). Each replica polls for due
 * requests (and starts a new one at once); a request is leased while it runs, so only one replica runs it, and a
 * replica that dies leaves it to another once the lease runs out. An erasure is a sequence of idempotent steps, each
 * recorded when done: a resumed erasure skips what is recorded and repeats at most the step that was under way,
 * which finds nothing more to erase. An access request assembles its export from every service and completes unless
 * an erasure finished meanwhile. A failed step is tried again by `DSAR_RETRY`.
 */
@Injectable()
export class DsarJob extends JobHost {
  protected readonly runner: JobWorker<ClaimedDsar>;

  constructor(
    private readonly requests: DsarRepository,
    private readonly applicants: ApplicantsRepository,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(ERASURE_KEYS) private readonly keys: ErasureKeys,
    @Inject(CONFIG) private readonly service: ApplicantsConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    super();
    // room for the three calls of a run, each up to the RPC timeout
    const leaseMs = 4 * service.RPC_TIMEOUT_MS + 5000;
    const release = (row: ClaimedDsar, delayMs: number, err: unknown) => this.requests.release(row, delayMs, err instanceof DomainError ? err.code : 'internal_error');
    this.runner = new JobWorker<ClaimedDsar>(
      {
        name: 'applicants_dsar',
        // one at a time per replica
        claim: async () => {
          const row = await this.requests.claim(leaseMs);
          return row ? [row] : [];
        },
        run: (row) => (row.type === 'erasure' ? this.erase(row) : this.exportOf(row)),
        renew: { leaseMs, renew: (row) => this.requests.renew(row, leaseMs) },
        failure: {
          retry: DSAR_RETRY,
          attempts: (row) => row.attempts,
          retryLater: release,
          giveUp: (row, err) => release(row, DSAR_RETRY.delaysMs.at(-1)!, err),
          passing: () => true,
        },
        logFields: (row) => ({ dsar_id: row.id, type: row.type }),
      },
      {
        everyMs: service.DSAR_POLL_MS,
        log,
        // requests pending for over 10 minutes (one completes within a minute): each is retried and needs a look
        depth: { queue: 'applicants_dsar_overdue', count: () => this.requests.overdueCount(OVERDUE_MS) },
      },
    );
  }

  private opts(row: DsarRow): CallOptions {
    return { principal: row.principal, requestId: `req_${row.id}` };
  }

  private async erase(row: ClaimedDsar): Promise<void> {
    const steps = { ...row.steps };
    const step = async (name: string, run: () => Promise<DsarStepResult>): Promise<DsarStepResult> => {
      if (!steps[name]) {
        steps[name] = await run();
        await this.requests.recordStep(row.id, name, steps[name]);
      }
      return steps[name];
    };
    const q = { applicant_id: row.applicant_id };
    const sessions = await step('sessions', async () => {
      const r = await this.rpc.call(SUBJECTS.sessionsPrivacyErase, { ...q, session_ids: [] }, this.opts(row));
      return { erased: r.erased, session_ids: r.session_ids };
    });
    const session_ids = sessions.session_ids ?? [];
    await step('evidence', async () => ({ erased: (await this.rpc.call(SUBJECTS.evidencePrivacyErase, { ...q, session_ids }, this.opts(row))).erased }));
    await step('applicants', async () => ({ erased: await this.requests.eraseApplicant(row, row.applicant_id) }));
    const completedAt = new Date();
    const region = this.service.REGION as Region;
    const certificate = await this.keys.sign({
      iss: `${region}/erasure`,
      sub: row.applicant_id,
      jti: row.id,
      iat: Math.floor(completedAt.getTime() / 1000),
      region,
      org_id: row.org_id,
      mode: row.mode,
      erased: Object.fromEntries(Object.entries(steps).map(([service, r]) => [service, r.erased])),
    });
    await this.requests.completeErasure(row, certificate, completedAt);
    this.log.info({ dsar_id: row.id }, 'erasure completed');
  }

  private async exportOf(row: ClaimedDsar): Promise<void> {
    const q = { applicant_id: row.applicant_id };
    const sessions = await this.rpc.call(SUBJECTS.sessionsPrivacyExport, { ...q, session_ids: [] }, this.opts(row));
    const session_ids = sessions.session_ids;
    const [evidence, webhooks] = await Promise.all([
      this.rpc.call(SUBJECTS.evidencePrivacyExport, { ...q, session_ids }, this.opts(row)),
      this.rpc.call(SUBJECTS.webhooksPrivacyExport, { ...q, session_ids }, this.opts(row)),
    ]);
    const applicant = await this.applicants.find(row, row.applicant_id);
    if (!applicant) throw new DomainError('internal_error', { message: 'the applicant of an access request is gone' });
    const done = await this.requests.completeAccess(row, {
      applicant: toApplicant(applicant),
      sessions: sessions.sessions,
      email_log: sessions.email_log,
      evidence: evidence.evidence,
      activity: evidence.activity,
      webhook_events: webhooks.webhook_events,
    });
    // an erasure of the applicant finished while this export was assembled: assemble it again, from what is left
    if (!done) await this.requests.release(row, 0, 'erased_meanwhile');
  }
}
