import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { newId } from '@verity/keys';
import { LOGGER, metrics, MicroBatch, type Logger } from '@verity/platform';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { WEBHOOK_CONFIG, type WebhookConfig } from '../config.js';
import { SecretBox } from '../subscriptions/secret-box.js';
import { DeliveriesRepository, LEASE_MS, type AttemptOutcome, type ClaimedAttempt, type ClaimRequest, type ClaimResult } from './deliveries.repository.js';
import { Permits } from './permits.js';
import { DeliveryQueue, queuePrefix, WEBHOOK_BACKOFF, WEBHOOK_QUEUE, type DeliverJobData } from './delivery.queue.js';
import type { AttemptErrorCode } from './receiver.client.js';
import { SenderThread } from './sender.js';
import { ATTEMPT_TIMEOUT_MS, maxAttempts, retryDelayAfter } from './retry-schedule.js';
import { signingKey } from './signing.js';

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
/**
 * First attempts fan-out may claim per slot: in flight, waiting for a slot, or still inside fan-out's
 * statement (so that the slots stay busy while fan-out writes the next batch). Beyond that events wait in
 * the stream, and after ROOM_WAIT_MS without an attempt ending they are queued in Redis.
 */
const CLAIMS_PER_SLOT = 4;
/** How long fan-out waits for room when every claim is taken, before it queues the excess in Redis. */
const ROOM_WAIT_MS = 1000;
/**
 * A claimed first attempt not started within this is given back (and queued), so that it ends within its
 * lease: at most this long waiting for a slot, then at most the attempt timeout (10 s) in flight.
 */
const START_WITHIN_MS = LEASE_MS - ATTEMPT_TIMEOUT_MS - 2000;

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
 * Sends webhook attempts: first attempts at once, claimed by fan-out in the statement that wrote their
 * deliveries (`start`), and retries and everything the sweeper or a replay queues through BullMQ. A queued
 * job completes, rethrows for BullMQ to retry after the schedule's delay, or fails for good
 * (UnrecoverableError) when the round is used up or the destination is refused.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /**
   * Room for first attempts: fan-out takes a permit per event it takes (and per delivery it claims), and the
   * attempt gives it back when it ends. Up to `WEBHOOK_CONCURRENCY` claimed attempts run side by side.
   */
  readonly permits: Permits;
  private worker: Worker<DeliverJobData, void> | null = null;
  private redis: Redis | null = null;
  private readonly max: number;
  private readonly ledger: MicroBatch<ClaimRequest | AttemptOutcome, ClaimResult | null>;
  /** Signing keys by sealed secret: opened and decoded once. */
  private readonly keys = new Map<string, Buffer>();
  /** Outcomes of successful attempts still being written, and claims being given back. */
  private readonly outcomes = new Set<Promise<void>>();
  /** First attempts in flight outside the queue. */
  private readonly directs = new Set<Promise<void>>();
  /** Claimed first attempts waiting for a slot, each with the time by which it must start. */
  private waiting: Array<{ claim: ClaimedAttempt; startBy: number }> = [];
  private closing = false;
  /** Resolved once fan-out hands over no more claims (it stops first; see `intakeStopped`). */
  private readonly intake: Promise<void>;
  private endIntake!: () => void;

  constructor(
    private readonly repo: DeliveriesRepository,
    private readonly client: SenderThread,
    private readonly box: SecretBox,
    private readonly queue: DeliveryQueue,
    @Inject(WEBHOOK_CONFIG) private readonly cfg: WebhookConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.intake = new Promise<void>((resolve) => (this.endIntake = resolve));
    this.max = maxAttempts(cfg.WEBHOOK_RETRY_SCHEDULE);
    this.permits = new Permits(cfg.WEBHOOK_CONCURRENCY * CLAIMS_PER_SLOT, ROOM_WAIT_MS);
    // claims and outcomes are written in batches, one batch at a time: under load the batches grow, not the statements
    this.ledger = new MicroBatch(
      async (ops) => {
        const claims = ops.filter((op): op is ClaimRequest => !('status' in op));
        const outcomes = ops.filter((op): op is AttemptOutcome => 'status' in op);
        // outcomes first: a lease they give up is free for a claim in the same batch
        await this.repo.record(outcomes);
        const results = await this.repo.claim(claims, this.max);
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

  /** Fan-out has stopped taking events and handed over its last claims. */
  intakeStopped(): void {
    this.endIntake();
  }

  async beforeApplicationShutdown(): Promise<void> {
    // shutdown hooks run side by side: fan-out's last batches may still hand over claims until it has stopped
    await this.intake;
    // lets attempts in flight finish and be recorded; claims still waiting for a slot are given back and queued
    this.closing = true;
    this.giveBack(this.waiting.splice(0).map((w) => w.claim));
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
   * First attempts that fan-out claimed (each holding one of `permits`), sent at once rather than through a
   * trip to the queue: the common case, a receiver that answers 2xx, never touches Redis. They run up to
   * `WEBHOOK_CONCURRENCY` side by side, the others wait for a slot; one that cannot start in time, or that
   * arrives while the process stops, is given back and queued. A failed attempt with retries left is queued
   * for its retry. Should the process die first, the delivery's lease runs out and the sweeper records the
   * attempt as interrupted and queues the delivery.
   */
  start(claims: ClaimedAttempt[]): void {
    if (this.closing) {
      this.giveBack(claims);
      return;
    }
    const startBy = Date.now() + START_WITHIN_MS;
    for (const claim of claims) this.waiting.push({ claim, startBy });
    this.pump();
  }

  /** Starts waiting first attempts while slots are free; gives back those that waited too long. */
  private pump(): void {
    const late: ClaimedAttempt[] = [];
    while (!this.closing && this.directs.size < this.cfg.WEBHOOK_CONCURRENCY && this.waiting.length > 0) {
      const { claim, startBy } = this.waiting.shift()!;
      if (Date.now() > startBy) {
        late.push(claim);
        continue;
      }
      const p: Promise<void> = this.direct(claim).finally(() => {
        this.directs.delete(p);
        this.permits.release();
        this.pump();
      });
      this.directs.add(p);
    }
    if (late.length > 0) this.giveBack(late);
  }

  private async direct(claim: ClaimedAttempt): Promise<void> {
    try {
      const step = await this.send(claim);
      if (step.kind === 'retry') {
        await this.queue.enqueue([{ id: claim.deliveryId, round: claim.round, remaining: step.remaining, next_attempt_at: new Date(Date.now() + step.delayMs) }]);
      }
    } catch (err) {
      // the outcome was not recorded (Postgres away or the like): the lease runs out and the sweeper takes over
      this.log.warn({ err, delivery: claim.deliveryId }, 'first attempt not recorded; the sweeper will close it');
    }
  }

  /** Claims never sent: uncounted and queued again (should that fail, the sweeper finds them once their lease ends). */
  private giveBack(claims: ClaimedAttempt[]): void {
    if (claims.length === 0) return;
    this.track(
      this.repo
        .release(claims.map((c) => ({ deliveryId: c.deliveryId, attempt: c.attempt })), this.max)
        .then((due) => this.queue.enqueue(due))
        .finally(() => this.permits.release(claims.length)),
    );
  }

  /** A queued attempt: claims the delivery's next attempt in Postgres (its lease), then sends it. */
  private async attempt(deliveryId: string, round: number): Promise<Step> {
    const claim = (await this.ledger.add({ deliveryId, round, interruptedAttemptId: newId('webhookAttempt') }))!;
    if (claim.kind === 'stale') return { kind: 'done' };
    if (claim.kind === 'leased') return claim;
    return this.send(claim);
  }

  /**
   * One claimed attempt: has the sender sign the stored body with the subscription's secret(s) and POST it
   * through the SSRF-guarded client, and records the outcome (the attempt's row in the log, and the lease given up).
   */
  private async send(claim: ClaimedAttempt): Promise<Step> {
    const keys = [this.key(claim.secretSealed, claim.subscriptionId)];
    if (claim.previousSecretSealed) keys.push(this.key(claim.previousSecretSealed, claim.subscriptionId));
    const result = await this.client.send({ url: claim.url, eventId: claim.eventId, body: claim.body, keys });
    // a refused destination is not retried: the address check would refuse it again
    const retryDelayMs = result.ok || result.errorCode === 'blocked_destination' ? null : retryDelayAfter(this.cfg.WEBHOOK_RETRY_SCHEDULE, claim.attemptInRound);
    metrics.webhookDeliveries.inc({ outcome: result.ok ? 'delivered' : retryDelayMs !== null ? 'retry_scheduled' : 'failed' });
    metrics.webhookDuration.observe(result.latencyMs / 1000);
    const recorded = this.ledger.add({
      attemptId: newId('webhookAttempt'),
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
      // next ledger batch. Until then the delivery is leased; should the process die first, the sweeper logs
      // the attempt as interrupted and the delivery goes again.
      this.track(recorded);
      return { kind: 'done' };
    }
    // a retry is queued only once the lease is given up, or its claim would find the delivery still leased
    await recorded;
    if (retryDelayMs !== null) return { kind: 'retry', delayMs: retryDelayMs, errorCode: result.errorCode, remaining: this.max - claim.attemptInRound };
    return { kind: 'failed', attempt: claim.attempt, errorCode: result.errorCode };
  }

  private track(work: Promise<unknown>): void {
    const p: Promise<void> = work.then(
      () => undefined,
      (err: unknown) => this.log.warn({ err }, 'ledger write failed; the sweeper will close the attempt'),
    );
    this.outcomes.add(p);
    void p.finally(() => this.outcomes.delete(p));
  }

  private key(sealed: string, subscriptionId: string): Buffer {
    let k = this.keys.get(sealed);
    if (k === undefined) {
      k = signingKey(this.box.open(sealed, subscriptionId));
      if (this.keys.size >= 10_000) this.keys.clear();
      this.keys.set(sealed, k);
    }
    return k;
  }
}
