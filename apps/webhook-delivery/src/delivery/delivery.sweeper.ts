import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { newId } from '@verity/keys';
import { LOGGER, type Logger } from '@verity/platform';
import { WEBHOOK_CONFIG, type WebhookConfig } from '../config.js';
import { DeliveriesRepository } from './deliveries.repository.js';
import { DeliveryQueue } from './delivery.queue.js';
import { maxAttempts } from './retry-schedule.js';

const SWEEP_BATCH = 1000;

/**
 * Puts back what a crash or a Redis loss took away: attempts a dead process left without an outcome (their
 * lease ran out) are recorded as failed and their deliveries queued again (or failed, their round used up),
 * and deliveries that are due (by more than the grace period) without being leased are queued again (a no-op
 * for those whose job still exists).
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly max: number;

  constructor(
    private readonly repo: DeliveriesRepository,
    private readonly queue: DeliveryQueue,
    @Inject(WEBHOOK_CONFIG) private readonly cfg: WebhookConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.max = maxAttempts(cfg.WEBHOOK_RETRY_SCHEDULE);
  }

  onApplicationBootstrap(): void {
    this.kick();
    this.timer = setInterval(() => this.kick(), this.cfg.WEBHOOK_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  kick(): void {
    if (this.running) return;
    this.running = this.sweep()
      .catch((err: unknown) => this.log.warn({ err }, 'sweep failed; retrying on the next tick'))
      .finally(() => {
        this.running = null;
      });
  }

  /** One pass. */
  async sweep(): Promise<void> {
    const abandoned = await this.repo.closeAbandoned(this.max, () => newId('webhookAttempt'));
    if (abandoned.closed > 0) this.log.warn({ attempts: abandoned.closed }, 'recorded attempts abandoned by a stopped process as failed');
    if (abandoned.due.length > 0) await this.queue.enqueue(abandoned.due);
    const due = await this.repo.overdue(this.cfg.WEBHOOK_SWEEP_GRACE_MS, this.max, SWEEP_BATCH);
    if (due.length > 0) await this.queue.enqueue(due);
  }
}
