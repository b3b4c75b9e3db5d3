import { Inject, Injectable } from '@nestjs/common';
import type { WebhookReplayRequest, WebhookReplayResult } from '@verity/contracts';
import { DomainError, type Issue } from '@verity/errors';
import { isId } from '@verity/keys';
import { WEBHOOK_CONFIG, type WebhookConfig } from '../config.js';
import { SubscriptionsRepository } from '../subscriptions/subscriptions.repository.js';
import { DeliveriesRepository } from './deliveries.repository.js';
import { DeliveryQueue } from './delivery.queue.js';
import { maxAttempts } from './retry-schedule.js';

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const QUEUE_CHUNK = 1000;

/**
 * Replay (operator): the matching deliveries start a new round of attempts at once, with the same
 * delivery id and the same `webhook-id`, so receivers that already processed them drop the copy. Attempt
 * numbers keep counting; each round has the schedule's full number of attempts. Deliveries of disabled
 * subscriptions are not replayed; an event is replayed only to subscriptions it was delivered to.
 */
@Injectable()
export class ReplayService {
  private readonly max: number;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly queue: DeliveryQueue,
    @Inject(WEBHOOK_CONFIG) cfg: WebhookConfig,
  ) {
    this.max = maxAttempts(cfg.WEBHOOK_RETRY_SCHEDULE);
  }

  async replay(req: WebhookReplayRequest): Promise<WebhookReplayResult> {
    const r = req ?? {};
    const issues: Issue[] = [];
    const selectors = (['event_id', 'session_id', 'since'] as const).filter((k) => r[k] !== undefined);
    if (selectors.length !== 1) {
      issues.push({ code: 'invalid_value', message: 'give exactly one of event_id, session_id, since', path: [selectors[1] ?? 'event_id'] });
    }
    let since: Date | undefined;
    if (r.since !== undefined) {
      if (typeof r.since !== 'string' || !ISO_WITH_OFFSET.test(r.since) || Number.isNaN(Date.parse(r.since))) {
        issues.push({ code: 'invalid_value', message: 'since must be an ISO 8601 date-time with an offset, e.g. 2026-11-22T09:00:00Z', path: ['since'] });
      } else since = new Date(r.since);
      if (r.subscription_id === undefined && r.org_id === undefined) {
        issues.push({ code: 'invalid_value', message: 'since needs subscription_id or org_id', path: ['since'] });
      }
    }
    for (const k of ['event_id', 'session_id', 'subscription_id', 'org_id'] as const) {
      const v = r[k];
      if (v !== undefined && (typeof v !== 'string' || v.length === 0 || v.length > 100)) issues.push({ code: 'invalid_value', message: `${k} must be an id`, path: [k] });
    }
    if (issues.length > 0) throw DomainError.validation(issues);
    if (r.subscription_id !== undefined && !(isId('webhookSubscription', r.subscription_id) && (await this.subscriptions.find(r.subscription_id)))) {
      throw DomainError.notFound('subscription_id');
    }
    const due = await this.deliveries.replay(
      { eventId: r.event_id, sessionId: r.session_id, since, subscriptionId: r.subscription_id, orgId: r.org_id },
      this.max,
    );
    for (let i = 0; i < due.length; i += QUEUE_CHUNK) await this.queue.enqueue(due.slice(i, i + QUEUE_CHUNK));
    return { object: 'webhook_replay', replayed: due.length, delivery_ids: due.slice(0, 100).map((d) => d.id) };
  }
}
