import { Inject, Injectable } from '@nestjs/common';
import type { Mode } from '@verity/keys';
import { Sql } from '@verity/platform';
import type { AttemptErrorCode } from './receiver.client.js';

const S = 'webhook_delivery';

/** A delivery to queue: what a job needs and when it is due. */
export interface DueDelivery {
  id: string;
  round: number;
  /** Attempts this round may still make. */
  remaining: number;
  next_attempt_at: Date;
}

export interface NewDelivery {
  id: string;
  event_id: string;
  subscription_id: string;
  org_id: string;
  mode: Mode;
  event_type: string;
  session_id: string | null;
  body: string;
}

export interface ClaimRequest {
  deliveryId: string;
  round: number;
  attemptId: string;
}

/** An attempt this process now owns (the delivery is leased to it), with what it needs to send it. */
export interface ClaimedAttempt {
  kind: 'claimed';
  attemptId: string;
  deliveryId: string;
  eventId: string;
  round: number;
  attempt: number;
  attemptInRound: number;
  url: string;
  body: string;
  subscriptionId: string;
  secretSealed: string;
  previousSecretSealed: string | null;
}

export type ClaimResult =
  | ClaimedAttempt
  /** Another attempt of this delivery holds the lease until then: try again after it. */
  | { kind: 'leased'; until: Date }
  /** Nothing to do: the delivery is done, cancelled, replayed into another round, not due, or its round is used up. */
  | { kind: 'stale' };

export interface AttemptOutcome {
  attemptId: string;
  deliveryId: string;
  round: number;
  attempt: number;
  status: 'succeeded' | 'failed';
  httpStatus: number | null;
  latencyMs: number;
  errorCode: AttemptErrorCode | null;
  /** Delay before the next attempt, or null when none follows. */
  retryDelayMs: number | null;
}

interface ClaimRow {
  req_id: string;
  attempt_id: string | null;
  event_id: string | null;
  attempts: number | null;
  round_base: number | null;
  url: string | null;
  body: string | null;
  subscription_id: string | null;
  secret_sealed: string | null;
  previous_secret_sealed: string | null;
  cur_status: string | null;
  cur_round: number | null;
  lease_until: Date | null;
}

/** Attempts of a delivery hold its lease this long: the 10 s attempt timeout and a margin. */
export const LEASE_MS = 20_000;
/** A job may start this much before its delivery's due time (clock differences between Redis clients and Postgres). */
const EARLY_TOLERANCE_MS = 2000;

/**
 * The only code touching the deliveries and attempts tables. Postgres is the record of truth: a delivery is
 * `pending` until an attempt succeeds or its round of attempts is used up; every attempt has its row from
 * the moment it is claimed (before the request is sent) to the moment its outcome is known.
 */
@Injectable()
export class DeliveriesRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /**
   * Inserts the deliveries of a batch of events; a delivery that already exists (the event was fanned out
   * before) is returned as it is, so the caller can queue whatever is still pending.
   */
  async insert(rows: NewDelivery[], maxAttempts: number): Promise<DueDelivery[]> {
    if (rows.length === 0) return [];
    const col = <K extends keyof NewDelivery>(k: K) => rows.map((r) => r[k]);
    const out = await this.db.rows<DueDelivery & { status: string }>(
      `INSERT INTO ${S}.deliveries (id, event_id, subscription_id, org_id, mode, event_type, session_id, body, next_attempt_at)
       SELECT *, now() FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
       ON CONFLICT (event_id, subscription_id) DO UPDATE SET updated_at = ${S}.deliveries.updated_at
       RETURNING id, round, ($9::int - (attempts - round_base)) AS remaining, next_attempt_at, status`,
      [col('id'), col('event_id'), col('subscription_id'), col('org_id'), col('mode'), col('event_type'), col('session_id'), col('body'), maxAttempts],
    );
    return out.filter((r) => r.status === 'pending' && r.remaining > 0);
  }

  /**
   * One step of the ledger, in one statement: records the outcomes of finished attempts, then claims the
   * next attempt of each requested delivery.
   *
   * An outcome updates its attempt row, and its delivery becomes succeeded, failed, or pending until the
   * next attempt, giving up its lease; a delivery that moved on meanwhile (replayed, cancelled) keeps its new
   * state, and the attempt row is recorded anyway.
   *
   * A claim needs the delivery pending, in the job's round, due, not leased, with attempts left in its round
   * and its subscription active. It takes the lease, counts the attempt, closes an attempt a crashed process
   * left open, and writes the new attempt's row (in_progress) before anything is sent.
   *
   * Written so that only primary keys drive the updates (status and due time in forms no index matches, the
   * subscription checked per row): the planner's statistics lag behind a burst of deliveries, and a plan
   * through the partial index of pending deliveries would read every pending row.
   */
  async step(reqs: ClaimRequest[], outcomes: AttemptOutcome[], maxAttempts: number): Promise<ClaimResult[]> {
    const o = <K extends keyof AttemptOutcome>(k: K) => outcomes.map((x) => x[k]);
    const rows = await this.db.prepared<ClaimRow>(
      'webhook_delivery_step',
      `WITH r AS (
         SELECT * FROM unnest($8::text[], $9::text[], $10::int[], $11::int[], $12::text[], $13::int[], $14::int[], $15::text[], $16::int[])
           AS r(attempt_id, delivery_id, round, attempt, status, http_status, latency_ms, error_code, retry_ms)
       ), recorded AS (
         UPDATE ${S}.attempts a
            SET status = r.status, http_status = r.http_status, latency_ms = r.latency_ms, error_code = r.error_code, finished_at = now(),
                next_attempt_at = CASE WHEN r.retry_ms IS NULL THEN NULL ELSE now() + make_interval(secs => r.retry_ms::double precision / 1000) END
           FROM r WHERE a.delivery_id = ANY($9::text[]) AND a.delivery_id = r.delivery_id AND a.attempt = r.attempt AND a.status = 'in_progress'
       ), finished AS (
         UPDATE ${S}.deliveries d
            SET status = CASE WHEN r.status = 'succeeded' THEN 'succeeded' WHEN r.retry_ms IS NULL THEN 'failed' ELSE 'pending' END,
                next_attempt_at = CASE WHEN r.status = 'failed' AND r.retry_ms IS NOT NULL
                                       THEN now() + make_interval(secs => r.retry_ms::double precision / 1000) END,
                completed_at = CASE WHEN r.status = 'succeeded' OR r.retry_ms IS NULL THEN now() END,
                lease_until = NULL, updated_at = now()
           FROM r
          WHERE d.id = ANY($9::text[]) AND d.id = r.delivery_id AND d.round = r.round AND d.attempts = r.attempt AND d.status || '' = 'pending'
       ), j AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[]) AS j(id, round, attempt_id)
       ), c AS (
         UPDATE ${S}.deliveries d
            SET attempts = d.attempts + 1, lease_until = now() + make_interval(secs => $5::double precision / 1000), updated_at = now()
          WHERE d.id = ANY($1::text[]) AND (d.id || '.' || d.round) = ANY($7::text[]) AND d.status || '' = 'pending'
            AND (d.lease_until IS NULL OR d.lease_until < now())
            AND d.next_attempt_at - now() <= make_interval(secs => $6::double precision / 1000)
            AND d.attempts - d.round_base < $4
            AND (SELECT s.status FROM ${S}.subscriptions s WHERE s.id = d.subscription_id) = 'active'
         RETURNING d.id, d.attempts, d.round_base, d.event_id, d.event_type, d.session_id, d.subscription_id, d.org_id, d.mode, d.body
       ), orphans AS (
         UPDATE ${S}.attempts a
            SET status = 'failed', error_code = 'connection_error', finished_at = now(), next_attempt_at = now(),
                latency_ms = LEAST(${LEASE_MS}, (extract(epoch FROM now() - a.created_at) * 1000)::int)
          WHERE a.delivery_id IN (SELECT id FROM c) AND a.status = 'in_progress'
       ), ins AS (
         INSERT INTO ${S}.attempts (id, delivery_id, org_id, mode, event_id, event_type, session_id, subscription_id, attempt, status)
         SELECT j.attempt_id, c.id, c.org_id, c.mode, c.event_id, c.event_type, c.session_id, c.subscription_id, c.attempts, 'in_progress'
           FROM c JOIN j ON j.id = c.id
       )
       SELECT j.id AS req_id, CASE WHEN c.id IS NOT NULL THEN j.attempt_id END AS attempt_id, c.event_id, c.attempts, c.round_base, s.url,
              c.body, c.subscription_id, s.secret_sealed,
              CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret_sealed END AS previous_secret_sealed,
              d.status AS cur_status, d.round AS cur_round, d.lease_until
         FROM j
         LEFT JOIN c ON c.id = j.id
         LEFT JOIN ${S}.subscriptions s ON s.id = c.subscription_id
         LEFT JOIN ${S}.deliveries d ON d.id = j.id`,
      [
        reqs.map((r) => r.deliveryId),
        reqs.map((r) => r.round),
        reqs.map((r) => r.attemptId),
        maxAttempts,
        LEASE_MS,
        EARLY_TOLERANCE_MS,
        reqs.map((r) => `${r.deliveryId}.${r.round}`),
        o('attemptId'),
        o('deliveryId'),
        o('round'),
        o('attempt'),
        o('status'),
        o('httpStatus'),
        o('latencyMs'),
        o('errorCode'),
        o('retryDelayMs'),
      ],
    );
    const byId = new Map(rows.map((r) => [r.req_id, r]));
    return reqs.map((req): ClaimResult => {
      const r = byId.get(req.deliveryId);
      if (!r) return { kind: 'stale' };
      if (r.attempt_id) {
        return {
          kind: 'claimed',
          attemptId: r.attempt_id,
          deliveryId: req.deliveryId,
          eventId: r.event_id!,
          round: req.round,
          attempt: r.attempts!,
          attemptInRound: r.attempts! - r.round_base!,
          url: r.url!,
          body: r.body!,
          subscriptionId: r.subscription_id!,
          secretSealed: r.secret_sealed!,
          previousSecretSealed: r.previous_secret_sealed,
        };
      }
      // not claimed: the snapshot before the statement tells whether another attempt holds the lease
      if (r.cur_status === 'pending' && r.cur_round === req.round && r.lease_until && r.lease_until.getTime() > Date.now()) {
        return { kind: 'leased', until: r.lease_until };
      }
      return { kind: 'stale' };
    });
  }

  /**
   * Housekeeping after crashes: attempts left open by a process that died (their delivery's lease expired)
   * are recorded as failed (connection_error: the outcome was never seen, the receiver may have got it), and
   * deliveries whose round is used up become failed. Returns how many attempts were closed.
   */
  async closeAbandoned(maxAttempts: number): Promise<number> {
    const rows = await this.db.rows<{ n: number }>(
      `WITH stale AS (
         SELECT d.id, (d.attempts - d.round_base < $1) AS can_retry
           FROM ${S}.deliveries d
          WHERE d.status = 'pending' AND d.lease_until < now()
            AND EXISTS (SELECT 1 FROM ${S}.attempts a WHERE a.delivery_id = d.id AND a.status = 'in_progress')
          LIMIT 1000
       ), closed AS (
         UPDATE ${S}.attempts a
            SET status = 'failed', error_code = 'connection_error', finished_at = now(),
                latency_ms = LEAST(${LEASE_MS}, (extract(epoch FROM now() - a.created_at) * 1000)::int),
                next_attempt_at = CASE WHEN stale.can_retry THEN now() END
           FROM stale WHERE a.delivery_id = stale.id AND a.status = 'in_progress'
         RETURNING a.id
       ), exhausted AS (
         UPDATE ${S}.deliveries d
            SET status = 'failed', next_attempt_at = NULL, lease_until = NULL, completed_at = now(), updated_at = now()
          WHERE d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until < now()) AND d.attempts - d.round_base >= $1
       )
       SELECT count(*)::int AS n FROM closed`,
      [maxAttempts],
    );
    return rows[0]?.n ?? 0;
  }

  /** Pending deliveries overdue by more than `graceMs` and not leased: their job may be gone (Redis lost). */
  async overdue(graceMs: number, maxAttempts: number, limit: number): Promise<DueDelivery[]> {
    return this.db.rows<DueDelivery>(
      `SELECT d.id, d.round, ($2::int - (d.attempts - d.round_base)) AS remaining, d.next_attempt_at
         FROM ${S}.deliveries d JOIN ${S}.subscriptions s ON s.id = d.subscription_id AND s.status = 'active'
        WHERE d.status = 'pending' AND d.next_attempt_at < now() - make_interval(secs => $1::double precision / 1000)
          AND (d.lease_until IS NULL OR d.lease_until < now()) AND d.attempts - d.round_base < $2
        ORDER BY d.next_attempt_at LIMIT $3`,
      [graceMs, maxAttempts, limit],
    );
  }

  /**
   * Starts a new round of attempts (same delivery, same webhook-id) for the deliveries matching the filter,
   * on active subscriptions only. By session or by time, deliveries are found through their attempts: one
   * never attempted is still pending and needs no replay.
   */
  async replay(
    f: { eventId?: string; sessionId?: string; since?: Date; subscriptionId?: string; orgId?: string },
    maxAttempts: number,
  ): Promise<DueDelivery[]> {
    const candidates = f.eventId
      ? `SELECT id FROM ${S}.deliveries WHERE event_id = $1`
      : f.sessionId
        ? `SELECT delivery_id FROM ${S}.attempts WHERE session_id = $2`
        : `SELECT delivery_id FROM ${S}.attempts
            WHERE created_at >= $3 AND ($4::text IS NULL OR subscription_id = $4) AND ($5::text IS NULL OR org_id = $5)`;
    return this.db.rows<DueDelivery>(
      `UPDATE ${S}.deliveries d
          SET status = 'pending', round = d.round + 1, round_base = d.attempts, next_attempt_at = now(), completed_at = NULL, updated_at = now()
         FROM ${S}.subscriptions s
        WHERE d.id IN (${candidates}) AND s.id = d.subscription_id AND s.status = 'active'
          AND ($1::text IS NULL OR d.event_id = $1) AND ($2::text IS NULL OR d.session_id = $2)
          AND ($3::timestamptz IS NULL OR d.created_at >= $3) AND ($4::text IS NULL OR d.subscription_id = $4)
          AND ($5::text IS NULL OR d.org_id = $5)
        RETURNING d.id, d.round, $6::int AS remaining, d.next_attempt_at`,
      [f.eventId ?? null, f.sessionId ?? null, f.since ?? null, f.subscriptionId ?? null, f.orgId ?? null, maxAttempts],
    );
  }
}
