import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { newId } from '@verity/keys';
import { LOGGER, MicroBatch, type Logger } from '@verity/platform';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { WEBHOOK_CONFIG, type WebhookConfig } from '../config.js';
import { SecretBox } from '../subscriptions/secret-box.js';
import { DeliveriesRepository, type AttemptOutcome, type ClaimRequest, type ClaimResult, type DueDelivery } from './deliveries.repository.js';
import { DeliveryQueue, queuePrefix, WEBHOOK_BACKOFF, WEBHOOK_QUEUE, type DeliverJobData } from './delivery.queue.js';
import { ReceiverClient, type AttemptErrorCode } from './receiver.client.js';
import { maxAttempts, retryDelayAfter } from './retry-schedule.js';
import { signedHeaders } from './signing.js';

/** A job holds its lock this long (renewed at half of it while it runs): a crashed worker's jobs come back after it. */
const LOCK_DURATION_MS = 20_000;
/** How often the worker looks for jobs whose lock expired (their worker died). */
const STALLED_INTERVAL_MS = 10_000;
/** How long (seconds) an idle worker blocks waiting for a job before it looks again. */
const DRAIN_DELAY_S = 1;
/** Claims and outcomes are written in batches of up to this many. */
const SQL_BATCH = 256;
/** Backoff of a job that failed for another reason than its receiver (e.g. Postgres away). */
const INTERNAL_RETRY_MS = 5000;
/** First attempts that may wait in memory for a slot, per slot; beyond that they are queued in Redis. */
const BACKLOG_PER_SLOT = 64;

/** Thrown after a failed attempt that has a retry: BullMQ retries the job after `delayMs` (the schedule's). */
export class RetryLater extends Error {
  constructor(
    readonly delayMs: number,
    readonly errorCode: AttemptErrorCode | null,
  ) {
    super(`attempt failed (${errorCode ?? 'unknown'}); retrying in ${delayMs} ms`);
    this.name = 'RetryLater';
  }
}

/** What one attempt leaves to do. */
type Step =
  | { kind: 'done' }
  | { kind: 'leased'; until: Date }
  | { kind: 'retry'; delayMs: number; errorCode: AttemptErrorCode | null; remaining: number }
  | { kind: 'failed'; attempt: number; errorCode: AttemptErrorCode | null };

/**
 * Sends webhook attempts: first attempts at once from fan-out (`attemptNow`), retries and everything the
 * sweeper or a replay queues through BullMQ. A queued job completes, rethrows for BullMQ to retry after the
 * schedule's delay, or fails for good (UnrecoverableError) when the round is used up or the destination is
 * refused.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private worker: Worker<DeliverJobData, void> | null = null;
  private redis: Redis | null = null;
  private readonly max: number;
  private readonly ledger: MicroBatch<ClaimRequest | AttemptOutcome, ClaimResult | null>;
  private readonly secrets = new Map<string, string>();
  /** Outcomes of successful attempts still being written. */
  private readonly outcomes = new Set<Promise<void>>();
  /** First attempts in flight outside the queue, and those waiting for a slot. */
  private readonly directs = new Set<Promise<void>>();
  private backlog: DueDelivery[] = [];
  private closing = false;

  constructor(
    private readonly repo: DeliveriesRepository,
    private readonly client: ReceiverClient,
    private readonly box: SecretBox,
    private readonly queue: DeliveryQueue,
    @Inject(WEBHOOK_CONFIG) private readonly cfg: WebhookConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.max = maxAttempts(cfg.WEBHOOK_RETRY_SCHEDULE);
    // claims and outcomes share one statement, one at a time: under load the batches grow, not the statements
    this.ledger = new MicroBatch(
      async (ops) => {
        const claims = ops.filter((op): op is ClaimRequest => !('status' in op));
        const outcomes = ops.filter((op): op is AttemptOutcome => 'status' in op);
        const results = await this.repo.step(claims, outcomes, this.max);
        let i = 0;
        return ops.map((op) => ('status' in op ? null : results[i++]!));
      },
      SQL_BATCH,
      1,
    );
  }

  onApplicationBootstrap(): void {
    this.redis = new Redis(this.cfg.REDIS_URL, {
      connectionName: `webhook-delivery-worker-${this.cfg.REGION}`,
      maxRetriesPerRequest: null,
      retryStrategy: (times) => Math.min(100 * times, 1000),
    });
    this.redis.on('error', () => undefined);
    this.worker = new Worker<DeliverJobData, void>(WEBHOOK_QUEUE, (job, token) => this.process(job, token), {
      connection: this.redis,
      prefix: queuePrefix(this.cfg),
      concurrency: this.cfg.WEBHOOK_CONCURRENCY,
      lockDuration: LOCK_DURATION_MS,
      stalledInterval: STALLED_INTERVAL_MS,
      // an idle worker looks again at least every second: a retry due while it waits is never late by more
      drainDelay: DRAIN_DELAY_S,
      settings: {
        backoffStrategy: (_attemptsMade, type, err) =>
          type === WEBHOOK_BACKOFF && err instanceof RetryLater ? err.delayMs : INTERNAL_RETRY_MS,
      },
    });
    this.worker.on('error', (err) => this.log.warn({ err }, 'webhook worker error'));
    this.worker.on('failed', (job, err) => {
      if (!(err instanceof RetryLater) && !(err instanceof UnrecoverableError)) this.log.warn({ err, job: job?.id }, 'webhook job failed');
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    // lets attempts in flight finish and be recorded
    this.closing = true;
    // first attempts still waiting go to the queue (or, should Redis be away, to the sweeper)
    await this.queue.enqueue(this.backlog.splice(0));
    await Promise.allSettled([...this.directs]);
    await this.worker?.close().catch(() => undefined);
    await Promise.allSettled([...this.outcomes]);
    this.redis?.disconnect();
    await this.client.close().catch(() => undefined);
  }

  /** A queued job: one attempt, then done, come back after another attempt's lease, retry later or fail for good. */
  async process(job: Job<DeliverJobData, void>, token?: string): Promise<void> {
    const step = await this.attempt(job.data.deliveryId, job.data.round);
    switch (step.kind) {
      case 'done':
        return;
      case 'leased':
        // another attempt of this delivery is in flight (or was, in a process that died): come back after its lease
        await job.moveToDelayed(step.until.getTime() + 250, token);
        throw new DelayedError();
      case 'retry':
        throw new RetryLater(step.delayMs, step.errorCode);
      case 'failed':
        throw new UnrecoverableError(`delivery failed at attempt ${step.attempt} (${step.errorCode})`);
    }
  }

  /**
   * First attempts of deliveries fan-out just wrote, made at once rather than through a trip to the queue
   * (the common case, a receiver that answers 2xx, never touches Redis). Up to `WEBHOOK_CONCURRENCY` run
   * side by side and up to 64 per slot wait in memory for one; what is not due yet, or over that bound, or
   * arrives while the process stops, is returned for the queue. A failed attempt with retries left is queued
   * for its retry. Should the process die before an attempt is recorded, the delivery is still due in Postgres
   * and the sweeper queues it again.
   */
  attemptNow(due: DueDelivery[]): DueDelivery[] {
    const now = Date.now();
    const rest: DueDelivery[] = [];
    const room = this.cfg.WEBHOOK_CONCURRENCY * (1 + BACKLOG_PER_SLOT);
    for (const d of due) {
      if (this.closing || d.next_attempt_at.getTime() > now || this.directs.size + this.backlog.length >= room) rest.push(d);
      else this.backlog.push(d);
    }
    this.pump();
    return rest;
  }

  /** Starts waiting first attempts while slots are free. */
  private pump(): void {
    while (!this.closing && this.directs.size < this.cfg.WEBHOOK_CONCURRENCY && this.backlog.length > 0) {
      const d = this.backlog.shift()!;
      const p: Promise<void> = this.direct(d).finally(() => {
        this.directs.delete(p);
        this.pump();
      });
      this.directs.add(p);
    }
  }

  private async direct(d: DueDelivery): Promise<void> {
    const later = (at: number, remaining: number) => this.queue.enqueue([{ id: d.id, round: d.round, remaining, next_attempt_at: new Date(at) }]);
    try {
      const step = await this.attempt(d.id, d.round);
      if (step.kind === 'retry') await later(Date.now() + step.delayMs, step.remaining);
      else if (step.kind === 'leased') await later(step.until.getTime() + 250, d.remaining);
    } catch (err) {
      // Postgres away or the like: the queue tries again (and the sweeper, should Redis be away too)
      this.log.warn({ err, delivery: d.id }, 'first attempt could not run; queued');
      await later(Date.now() + INTERNAL_RETRY_MS, d.remaining);
    }
  }

  /**
   * One attempt: claims the delivery's next attempt in Postgres (the attempt row exists before the request
   * leaves), signs the stored body with the subscription's secret(s), POSTs it through the SSRF-guarded
   * client and records the outcome.
   */
  private async attempt(deliveryId: string, round: number): Promise<Step> {
    const claim = (await this.ledger.add({ deliveryId, round, attemptId: newId('webhookAttempt') }))!;
    if (claim.kind === 'stale') return { kind: 'done' };
    if (claim.kind === 'leased') return claim;
    const secrets = [this.open(claim.secretSealed, claim.subscriptionId)];
    if (claim.previousSecretSealed) secrets.push(this.open(claim.previousSecretSealed, claim.subscriptionId));
    const headers = signedHeaders(secrets, claim.eventId, Math.floor(Date.now() / 1000), claim.body);
    const result = await this.client.post(claim.url, { ...headers }, claim.body);
    // a refused destination is not retried: the address check would refuse it again
    const retryDelayMs = result.ok || result.errorCode === 'blocked_destination' ? null : retryDelayAfter(this.cfg.WEBHOOK_RETRY_SCHEDULE, claim.attemptInRound);
    const recorded = this.ledger.add({
      attemptId: claim.attemptId,
      deliveryId: claim.deliveryId,
      round: claim.round,
      attempt: claim.attempt,
      status: result.ok ? 'succeeded' : 'failed',
      httpStatus: result.httpStatus,
      latencyMs: result.latencyMs,
      errorCode: result.errorCode,
      retryDelayMs,
    });
    if (result.ok) {
      // Nothing follows a success: the slot is free for the next attempt while the outcome is written with the
      // next ledger batch. Until then the attempt row is in_progress and the delivery leased; should the
      // process die first, the sweeper closes the attempt as interrupted and the delivery goes again.
      this.track(recorded);
      return { kind: 'done' };
    }
    // a retry is queued only once the lease is given up, or its claim would find the delivery still leased
    await recorded;
    if (retryDelayMs !== null) return { kind: 'retry', delayMs: retryDelayMs, errorCode: result.errorCode, remaining: this.max - claim.attemptInRound };
    return { kind: 'failed', attempt: claim.attempt, errorCode: result.errorCode };
  }

  private track(recorded: Promise<unknown>): void {
    const p: Promise<void> = recorded.then(
      () => undefined,
      (err: unknown) => this.log.warn({ err }, 'attempt outcome not recorded; the sweeper will close it'),
    );
    this.outcomes.add(p);
    void p.finally(() => this.outcomes.delete(p));
  }

  private open(sealed: string, subscriptionId: string): string {
    let s = this.secrets.get(sealed);
    if (s === undefined) {
      s = this.box.open(sealed, subscriptionId);
      if (this.secrets.size >= 10_000) this.secrets.clear();
      this.secrets.set(sealed, s);
    }
    return s;
  }
}
