import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  DELIVERED_SESSION_EVENT_TYPES,
  eventStreamName,
  eventSubject,
  subjectRoot,
  type DomainEvent,
} from '@verity/contracts';
import { addScrapeSampler, CONFIG, ensureEventStream, LOGGER, metrics, MicroBatch, NATS, type Logger, type ServiceConfig } from '@verity/platform';
import { WEBHOOK_CONFIG, type WebhookConfig } from '../config.js';
import { DeliveriesRepository, deliveryId, type ClaimedAttempt, type DueDelivery, type NewDelivery } from '../delivery/deliveries.repository.js';
import { DeliveryQueue } from '../delivery/delivery.queue.js';
import { DeliveryWorker } from '../delivery/delivery.worker.js';
import { maxAttempts } from '../delivery/retry-schedule.js';
import { webhookBody } from '../delivery/signing.js';
import { SubscriptionsRepository, type MatchRow } from '../subscriptions/subscriptions.repository.js';

/** The durable consumer of the region's event stream: one per region, shared by the replicas. */
export const FANOUT_CONSUMER = 'webhook-delivery';
const NANOS_PER_MS = 1_000_000;
const ACK_WAIT_MS = 30_000;
const MAX_ACK_PENDING = 2000;
/** A batch that failed (Postgres away) is redelivered after this long. */
const NAK_DELAY_MS = 1000;

/** Checks the fields fan-out relies on; anything else in an event is ignored. */
export function parseDomainEvent(data: unknown): DomainEvent | null {
  const e = data as Partial<DomainEvent> | null;
  if (!e || typeof e !== 'object') return null;
  const d = e.data as Partial<DomainEvent['data']> | undefined;
  if (typeof e.id !== 'string' || e.id.length === 0 || e.id.length > 100) return null;
  if (typeof e.type !== 'string' || typeof e.org_id !== 'string' || (e.mode !== 'test' && e.mode !== 'live')) return null;
  if (typeof e.timestamp !== 'string' || Number.isNaN(Date.parse(e.timestamp))) return null;
  if (!d || typeof d !== 'object' || typeof d.sessionId !== 'string') return null;
  return e as DomainEvent;
}

/**
 * The deliveries an event makes: one per active subscription of the event's organization AND mode (a
 * test-mode event never reaches a live endpoint, nor the reverse) that lists the event's type and existed
 * when the event occurred. Reserved types are never delivered.
 */
export function matchDeliveries(event: DomainEvent, subscriptions: MatchRow[]): NewDelivery[] {
  if (!DELIVERED_SESSION_EVENT_TYPES.includes(event.type)) return [];
  const at = Date.parse(event.timestamp);
  const body = webhookBody(event);
  return subscriptions
    .filter((s) => s.org_id === event.org_id && s.mode === event.mode && s.event_types.includes(event.type) && s.created_at.getTime() <= at)
    .map((s) => ({
      id: deliveryId(event.id, s.id),
      event_id: event.id,
      subscription_id: s.id,
      org_id: event.org_id,
      mode: event.mode,
      event_type: event.type,
      session_id: event.data.sessionId,
      body,
    }));
}

/** An event taken from the stream, with the permit (room for one first attempt) taken for it, if any. */
interface Taken {
  event: DomainEvent;
  permit: boolean;
}

/**
 * Fan-out: a durable JetStream consumer takes each event of the region's stream, creates its deliveries
 * idempotently in Postgres (one per event and subscription: its id is derived from the two), and only then
 * acknowledges the message.
 * The same statement claims the first attempts the worker has room for, which start at once; the others
 * are queued in BullMQ before the acknowledgement. Events are taken as room frees up (the stream holds the
 * rest), and after a second without room the excess goes to the queue. A message redelivered after a crash
 * finds its deliveries and queues those still pending; an attempt lost with a dead process is closed and
 * queued by the sweeper.
 */
@Injectable()
export class EventFanout implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly root: string;
  private messages: ConsumerMessages | null = null;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly batch: MicroBatch<Taken, void>;
  private readonly max: number;

  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(CONFIG) service: ServiceConfig,
    @Inject(WEBHOOK_CONFIG) private readonly cfg: WebhookConfig,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly queue: DeliveryQueue,
    private readonly worker: DeliveryWorker,
  ) {
    this.root = subjectRoot(service.REGION, service.NATS_SUBJECT_PREFIX);
    this.max = maxAttempts(cfg.WEBHOOK_RETRY_SCHEDULE);
    this.batch = new MicroBatch((taken) => this.fanOut(taken), 500);
  }

  async onApplicationBootstrap(): Promise<void> {
    const stream = eventStreamName(this.root);
    const jsm = await jetstreamManager(this.nc);
    await ensureEventStream(this.nc, this.root, {
      duplicateWindowMs: this.cfg.EVENTS_DUPLICATE_WINDOW_MS,
      maxAgeMs: this.cfg.EVENTS_MAX_AGE_MS,
      replicas: this.cfg.EVENTS_STREAM_REPLICAS,
    });
    try {
      await jsm.consumers.info(stream, FANOUT_CONSUMER);
    } catch {
      await jsm.consumers.add(stream, {
        durable_name: FANOUT_CONSUMER,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: eventSubject(this.root, '>'),
        ack_wait: ACK_WAIT_MS * NANOS_PER_MS,
        max_ack_pending: MAX_ACK_PENDING,
      });
    }
    const consumer = await jetstream(this.nc).consumers.get(stream, FANOUT_CONSUMER);
    // the stream's events this region has not yet fanned out: not yet delivered, or delivered and not acknowledged
    addScrapeSampler(async () => {
      const info = await consumer.info();
      metrics.streamPending.set({ consumer: FANOUT_CONSUMER }, info.num_pending + info.num_ack_pending);
    });
    this.messages = await consumer.consume({ max_messages: 500 });
    this.loop = this.consume(this.messages);
  }

  async beforeApplicationShutdown(): Promise<void> {
    // stop taking events; those taken are fanned out and acknowledged (or redelivered to the next process)
    try {
      await this.messages?.close().catch(() => undefined);
      await this.loop;
      await Promise.allSettled([...this.inFlight]);
    } finally {
      this.worker.intakeStopped();
    }
  }

  private async consume(messages: ConsumerMessages): Promise<void> {
    for await (const m of messages) {
      // backpressure: an event is taken when the worker has room for its first attempt, or after the wait
      const permit = await this.worker.permits.acquire();
      const p = this.handle(m, permit);
      this.inFlight.add(p);
      void p.finally(() => this.inFlight.delete(p));
    }
  }

  private async handle(m: JsMsg, permit: boolean): Promise<void> {
    let event: DomainEvent | null = null;
    try {
      event = parseDomainEvent(m.json());
    } catch {
      event = null;
    }
    if (!event) {
      this.log.warn({ subject: m.subject, seq: m.seq }, 'not a domain event; dropped');
      if (permit) this.worker.permits.release();
      m.term('not a domain event');
      return;
    }
    try {
      await this.batch.add({ event, permit });
      m.ack();
    } catch (err) {
      this.log.warn({ err, event_id: event.id }, 'fan-out failed; the event will be redelivered');
      m.nak(NAK_DELAY_MS);
    }
  }

  /**
   * One batch of events: their subscriptions, their deliveries (one statement, which claims the first
   * attempts there is room for), the claimed attempts started and the rest queued. Permits not used for a
   * claim are given back.
   */
  private async fanOut(taken: Taken[]): Promise<void[]> {
    let permits = taken.filter((t) => t.permit).length;
    try {
      // the same event twice in one batch (a redelivery meeting its original) makes its deliveries once
      const unique = [...new Map(taken.map((t) => [t.event.id, t.event])).values()];
      const subs = await this.subscriptions.activeFor(unique.map((e) => ({ org_id: e.org_id, mode: e.mode })));
      const rows = subs.length === 0 ? [] : unique.flatMap((e) => matchDeliveries(e, subs));
      if (rows.length > permits) permits += this.worker.permits.tryAcquire(rows.length - permits);
      const written = await this.deliveries.insert(
        rows.map((r, i) => ({ ...r, claim: i < permits })),
        this.max,
      );
      const subById = new Map(subs.map((s) => [s.id, s]));
      const bodyById = new Map(rows.map((r) => [r.id, r.body]));
      const claims: ClaimedAttempt[] = [];
      const queued: DueDelivery[] = [];
      for (const w of written) {
        if (w.claimed) {
          const s = subById.get(w.subscription_id)!;
          claims.push({
            kind: 'claimed',
            deliveryId: w.id,
            eventId: w.event_id,
            round: w.round,
            attempt: 1,
            attemptInRound: 1,
            url: s.url,
            body: bodyById.get(w.id)!,
            subscriptionId: s.id,
            secretSealed: s.secret_sealed,
            previousSecretSealed: s.previous_secret_sealed,
          });
        } else if (w.status === 'pending' && w.remaining > 0) {
          queued.push({ id: w.id, round: w.round, remaining: w.remaining, next_attempt_at: w.next_attempt_at });
        }
      }
      permits -= claims.length;
      this.worker.start(claims);
      // not claimed (no room, or found from an earlier fan-out): queued before the acknowledgement
      await this.queue.enqueue(queued);
      return taken.map(() => undefined);
    } finally {
      this.worker.permits.release(permits);
    }
  }
}
