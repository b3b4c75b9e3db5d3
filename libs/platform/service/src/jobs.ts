import { randomUUID } from 'node:crypto';
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { DomainError } from '@verity/errors';
import type { Logger } from './logger.js';
import { addScrapeSampler, metrics } from './metrics.js';
import { Poller } from './poller.js';
import { Semaphore } from './semaphore.js';
import type { Queryable, Sql } from './sql.js';

/**
 * How a failed job is tried again: the delay before each retry, in order; past the last one the job is given up,
 * or, with `forever`, tried again at the last delay for as long as it takes (work that must finish, as an erasure).
 */
export interface RetryPolicy {
  readonly delaysMs: readonly number[];
  readonly forever?: boolean;
}

/** The delay before the next try of a job that has failed `failures` times (this failure included), or null: give up. */
export function retryDelay(policy: RetryPolicy, failures: number): number | null {
  if (failures < 1) return null;
  const d = policy.delaysMs[failures - 1];
  if (d !== undefined) return d;
  return policy.forever && policy.delaysMs.length > 0 ? policy.delaysMs[policy.delaysMs.length - 1]! : null;
}

/**
 * A failure that may pass by itself (a service not answering, an unexpected error), worth another try; a domain
 * error with any other code is what the job's input is, and trying again changes nothing.
 */
export function isPassingFailure(err: unknown): boolean {
  return !(err instanceof DomainError) || err.code === 'service_unavailable' || err.code === 'internal_error';
}

/** A claimed row of a leased job table: its own columns, and the lease this process holds on it. */
export type Leased<R> = R & { lease: string };

/**
 * A Postgres table of jobs, claimed with a lease. The table has `id`, `run_after timestamptz` (when the job is due,
 * and while it is leased, when the lease runs out), `attempts int` (failed tries so far), `lease text` (the holder's
 * token) and `leased_at timestamptz`. A claim takes the oldest due row no other process is claiming (`FOR UPDATE
 * SKIP LOCKED`), sets a fresh lease token and pushes `run_after` to the end of the lease, and commits at once: no
 * transaction stays open while the job works. A process that dies leaves its job to whoever claims it once the
 * lease has run out. Every later write of the job names its lease token, so a holder whose lease ran out (and was
 * taken over) changes nothing.
 *
 * A job row is deleted when its job is done (`complete`), unless the row is the thing the job works on (a data
 * subject request): then `due` names the rows still to be worked on, and the job settles the row itself, with
 * `lease = <token>` in its statement's condition.
 */
export class LeasedJobTable<R extends { id: string; attempts: number }> {
  private readonly due: string;
  private readonly errorColumn: string | null;

  constructor(
    private readonly db: Sql,
    /** Schema-qualified table name. */
    private readonly table: string,
    /** The select list of a claimed row (without `lease`). */
    private readonly columns: string,
    opts: {
      /** A condition a row must meet to be claimed besides being due (`status = 'pending'`). */
      due?: string;
      /** A text column that keeps why the last try failed (`retryLater`'s `error`). */
      errorColumn?: string;
    } = {},
  ) {
    this.due = opts.due ? ` AND (${opts.due})` : '';
    this.errorColumn = opts.errorColumn ?? null;
  }

  /** Up to `limit` due jobs (of `kinds` when given), oldest due first, each leased for `leaseMs`. */
  async claim(limit: number, leaseMs: number, kinds?: readonly string[]): Promise<Array<Leased<R>>> {
    const ofKinds = kinds ? ' AND kind = ANY($4::text[])' : '';
    return this.db.rows<Leased<R>>(
      `UPDATE ${this.table} j SET lease = $1, leased_at = now(), run_after = now() + make_interval(secs => $2::double precision / 1000)
         FROM (SELECT id FROM ${this.table} WHERE run_after <= now()${this.due}${ofKinds}
                ORDER BY run_after, id LIMIT $3 FOR UPDATE SKIP LOCKED) due
        WHERE j.id = due.id
       RETURNING ${this.columns
         .split(',')
         .map((c) => `j.${c.trim()}`)
         .join(', ')}, j.lease`,
      [randomUUID(), leaseMs, limit, ...(kinds ? [kinds] : [])],
    );
  }

  /** Keeps the lease another `leaseMs` from now; false when it is no longer this holder's. */
  async renew(job: Leased<R>, leaseMs: number): Promise<boolean> {
    const rows = await this.db.rows(`UPDATE ${this.table} SET run_after = now() + make_interval(secs => $3::double precision / 1000) WHERE id = $1 AND lease = $2 RETURNING 1`, [
      job.id,
      job.lease,
      leaseMs,
    ]);
    return rows.length === 1;
  }

  /**
   * In the transaction that commits a job's result: locks its row if this holder still has the lease. False when
   * the lease was lost (run out and taken over, or the job settled): the caller writes nothing.
   */
  async holds(q: Queryable, job: Leased<R>): Promise<boolean> {
    return (await q.rows(`SELECT 1 FROM ${this.table} WHERE id = $1 AND lease = $2 FOR UPDATE`, [job.id, job.lease])).length === 1;
  }

  /** Ends the job (in the transaction of its result, after `holds`). */
  async complete(q: Queryable, job: Leased<R>): Promise<void> {
    await q.rows(`DELETE FROM ${this.table} WHERE id = $1 AND lease = $2`, [job.id, job.lease]);
  }

  /** Counts a failed try (`error`: why, where the table keeps it) and makes the job due again in `delayMs`, free for any process. */
  async retryLater(job: Leased<R>, delayMs: number, error?: string): Promise<void> {
    const noted = this.errorColumn ? `, ${this.errorColumn} = $4` : '';
    await this.db.rows(
      `UPDATE ${this.table} SET attempts = attempts + 1, lease = NULL, leased_at = NULL, run_after = now() + make_interval(secs => $3::double precision / 1000)${noted}
        WHERE id = $1 AND lease = $2`,
      [job.id, job.lease, delayMs, ...(this.errorColumn ? [error ?? null] : [])],
    );
  }
}

/** One kind of background job, as `JobWorker` runs it. */
export interface JobDefinition<J> {
  /** The queue's name in logs. */
  readonly name: string;
  /** What the log lines call one job ("job" unless given): "<label> failed; will retry", "<label> given up". */
  readonly label?: string;
  /** Up to `limit` due jobs, each leased, the claim committed; none when nothing is due. */
  claim(limit: number): Promise<J[]>;
  /** Does the job, committing its result with a check that the lease is still held. */
  run(job: J): Promise<void>;
  /** Keeps the lease (called every third of `leaseMs` while the job works); false when lost. */
  renew?: { leaseMs: number; renew(job: J): Promise<boolean> };
  /**
   * What follows a failed run. Without it, the job records its own outcomes (as a webhook attempt does in its
   * ledger): a failure is logged and the job left to its lease.
   */
  failure?: {
    readonly retry: RetryPolicy;
    /** Failed tries before this one. */
    attempts(job: J): number;
    /** Counts a failed try; the job is due again after `delayMs`. */
    retryLater(job: J, delayMs: number, err: unknown): Promise<void>;
    /** Settles a job that will not be tried again (a permanent failure, or the retries used up). */
    giveUp(job: J, err: unknown): Promise<void>;
    /** Whether another try may help (default: `isPassingFailure`). */
    passing?(err: unknown): boolean;
  };
  /** What the log lines about a job name of it (its id, its kind). */
  logFields?(job: J): Record<string, unknown>;
}

export interface JobWorkerOptions {
  /** How often the worker looks for due jobs besides when kicked. */
  everyMs: number;
  /** Jobs of this definition in flight at once per process (1 unless given). */
  slots?: number;
  /**
   * Free slots worth a claim of their own while jobs are in flight (1 unless given): a job ending with this many
   * slots free looks for more at once.
   */
  claimWhenFree?: number;
  /** First look after this long (0: at once). */
  firstAfterMs?: number;
  log: Logger;
  /**
   * `verity_queue_depth{queue}` sampled on scrape: the jobs due and not taken (docs/observability.md), as the
   * definition's table counts them.
   */
  depth?: { queue: string; count: () => Promise<number> };
}

/**
 * Runs one kind of background job in every replica: up to `slots` jobs in flight per process, claimed as slots
 * free up, looking every `everyMs` and at once when kicked. A claimed job holds a lease, renewed while it works, and
 * never a transaction across its calls to other services. A job that throws is tried again after its retry
 * policy's delay while the failure may pass; then, or at once for a permanent failure, it is given up.
 */
export class JobWorker<J> {
  private readonly poller: Poller;
  private readonly slots: Semaphore;
  private readonly claimWhenFree: number;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly def: JobDefinition<J>,
    private readonly opts: JobWorkerOptions,
  ) {
    this.slots = new Semaphore(opts.slots ?? 1);
    this.claimWhenFree = Math.min(opts.claimWhenFree ?? 1, this.slots.size);
    this.poller = new Poller(() => this.fill(), opts.everyMs, (err) => opts.log.warn({ err, queue: def.name }, 'job pass failed; the next one tries again'));
  }

  start(): void {
    const d = this.opts.depth;
    if (d) addScrapeSampler(async () => metrics.queueDepth.set({ queue: d.queue }, await d.count()));
    this.poller.start(this.opts.firstAfterMs ?? 0);
  }

  /** True once stopping: a long job may check it between steps. */
  get stopping(): boolean {
    return this.poller.stopping;
  }

  /** Looks for due jobs now (or right after the pass under way). */
  kick(): void {
    this.poller.kick();
  }

  /** Takes no other job and waits for those in flight. */
  async stop(): Promise<void> {
    await this.poller.stop();
    await Promise.allSettled([...this.running]);
  }

  /** Claims one due job and runs it to its end; false when none was due. For tests and tools. */
  async runNext(): Promise<boolean> {
    const [job] = await this.def.claim(1);
    if (job === undefined) return false;
    await this.runClaimed(job);
    return true;
  }

  /** Fills the free slots with claims until nothing more is due. */
  private async fill(): Promise<void> {
    for (;;) {
      const free = this.slots.size - this.slots.inUse;
      if (free === 0 || this.poller.stopping) return;
      const jobs = await this.def.claim(free);
      for (const job of jobs) {
        const release = await this.slots.acquire();
        const p: Promise<void> = this.runClaimed(job)
          .catch((err: unknown) => this.opts.log.warn({ err, queue: this.def.name, ...this.def.logFields?.(job) }, 'job failed; left to its lease'))
          .finally(() => {
            release();
            this.running.delete(p);
            if (this.slots.size - this.slots.inUse >= this.claimWhenFree) this.poller.kick();
          });
        this.running.add(p);
      }
      if (jobs.length < free) return;
    }
  }

  private async runClaimed(job: J): Promise<void> {
    const def = this.def;
    const renew = def.renew;
    // a job that keeps no lease and records its own outcomes (a webhook attempt): nothing to add around it
    if (!renew && !def.failure) return def.run(job);
    let renewing: Promise<unknown> = Promise.resolve();
    const timer = renew
      ? setInterval(() => {
          renewing = renew.renew(job).catch((err: unknown) => this.opts.log.warn({ err, queue: def.name, ...def.logFields?.(job) }, 'job lease not renewed'));
        }, renew.leaseMs / 3)
      : null;
    timer?.unref();
    let failure: { err: unknown } | null = null;
    try {
      await def.run(job);
    } catch (err) {
      failure = { err };
    } finally {
      if (timer) clearInterval(timer);
      await renewing;
    }
    if (!failure) return;
    const { err } = failure;
    const f = def.failure;
    if (!f) throw err;
    const fields = { queue: def.name, ...def.logFields?.(job) };
    const failures = f.attempts(job) + 1;
    const delay = (f.passing ?? isPassingFailure)(err) ? retryDelay(f.retry, failures) : null;
    if (delay !== null) {
      this.opts.log.warn({ err, ...fields, attempt: failures }, `${def.label ?? 'job'} failed; will retry`);
      await f.retryLater(job, delay, err);
      return;
    }
    this.opts.log.error({ err, ...fields, attempt: failures }, `${def.label ?? 'job'} given up`);
    await f.giveUp(job, err);
  }
}

/**
 * Housekeeping on a timer (expiry, settling): a pass of conditional statements every `everyMs`, safe in every
 * replica at once because each statement changes only what is still due (`FOR UPDATE SKIP LOCKED`, or a condition
 * on the row's state). A failed pass is logged; the next one tries again.
 */
export class Sweep {
  private readonly poller: Poller;

  constructor(
    readonly name: string,
    pass: () => Promise<void>,
    private readonly opts: { everyMs: number; firstAfterMs?: number; log: Logger },
  ) {
    this.poller = new Poller(pass, opts.everyMs, (err) => opts.log.warn({ err, sweep: name }, `${name} failed; the next pass tries again`));
  }

  start(): void {
    this.poller.start(this.opts.firstAfterMs ?? 0);
  }

  /** True once stopping: a pass checks it between batches. */
  get stopping(): boolean {
    return this.poller.stopping;
  }

  kick(): void {
    this.poller.kick();
  }

  stop(): Promise<void> {
    return this.poller.stop();
  }
}

/**
 * The lifecycle every job class (`*.job.ts`) shares: its runner (a `JobWorker` or a `Sweep`) starts with the
 * application, takes no new work once it shuts down and lets what is in flight finish, and `kick` looks for due
 * work now rather than at the next pass.
 */
export abstract class JobHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  protected abstract readonly runner: { start(): void; stop(): Promise<void>; kick(): void };

  onApplicationBootstrap(): void {
    this.runner.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.runner.stop();
  }

  kick(): void {
    this.runner.kick();
  }
}
