import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { LOGGER, type Logger } from '@verity/platform';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { WEBHOOK_CONFIG, type WebhookConfig } from '../config.js';
import type { DueDelivery } from './deliveries.repository.js';

/** The queue of webhook attempts, under the region's Redis prefix: `<REDIS_KEY_PREFIX>bull:webhooks:*`. */
export const WEBHOOK_QUEUE = 'webhooks';
export const DELIVER_JOB = 'deliver';
/** The backoff type whose delays come from WEBHOOK_RETRY_SCHEDULE (see DeliveryWorker). */
export const WEBHOOK_BACKOFF = 'webhook-schedule';
/** How long fan-out and the sweeper wait for Redis before leaving a delivery to the next sweep. */
const ENQUEUE_TIMEOUT_MS = 3000;

/** One job per delivery and round of attempts; BullMQ retries it through the round. */
export interface DeliverJobData {
  deliveryId: string;
  round: number;
}

export function queuePrefix(cfg: Pick<WebhookConfig, 'REDIS_KEY_PREFIX'>): string {
  return `${cfg.REDIS_KEY_PREFIX}bull`;
}

/** A job id per delivery and round, so that queuing a delivery twice (fan-out again, sweeper) queues it once. */
export function jobIdOf(deliveryId: string, round: number): string {
  return `${deliveryId}.r${round}`;
}

/**
 * Schedules attempts in BullMQ. Postgres holds the truth; this only says when to try. Adding is
 * idempotent by job id; while Redis is away it fails fast and the sweeper queues the delivery later.
 */
@Injectable()
export class DeliveryQueue implements OnApplicationShutdown {
  readonly queue: Queue<DeliverJobData, void, typeof DELIVER_JOB>;
  private readonly redis: Redis;

  constructor(
    @Inject(WEBHOOK_CONFIG) cfg: WebhookConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.redis = new Redis(cfg.REDIS_URL, {
      connectionName: `webhook-delivery-queue-${cfg.REGION}`,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(100 * times, 1000),
    });
    this.redis.on('error', () => undefined);
    this.queue = new Queue<DeliverJobData, void, typeof DELIVER_JOB>(WEBHOOK_QUEUE, { connection: this.redis, prefix: queuePrefix(cfg) });
    this.queue.on('error', (err) => this.log.warn({ err }, 'webhook queue error'));
  }

  /** Queues each delivery at its due time; true when Redis took them all. */
  async enqueue(due: DueDelivery[]): Promise<boolean> {
    if (due.length === 0) return true;
    const now = Date.now();
    const jobs = due.map((d) => ({
      name: DELIVER_JOB as typeof DELIVER_JOB,
      data: { deliveryId: d.id, round: d.round },
      opts: {
        jobId: jobIdOf(d.id, d.round),
        delay: Math.max(0, d.next_attempt_at.getTime() - now),
        attempts: Math.max(1, d.remaining),
        backoff: { type: WEBHOOK_BACKOFF },
        removeOnComplete: true,
        removeOnFail: true,
      },
    }));
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.queue.addBulk(jobs),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('Redis did not answer')), ENQUEUE_TIMEOUT_MS);
        }),
      ]);
      return true;
    } catch (err) {
      this.log.warn({ err, deliveries: due.length }, 'could not queue deliveries; the sweeper will');
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    this.redis.disconnect();
  }
}
