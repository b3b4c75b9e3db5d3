import { Inject, Injectable } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { newId } from '@verity/keys';
import { inStoredTrace, isPassingFailure, JobHost, type JobWorker, type RetryPolicy, RpcClient } from '@verity/platform';
import { SessionsRepository } from '../sessions/sessions.repository.js';
import { LiveRun } from './live-run.js';
import { awaitsRun, givenUpReason, SessionJobs, type SessionJob } from './session-jobs.js';
import { restingOf } from './synthetic.js';

/** Live runs at once per process. */
const SLOTS = 2;
/** A live run is tried three times (docs/capture.md), then its session is `errored`. */
export const LIVE_RUN_RETRY: RetryPolicy = { delaysMs: [2000, 10_000] };

/**
 * The live run of a submitted capture (docs/capture.md), a `live_run` job queued by the submit. In order, with no
 * transaction open until the last step:
 *
 * 1. the job is claimed with a lease (committed; renewed while the run works);
 * 2. `LiveRun.findings` (live-run.ts) asks for the pinned template version and the applicant, has the region's
 *    reader read the capture, store its evidence and judge the identity checks (up to `LIVE_READ_TIMEOUT`), screens
 *    the watchlist, and notes the run's device, document and selfie history (each an idempotent statement);
 * 3. screening evaluates the pinned template version with the document's names;
 * 4. one short transaction, if the lease is still held: the resting status, the run record and the event, the job
 *    deleted, and what the run noted dropped again if the applicant was erased meanwhile.
 *
 * A run failing for a passing reason is tried three times; given up, its session ends `errored` with
 * `metadata.erroredReason` (no event).
 */
@Injectable()
export class LiveRunJob extends JobHost {
  protected readonly runner: JobWorker<SessionJob>;

  constructor(
    private readonly jobs: SessionJobs,
    private readonly repo: SessionsRepository,
    private readonly live: LiveRun,
    @Inject(RpcClient) private readonly rpc: RpcClient,
  ) {
    super();
    this.runner = jobs.worker('live_run', SLOTS, { retry: LIVE_RUN_RETRY, run: (j) => this.run(j), giveUp: (j, err) => this.giveUp(j, err) });
  }

  private async run(job: SessionJob): Promise<void> {
    await inStoredTrace(job.trace_context, `job ${job.kind}`, { 'verity.job.kind': job.kind }, async () => {
      const s = await this.repo.findForJob(this.jobs.db, job.session_id);
      if (!awaitsRun(s)) return this.jobs.drop(job);
      const found = await this.live.findings(this.jobs.db, s, job.principal);
      const reply = await this.rpc.call(
        SUBJECTS.screeningEvaluate,
        { template_id: s.workflow_template_id, version: s.template_version, context: found.context },
        { principal: job.principal, requestId: newId('request') },
      );
      const emitted = await this.jobs.settle(job, async (q) => {
        const rested = await this.jobs.rest(q, s, restingOf(found.checks, reply), found.checks, found.idv, {
          expected_outcome: null,
          findings: found.findings,
          credit_recording: null,
          screening: reply,
        });
        // the session's applicant may have been erased while this run was in flight: what it noted of the document goes too
        await this.repo.dropRunOfErased(q, s.id);
        return rested;
      });
      this.jobs.relay(emitted);
    });
  }

  private async giveUp(job: SessionJob, err: unknown): Promise<void> {
    const reason = givenUpReason(isPassingFailure(err), err);
    const emitted = await this.jobs.settle(job, async (q) => {
      const now = new Date();
      const updated = await this.repo.changeStatus(q, job.session_id, ['pending', 'in_progress'], { status: 'errored', outcome: null, platform: { erroredReason: reason }, now });
      // what an attempt noted of the document is no more than the record of what was submitted; an erasure dropped it
      await this.repo.dropRunOfErased(q, job.session_id);
      return updated ? this.jobs.outboxAdd(q, updated, now) : false;
    });
    this.jobs.relay(emitted);
  }
}
