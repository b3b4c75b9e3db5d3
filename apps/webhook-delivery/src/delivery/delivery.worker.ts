import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { newId } from '@verity/keys';
import { LOGGER, type Logger } from '@verity/platform';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { WEBHOOK_CONFIG, type WebhookConfig } from '../config.js';
import { SecretBox } from '../subscriptions/secret-box.js';
import { DeliveriesRepository, type AttemptOutcome, type ClaimRequest, type ClaimResult } from './deliveries.repository.js';
import { queuePrefix, WEBHOOK_BACKOFF, WEBHOOK_QUEUE, type DeliverJobData } from './delivery.queue.js';
import { MicroBatch } from './micro-batch.js';
import { ReceiverClient, type AttemptErrorCode } from './receiver.client.js';
import { maxAttempts, retryDelayAfter } from './retry-schedule.js';
import { signedHeaders } from './signing.js';

/** A job holds its lock this long (renewed at half of it while it runs): a crashed worker's jobs come back after it. */
const LOCK_DURATION_MS = 20_000;
/** How often the worker looks for jobs whose lock expired (their worker died). */
const STALLED_INTERVAL_MS = 10_000;
/** Claims and outcomes are written in batches of up to this many. */
const SQL_BATCH = 256;
/** Backoff of a job that failed for another reason than its receiver (e.g. Postgres away). */
const INTERNAL_RETRY_MS = 5000;

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

/**
 * Sends webhook attempts. Each job claims its delivery's next attempt in Postgres (the attempt row exists
 * before the request leaves), signs the stored body with the subscription's secret(s), POSTs it through the
 * SSRF-guarded client, records the outcome, and then either completes, rethrows for BullMQ to retry after
 * the schedule's delay, or fails for good (UnrecoverableError) when the round is used up or the destination
 * is refused.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private worker: Worker<DeliverJobData, void> | null = null;
  private redis: Redis | null = null;
  private readonly max: number;
  private readonly ledger: MicroBatch<ClaimRequest | AttemptOutcome, ClaimResult | null>;
  private readonly secrets = new Map<string, string>();

  constructor(
    private readonly repo: DeliveriesRepository,
    private readonly client: ReceiverClient,
    private readonly box: SecretBox,
    @Inject(WEBHOOK_CONFIG) private readonly cfg: WebhookConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.max = maxAttempts(cfg.WEBHOOK_RETRY_SCHEDULE);
    // claims and outcomes share one statement, one at a time: under load the batches grow, not the statements
    this.ledger = new MicroBatch(
      async (ops) => {
        const claims = ops.filter((op): op is ClaimRequest => 'attemptId' in op && !('status' in op));
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
    await this.worker?.close().catch(() => undefined);
    this.redis?.disconnect();
    await this.client.close().catch(() => undefined);
  }

  async process(job: Job<DeliverJobData, void>, token?: string): Promise<void> {
    const claim = (await this.ledger.add({ deliveryId: job.data.deliveryId, round: job.data.round, attemptId: newId('webhookAttempt') }))!;
    if (claim.kind === 'stale') return;
    if (claim.kind === 'leased') {
      // another attempt of this delivery is in flight (or was, in a process that died): come back after its lease
      await job.moveToDelayed(claim.until.getTime() + 250, token);
      throw new DelayedError();
    }
    const secrets = [this.open(claim.secretSealed, claim.subscriptionId)];
    if (claim.previousSecretSealed) secrets.push(this.open(claim.previousSecretSealed, claim.subscriptionId));
    const headers = signedHeaders(secrets, claim.eventId, Math.floor(Date.now() / 1000), claim.body);
    const result = await this.client.post(claim.url, { ...headers }, claim.body);
    // a refused destination is not retried: the address check would refuse it again
    const retryDelayMs = result.ok || result.errorCode === 'blocked_destination' ? null : retryDelayAfter(this.cfg.WEBHOOK_RETRY_SCHEDULE, claim.attemptInRound);
    await this.ledger.add({
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
    if (result.ok) return;
    if (retryDelayMs !== null) throw new RetryLater(retryDelayMs, result.errorCode);
    throw new UnrecoverableError(`delivery failed at attempt ${claim.attempt} (${result.errorCode})`);
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
