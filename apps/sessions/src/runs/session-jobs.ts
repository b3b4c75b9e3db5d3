import { Inject, Injectable } from '@nestjs/common';
import type { ExpectedOutcome, Idv } from '@verity/contracts';
import { CONFIG, JobWorker, LeasedJobTable, LOGGER, Sql, type Leased, type Logger, type Queryable, type RetryPolicy } from '@verity/platform';
import type { SessionsConfig } from '../config.js';
import { Outbox } from '../events/outbox.js';
import { SessionsRepository, type JobRow, type SessionRow } from '../sessions/sessions.repository.js';
import type { CheckResult, Resting } from './synthetic.js';

/** A job of `sessions.jobs` as its worker holds it: claimed, with its lease. */
export type SessionJob = Leased<JobRow>;

/**
 * How long a claim lasts before another process may take the job over; renewed every third of it while the job
 * works, so a job whose process died is taken again within this.
 */
export const JOB_LEASE_MS = 10_000;
/** A job failing for a passing reason (a service not answering) is retried with these delays, then given up. */
export const JOB_RETRY: RetryPolicy = { delaysMs: [200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000] };
const JOB_COLUMNS = 'id, kind, session_id, principal, attempts, trace_context';

/** What a session's run records beside its resting status. */
export interface RunRecord {
  expected_outcome: ExpectedOutcome | null;
  findings: unknown;
  credit_recording: string | null;
  screening: unknown;
}

/**
 * The `sessions.jobs` table as the four kinds of job use it (`test-run.job.ts`, `live-run.job.ts`,
 * `invite-email.job.ts`; `capture-expiry.job.ts` sweeps the sessions table instead). A job is written in the same
 * transaction as its session; a worker claims it with a lease (committed at once), does its reads and calls with
 * no transaction open, and commits its result in one short transaction that checks it still holds the lease and
 * deletes the job: its effects (status, run record, outbox event) take place once.
 */
@Injectable()
export class SessionJobs {
  readonly table: LeasedJobTable<JobRow>;

  constructor(
    @Inject(Sql) readonly db: Sql,
    private readonly repo: SessionsRepository,
    private readonly outbox: Outbox,
    @Inject(CONFIG) private readonly cfg: SessionsConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.table = new LeasedJobTable<JobRow>(db, 'sessions.jobs', JOB_COLUMNS);
  }

  /** A worker of one kind: `slots` jobs of it at once per process, looking every `JOBS_POLL_MS` and when kicked. */
  worker(
    kind: JobRow['kind'],
    slots: number,
    job: { run(j: SessionJob): Promise<void>; giveUp(j: SessionJob, err: unknown): Promise<void>; retry?: RetryPolicy; passing?(err: unknown): boolean; label?: string },
  ): JobWorker<SessionJob> {
    return new JobWorker<SessionJob>(
      {
        name: `sessions_${kind}`,
        label: job.label,
        claim: (limit) => this.table.claim(limit, JOB_LEASE_MS, [kind]),
        renew: { leaseMs: JOB_LEASE_MS, renew: (j) => this.table.renew(j, JOB_LEASE_MS) },
        run: job.run,
        failure: {
          retry: job.retry ?? JOB_RETRY,
          attempts: (j) => j.attempts,
          retryLater: (j, delayMs) => this.table.retryLater(j, delayMs),
          giveUp: job.giveUp,
          passing: job.passing,
        },
        logFields: (j) => ({ job: j.id, kind: j.kind, session_id: j.session_id }),
      },
      { everyMs: this.cfg.JOBS_POLL_MS, slots, log: this.log },
    );
  }

  /**
   * Commits a job's result: in one transaction, when this worker still holds the job's lease, runs `write` and
   * deletes the job. Null when the lease was lost (nothing written: whoever took the job over commits instead).
   */
  async settle<T>(job: SessionJob, write: (q: Queryable) => Promise<T>): Promise<T | null> {
    return this.db.tx(async (q) => {
      if (!(await this.table.holds(q, job))) return null;
      const result = await write(q);
      await this.table.complete(q, job);
      return result;
    });
  }

  /** Settles a job with nothing to write (its session is gone or moved on). */
  async drop(job: SessionJob): Promise<void> {
    await this.settle(job, async () => null);
  }

  /**
   * The end of a run, test or live: the session moves to its resting status (pending → in_progress → resting,
   * two system transitions of the table committed as one), the run is recorded and its event written, all in
   * `q`. False when the session had moved on meanwhile (nothing written).
   */
  async rest(q: Queryable, s: SessionRow, resting: Resting, checks: CheckResult[], idv: Idv | null, run: RunRecord): Promise<boolean> {
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

  /** Writes a session's event to the outbox in `q` (false for a status that has none). */
  outboxAdd(q: Queryable, s: SessionRow, now: Date): Promise<boolean> {
    return this.outbox.add(q, s, now);
  }

  /** Tells the outbox's relay that an event was committed. */
  relay(emitted: boolean | null): void {
    if (emitted) this.outbox.kick();
  }
}

/** A session a run may still move: waiting for its run. */
export function awaitsRun(s: SessionRow | null): s is SessionRow {
  return s !== null && (s.status === 'pending' || s.status === 'in_progress');
}

/** The reason a run given up records (`metadata.erroredReason`). */
export function givenUpReason(passing: boolean, err: unknown): string {
  return passing ? 'The verification stalled: a service it depends on did not answer.' : `The verification could not run: ${(err as Error).message}`;
}
