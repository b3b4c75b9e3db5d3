import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { headers, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { eventSubject, subjectRoot, type DomainEvent, type SessionOutcome, type SessionStatus } from '@verity/contracts';
import type { Mode } from '@verity/keys';
import { CONFIG, currentTraceparent, encodeJson, ensureEventStream, LOGGER, NATS, Poller, Sql, type Logger, type Queryable } from '@verity/platform';
import type { SessionsConfig } from '../config.js';
import { sessionEvent } from './session-event.js';

const BATCH = 100;
const PUBLISH_TIMEOUT_MS = 5000;
/**
 * The relay's transaction lock (`pg_try_advisory_xact_lock` on this key, in the region's database): one relay
 * publishes at a time, whichever replica it runs in. Row locks alone (`FOR UPDATE SKIP LOCKED`) would let two
 * replicas publish two batches side by side, and a session's later event, in the second batch, could reach the
 * stream before its earlier one.
 */
export const RELAY_LOCK_KEY = 'verity.sessions.outbox-relay';
/** A relay that found another replica's relay at work looks again after this long (that one may have missed a row just committed). */
const BUSY_RETRY_MS = 50;

/**
 * The transactional outbox of session events. `add` writes the event of a status change in the caller's
 * transaction; the relay publishes unrelayed rows to the region's JetStream stream with the event id as
 * `Nats-Msg-Id` (so a row published twice is stored once) and marks them relayed only after the ack.
 */
@Injectable()
export class Outbox implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly root: string;
  private js: JetStreamClient | null = null;
  private readonly relay: Poller;

  constructor(
    @Inject(Sql) private readonly db: Sql,
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(CONFIG) private readonly cfg: SessionsConfig,
    @Inject(LOGGER) log: Logger,
  ) {
    this.root = subjectRoot(cfg.REGION, cfg.NATS_SUBJECT_PREFIX);
    this.relay = new Poller(() => this.drain(), cfg.OUTBOX_POLL_MS, (err) => log.warn({ err }, 'outbox relay failed; retrying'));
  }

  /** Writes the event the new status delivers, if any, in the transaction `q`; true when one was written. */
  async add(
    q: Queryable,
    s: { id: string; org_id: string; mode: Mode; status: SessionStatus; outcome: SessionOutcome; checks?: unknown },
    occurredAt: Date,
  ): Promise<boolean> {
    const event = sessionEvent(s, occurredAt);
    if (!event) return false;
    await this.addEvent(q, s.id, event);
    return true;
  }

  /**
   * Writes an event in the transaction `q` (also one that no status change derives: `kyc.session.watchlist_hit`), with
   * the trace of the work writing it (tracing on), which the relay sends along so that its deliveries join it.
   */
  async addEvent(q: Queryable, sessionId: string, event: DomainEvent): Promise<void> {
    await q.rows(`INSERT INTO sessions.outbox (event_id, session_id, type, event, trace_context) VALUES ($1, $2, $3, $4, $5)`, [
      event.id,
      sessionId,
      event.type,
      JSON.stringify(event),
      currentTraceparent(),
    ]);
  }

  onApplicationBootstrap(): void {
    // whatever a previous process committed but did not relay goes out first
    this.relay.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }

  /** Starts a relay pass now (or another one right after the pass under way). */
  kick(): void {
    this.relay.kick();
  }

  /**
   * Relays until nothing is left; a failure goes to the log and the next tick tries again. While another replica's
   * relay holds the lock, looks again shortly: that relay takes whatever is committed by its next batch, and the
   * look again covers a row committed after its last one.
   */
  private async drain(): Promise<void> {
    let n: number | null;
    do {
      n = await this.relayBatch();
    } while (!this.relay.stopping && n === BATCH);
    if (n === null && !this.relay.stopping) setTimeout(() => this.relay.kick(), BUSY_RETRY_MS).unref();
  }

  /**
   * One batch, oldest first, in one transaction holding the region's relay lock (another replica's relay, finding
   * it taken, does nothing: null). A session's events are published one after the other, so that they keep their
   * order; different sessions' events are in flight together (a batch waits for the slowest session, not for the
   * sum of every ack). Marked relayed only once every ack arrived. If the process dies before the commit, its
   * connection closes, which releases the lock, and the rows stay unrelayed, as they do when a publish fails: the
   * next pass, in any replica, publishes them again and JetStream drops the copies by message id.
   */
  async relayBatch(): Promise<number | null> {
    return this.db.tx(async (q) => {
      const [lock] = await q.rows<{ held: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext($1)) AS held`, [RELAY_LOCK_KEY]);
      if (!lock!.held) return null;
      const rows = await q.rows<{ seq: string; event_id: string; session_id: string; type: string; event: DomainEvent; trace_context: string | null }>(
        `SELECT seq, event_id, session_id, type, event, trace_context FROM sessions.outbox WHERE relayed_at IS NULL ORDER BY seq LIMIT ${BATCH}`,
      );
      if (rows.length === 0) return 0;
      const js = await this.client();
      const bySession = new Map<string, typeof rows>();
      for (const r of rows) {
        const chain = bySession.get(r.session_id);
        if (chain) chain.push(r);
        else bySession.set(r.session_id, [r]);
      }
      // every chain settles before the transaction ends, failed or not: nothing is still in flight at the rollback
      const settled = await Promise.allSettled(
        [...bySession.values()].map(async (chain) => {
          for (const r of chain) {
            await js.publish(eventSubject(this.root, r.type), encodeJson(r.event), { msgID: r.event_id, timeout: PUBLISH_TIMEOUT_MS, ...traceHeadersOf(r.trace_context) });
          }
        }),
      );
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      await q.rows(`UPDATE sessions.outbox SET relayed_at = now() WHERE seq = ANY($1::bigint[])`, [rows.map((r) => r.seq)]);
      return rows.length;
    });
  }

  /** The JetStream client, once the region's stream exists (created when missing, on the first event to relay). */
  private async client(): Promise<JetStreamClient> {
    if (this.js) return this.js;
    await ensureEventStream(this.nc, this.root, {
      duplicateWindowMs: this.cfg.EVENTS_DUPLICATE_WINDOW_MS,
      maxAgeMs: this.cfg.EVENTS_MAX_AGE_MS,
      replicas: this.cfg.EVENTS_STREAM_REPLICAS,
    });
    this.js = jetstream(this.nc);
    return this.js;
  }
}

/** The message headers carrying a stored `traceparent` (none when the event was written untraced). */
function traceHeadersOf(traceparent: string | null): { headers?: MsgHdrs } {
  if (!traceparent) return {};
  const h = headers();
  h.set('traceparent', traceparent);
  return { headers: h };
}
