import { createHash } from 'node:crypto';
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { DELIVERED_SESSION_EVENT_TYPES, eventStreamName, eventSubject, parseDomainEvent, subjectRoot, type DomainEvent } from '@verity/contracts';
import { ID_PREFIXES, type Mode } from '@verity/keys';
import { addScrapeSampler, CONFIG, ensureEventStream, LOGGER, metrics, MicroBatch, NATS, Sql, unnestColumns, type Logger } from '@verity/platform';
import type { WebhookConfig } from '../config.js';
import { DispatchJob } from './dispatch.job.js';
import { webhookBody } from './signing.js';

/** The durable consumer of the region's event stream: one per region, shared by the replicas. */
export const FANOUT_CONSUMER = 'webhook-delivery';
const ACK_WAIT_MS = 30_000;
const MAX_ACK_PENDING = 2000;
/** A batch that failed (Postgres away) is redelivered after this long. */
const NAK_DELAY_MS = 1000;

/** An active subscription, as fan-out matches events against it. */
export interface MatchRow {
  id: string;
  org_id: string;
  mode: Mode;
  event_types: string[];
  created_at: Date;
}

/** The columns fan-out writes of a delivery: one event to one subscription. */
const DELIVERIES = unnestColumns({
  id: 'text',
  event_id: 'text',
  subscription_id: 'text',
  org_id: 'text',
  mode: 'text',
  event_type: 'text',
  session_id: 'text',
  body: 'text',
  trace_context: 'text',
});
export type NewDelivery = Pick<DomainEvent, 'org_id' | 'mode'> &
  Record<'id' | 'event_id' | 'subscription_id' | 'event_type' | 'body', string> & { session_id: string | null; trace_context: string | null };

/** An event as it arrived, with the W3C `traceparent` its message carried (the trace of the work that made it). */
interface ArrivedEvent {
  event: DomainEvent;
  traceparent: string | null;
}

/**
 * The id of the delivery of an event to a subscription, derived from the two, so that the primary key alone
 * makes fan-out idempotent. Subscription ids never contain `/`, so no two pairs make the same input.
 */
export function deliveryId(eventId: string, subscriptionId: string): string {
  return `${ID_PREFIXES.webhookDelivery}_${createHash('sha256').update(`${eventId}/${subscriptionId}`).digest('hex').slice(0, 32)}`;
}

/** `deliveryId` in SQL, for the expressions `event` and `subscription`. */
export const deliveryIdSql = (event: string, subscription: string) =>
  `'${ID_PREFIXES.webhookDelivery}_' || left(encode(sha256(convert_to(${event} || '/' || ${subscription}, 'UTF8')), 'hex'), 32)`;

/**
 * The deliveries an event makes: one per active subscription of the event's organization AND mode that lists
 * the event's type and existed when the event occurred. Reserved types are never delivered.
 */
export function matchDeliveries(event: DomainEvent, subscriptions: MatchRow[], traceparent: string | null = null): NewDelivery[] {
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
      trace_context: traceparent,
    }));
}

/**
 * Writes deliveries, due at once; one that exists (its event was fanned out before) is left as it is. A plain insert
 * goes first; only a batch that meets a stored delivery runs again in the slower `ON CONFLICT` form.
 */
export async function insertDeliveries(db: Sql, rows: NewDelivery[]): Promise<void> {
  const insert = (again: boolean) =>
    `INSERT INTO webhook_delivery.deliveries (${DELIVERIES.names.join(', ')}, next_attempt_at)
     SELECT r.*, now() FROM ${DELIVERIES.sql} ${again ? 'ON CONFLICT (id) DO NOTHING' : ''}`;
  const params = DELIVERIES.params(rows);
  await db.prepared('webhook_delivery_insert', insert(false), params).catch((e: unknown) => {
    if ((e as { code?: unknown }).code !== '23505') throw e;
    return db.prepared('webhook_delivery_insert_again', insert(true), params);
  });
}

/**
 * Stage 1, fan-out: a durable JetStream consumer takes each event of the region's stream, writes its deliveries
 * (one per matching subscription, idempotently) and only then acknowledges the message and wakes the dispatcher.
 * A message redelivered after a crash finds its deliveries written and writes nothing more.
 */
@Injectable()
export class Fanout implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private messages: ConsumerMessages | null = null;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly batch = new MicroBatch<ArrivedEvent, void>((events) => this.write(events), 500);

  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(Sql) private readonly db: Sql,
    @Inject(CONFIG) private readonly cfg: WebhookConfig,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly dispatcher: DispatchJob,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const root = subjectRoot(this.cfg.REGION, this.cfg.NATS_SUBJECT_PREFIX);
    const stream = eventStreamName(root);
    await ensureEventStream(this.nc, root, {
      duplicateWindowMs: this.cfg.EVENTS_DUPLICATE_WINDOW_MS,
      maxAgeMs: this.cfg.EVENTS_MAX_AGE_MS,
      replicas: this.cfg.EVENTS_STREAM_REPLICAS,
    });
    const jsm = await jetstreamManager(this.nc);
    await jsm.consumers.info(stream, FANOUT_CONSUMER).catch(() =>
      jsm.consumers.add(stream, {
        durable_name: FANOUT_CONSUMER,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: eventSubject(root, '>'),
        ack_wait: ACK_WAIT_MS * 1_000_000,
        max_ack_pending: MAX_ACK_PENDING,
      }),
    );
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
    // stop taking events; those taken are written and acknowledged (or redelivered to the next process)
    await this.messages?.close().catch(() => undefined);
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  private async consume(messages: ConsumerMessages): Promise<void> {
    for await (const m of messages) {
      const p = this.handle(m);
      this.inFlight.add(p);
      void p.finally(() => this.inFlight.delete(p));
    }
  }

  /** Exactly one of ack, nak or term per message: each is the one response its delivery allows. */
  private async handle(m: JsMsg): Promise<void> {
    const event = parseDomainEvent(m.data);
    if (!event) {
      this.log.warn({ subject: m.subject, seq: m.seq }, 'not a domain event; dropped');
      m.term('not a domain event');
      return;
    }
    try {
      await this.batch.add({ event, traceparent: m.headers?.get('traceparent') || null });
      m.ack();
    } catch (err) {
      this.log.warn({ err, event_id: event.id }, 'fan-out failed; the event will be redelivered');
      m.nak(NAK_DELAY_MS);
    }
  }

  /** One batch of events: their subscriptions, then their deliveries in one statement; then the dispatcher is woken. */
  private async write(arrived: ArrivedEvent[]): Promise<void[]> {
    const owners = [...new Map(arrived.map(({ event: e }) => [`${e.org_id}/${e.mode}`, e])).values()];
    const subscriptions = await this.db.prepared<MatchRow>(
      'webhook_delivery_active_for',
      `SELECT s.id, s.org_id, s.mode, s.event_types, s.created_at
         FROM webhook_delivery.subscriptions s
         JOIN unnest($1::text[], $2::text[]) AS o(org_id, mode) ON o.org_id = s.org_id AND o.mode = s.mode
        WHERE s.status = 'active'`,
      [owners.map((o) => o.org_id), owners.map((o) => o.mode)],
    );
    // the same event twice in one batch (a redelivery meeting its original) makes its deliveries once
    const rows = [...new Map(arrived.map((a) => [a.event.id, a])).values()].flatMap((a) => matchDeliveries(a.event, subscriptions, a.traceparent));
    if (rows.length > 0) {
      await insertDeliveries(this.db, rows);
      this.dispatcher.wake();
    }
    return arrived.map(() => undefined);
  }
}
