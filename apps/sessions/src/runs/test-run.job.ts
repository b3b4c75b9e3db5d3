import { Inject, Injectable } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { newId } from '@verity/keys';
import { inStoredTrace, isPassingFailure, JobHost, type JobWorker, RpcClient } from '@verity/platform';
import { SessionsRepository, type SessionRow } from '../sessions/sessions.repository.js';
import { screeningContext } from './screening-context.js';
import { awaitsRun, givenUpReason, SessionJobs, type SessionJob } from './session-jobs.js';
import { CREDIT_RECORDINGS, restingOf, syntheticChecks, syntheticFindings, syntheticIdv, syntheticWatchlist, type Resting } from './synthetic.js';

/** Test runs at once per process. */
const SLOTS = 2;

/**
 * The synthetic run of a test session (docs/sessions.md), a `test_run` job queued with the session: check outcomes
 * from the expected outcome, findings, the credit-history recording, then screening of the pinned template version
 * over NATS, with no transaction open. The resting status, the run record (template version, findings, rule trace)
 * and the event commit together, once, with the job's end. A session an operator already moved on (cancelled, sent
 * to review) keeps its status: the run is dropped. A run given up rests `errored`.
 */
@Injectable()
export class TestRunJob extends JobHost {
  protected readonly runner: JobWorker<SessionJob>;

  constructor(
    private readonly jobs: SessionJobs,
    private readonly repo: SessionsRepository,
    @Inject(RpcClient) private readonly rpc: RpcClient,
  ) {
    super();
    this.runner = jobs.worker('test_run', SLOTS, { run: (j) => this.run(j), giveUp: (j, err) => this.giveUp(j, err) });
  }

  private async run(job: SessionJob): Promise<void> {
    await inStoredTrace(job.trace_context, `job ${job.kind}`, { 'verity.job.kind': job.kind }, async () => {
      const s = await this.repo.findForJob(this.jobs.db, job.session_id);
      if (!awaitsRun(s)) return this.jobs.drop(job);
      const run = await this.perform(s, job, null);
      this.jobs.relay(await this.jobs.settle(job, (q) => this.jobs.rest(q, s, run.resting, run.checks, run.idv, run.record)));
    });
  }

  private async giveUp(job: SessionJob, err: unknown): Promise<void> {
    const reason = givenUpReason(isPassingFailure(err), err);
    await inStoredTrace(job.trace_context, `job ${job.kind}`, { 'verity.job.kind': job.kind }, async () => {
      const emitted = await this.jobs.settle(job, async (q) => {
        const s = await this.repo.findForJob(q, job.session_id);
        if (!awaitsRun(s)) return false;
        const run = await this.perform(s, job, reason);
        return this.jobs.rest(q, s, run.resting, run.checks, run.idv, run.record);
      });
      this.jobs.relay(emitted);
    });
  }

  /** The run's result; with `givenUp` set, the `errored` one (no call is made). */
  private async perform(s: SessionRow, job: SessionJob, givenUp: string | null) {
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
      const opts = { principal: job.principal, requestId: newId('request') };
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
            { template_id: s.workflow_template_id, version: s.template_version, context: screeningContext(applicant, results, { findings, watchlist: syntheticWatchlist(results) }) },
            opts,
          ),
        );
      // side by side: the run ends as soon as the slower answers
      const [reply] = await Promise.all([evaluated, stored]);
      resting = restingOf(results, reply);
      screening = reply;
    }
    return {
      resting,
      checks: results,
      idv,
      record: {
        expected_outcome: expected,
        findings,
        credit_recording: types.includes('credit_history') ? CREDIT_RECORDINGS[expected].recording : null,
        screening,
      },
    };
  }
}
