import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { addScrapeSampler, metrics, Sql } from '@verity/platform';

/**
 * The webhook attempts due and not yet taken (`verity_queue_depth{queue="webhook_attempts"}`), counted in
 * Postgres when Prometheus scrapes (at most once a second) with the partial index `deliveries_pending_due_idx`.
 */
@Injectable()
export class WebhookMetricsSamplers implements OnApplicationBootstrap {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  onApplicationBootstrap(): void {
    addScrapeSampler(async () => {
      const [r] = await this.db.rows<{ due: string }>(`SELECT count(*) AS due FROM webhook_delivery.deliveries WHERE status = 'pending' AND next_attempt_at <= now()`);
      metrics.queueDepth.set({ queue: 'webhook_attempts' }, Number(r?.due ?? 0));
    });
  }
}
