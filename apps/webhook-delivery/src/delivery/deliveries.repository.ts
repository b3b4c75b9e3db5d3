import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@verity/errors';
import { ID_PREFIXES, type Mode } from '@verity/keys';
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
  /** `deliveryId(event_id, subscription_id)`. */
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
  /** The id of the row that records the previous attempt, should that one have been interrupted (see `claim`). */
  interruptedAttemptId: string;
}

/** An attempt this process now owns (the delivery is leased to it), with what it needs to send it. */
export interface ClaimedAttempt {
  kind: 'claimed';
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

/** A delivery fan-out wrote, `claimed` when its first attempt is now this process's, or one it found stored. */
export interface InsertedDelivery extends DueDelivery {
  event_id: string;
  subscription_id: string;
  claimed: boolean;
  status: string;
}

/** A claimed attempt that was never sent, given back (see `release`). */
export interface UnsentClaim {
  deliveryId: string;
  attempt: number;
}

interface ClaimRow {
  req_id: string;
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

const DELIVERY_PREFIX = `${ID_PREFIXES.webhookDelivery}_`;
/** Hex characters of the SHA-256 a delivery id keeps (128 bits). */
const DELIVERY_HASH_CHARS = 32;
/**
 * Deliveries written before ids were derived have random ids of this length (`whd_` and 24 characters).
 * Migration `DerivedDeliveryIds` indexes them by event `WHERE length(id) = 28`: replay must spell the same
 * condition for Postgres to use that index.
 */
export const RANDOM_DELIVERY_ID_LENGTH = 28;

/**
 * The id of the delivery of an event to a subscription, derived from the two: the primary key alone makes
 * fan-out idempotent (a redelivered event finds its deliveries by id), with no second unique index to keep.
 * Subscription ids never contain `/`, so no two pairs make the same input.
 */
export function deliveryId(eventId: string, subscriptionId: string): string {
  return `${DELIVERY_PREFIX}${createHash('sha256').update(`${eventId}/${subscriptionId}`).digest('hex').slice(0, DELIVERY_HASH_CHARS)}`;
}

/** `deliveryId` in SQL, for expressions `event` and `subscription` (replay computes the ids an event may have). */
export const deliveryIdSql = (event: string, subscription: string) =>
  `'${DELIVERY_PREFIX}' || left(encode(sha256(convert_to(${event} || '/' || ${subscription}, 'UTF8')), 'hex'), ${DELIVERY_HASH_CHARS})`;

/**
 * Attempts of a delivery hold its lease this long from their claim: the 10 s attempt timeout, and as long
 * again for a claim made by fan-out to wait for a free slot (see DeliveryWorker).
 */
export const LEASE_MS = 20_000;
/** A job may start this much before its delivery's due time (clock differences between Redis clients and Postgres). */
const EARLY_TOLERANCE_MS = 2000;
/** How long the purge's second pass waits for the attempts table (see `purgeTestData`). */
const PURGE_LOCK_TIMEOUT_MS = 5000;
const secs = (param: string) => `make_interval(secs => ${param}::double precision / 1000)`;
/** The columns an attempt row copies from its delivery, in the attempts table's order. */
const COPIED = 'org_id, mode, event_id, event_type, session_id, subscription_id';
const prefixed = (alias: string) => COPIED.split(', ').map((c) => `${alias}.${c}`).join(', ');
/**
 * Logs interrupted attempts (failed, `connection_error`, no HTTP status, the lease's length as latency), unless
 * their row exists already. `select` gives, in order: the row's id, the delivery id, the copied columns, the
 * attempt number and when the next attempt is due.
 */
const logInterrupted = (select: string) =>
  `INSERT INTO ${S}.attempts (id, delivery_id, ${COPIED}, attempt, next_attempt_at, status, latency_ms, error_code, finished_at)
   SELECT i.*, 'failed', ${LEASE_MS}, 'connection_error', now() FROM (${select}) i
   ON CONFLICT (delivery_id, attempt) DO NOTHING`;

/** Runs `fast`; should it meet a unique index (SQLSTATE 23505), runs `again` instead (the whole statement was rolled back). */
async function onceMore<T>(fast: () => Promise<T>, again: () => Promise<T>): Promise<T> {
  try {
    return await fast();
  } catch (e) {
    if ((e as { code?: unknown }).code !== '23505') throw e;
    return again();
  }
}

/**
 * The only code touching the deliveries and attempts tables. Postgres is the record of truth: a delivery is
 * `pending` until an attempt succeeds or its round of attempts is used up.
 *
 * An attempt is claimed before its request is sent: the claim counts it (`attempts`) and leases the
 * delivery (`lease_until`). Its row in the attempts table (the delivery log) is written once, with its
 * outcome, and the same statement gives the lease up. So a delivery still holding a lease that has run out
 * had an attempt whose outcome was never recorded (its process died): that attempt is logged as failed
 * with `connection_error` by whoever finds it first, the next claim or the sweeper (`closeAbandoned`).
 */
@Injectable()
export class DeliveriesRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /**
   * Inserts the deliveries of a batch of events (each with the id `deliveryId` gives it), claiming the first attempt of those marked `claim` (the
   * caller sends them at once). A delivery that already exists (the event was fanned out before) is
   * returned as it is, unclaimed, so the caller can queue it if it is still pending.
   */
  async insert(rows: Array<NewDelivery & { claim: boolean }>, maxAttempts: number): Promise<InsertedDelivery[]> {
    if (rows.length === 0) return [];
    const col = <K extends keyof NewDelivery | 'claim'>(k: K) => rows.map((r) => r[k]);
    const params = [
      col('id'),
      col('event_id'),
      col('subscription_id'),
      col('org_id'),
      col('mode'),
      col('event_type'),
      col('session_id'),
      col('body'),
      col('claim'),
      LEASE_MS,
      maxAttempts,
    ];
    const statement = (again: boolean) =>
      `INSERT INTO ${S}.deliveries AS d (id, event_id, subscription_id, org_id, mode, event_type, session_id, body, next_attempt_at, attempts, lease_until)
       SELECT id, event_id, subscription_id, org_id, mode, event_type, session_id, body, now(),
              CASE WHEN claim THEN 1 ELSE 0 END, CASE WHEN claim THEN now() + ${secs('$10')} END
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bool[])
              AS r(id, event_id, subscription_id, org_id, mode, event_type, session_id, body, claim)
       ${
         again
           ? `ON CONFLICT (id) DO UPDATE SET updated_at = d.updated_at
       RETURNING d.id, d.event_id, d.subscription_id, (d.xmax = 0 AND d.attempts = 1) AS claimed, d.round,
                 ($11::int - (d.attempts - d.round_base)) AS remaining, d.next_attempt_at, d.status`
           : ''
       }`;
    // New events are the rule: a plain insert, which returns nothing (every row went in as it was sent), and
    // only a batch that meets existing deliveries runs again in the slower ON CONFLICT form (its arbiter
    // checks cost a tenth of the statement) to learn what the stored ones are.
    let fresh = true;
    const written = await onceMore(
      () => this.db.prepared<InsertedDelivery>('webhook_delivery_insert', statement(false), params.slice(0, 10)),
      () => {
        fresh = false;
        return this.db.prepared<InsertedDelivery>('webhook_delivery_insert_again', statement(true), params);
      },
    );
    if (!fresh) return written;
    const now = new Date();
    return rows.map((r) => ({
      id: r.id,
      event_id: r.event_id,
      subscription_id: r.subscription_id,
      claimed: r.claim,
      round: 1,
      remaining: maxAttempts - (r.claim ? 1 : 0),
      next_attempt_at: now,
      status: 'pending',
    }));
  }

  /**
   * Records the outcomes of finished attempts, in one statement: each writes its attempt row (over the row of
   * an interrupted attempt, should its lease have run out first) and gives up its delivery's lease; the
   * delivery becomes succeeded, failed, or pending until the next attempt, unless it moved on meanwhile
   * (replayed, cancelled), when it keeps its new state.
   */
  async record(outcomes: AttemptOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const o = <K extends keyof AttemptOutcome>(k: K) => outcomes.map((x) => x[k]);
    const params = [
      o('attemptId'),
      o('deliveryId'),
      o('round'),
      o('attempt'),
      o('status'),
      o('httpStatus'),
      o('latencyMs'),
      o('errorCode'),
      o('retryDelayMs'),
    ];
    const statement = (again: boolean) =>
      `WITH r AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::int[], $7::int[], $8::text[], $9::int[])
           AS r(attempt_id, delivery_id, round, attempt, status, http_status, latency_ms, error_code, retry_ms)
       ), recorded AS (
         INSERT INTO ${S}.attempts (id, delivery_id, ${COPIED}, attempt, status, http_status, latency_ms, error_code, next_attempt_at, finished_at)
         SELECT r.attempt_id, r.delivery_id, ${prefixed('d')}, r.attempt, r.status, r.http_status, r.latency_ms, r.error_code,
                CASE WHEN r.retry_ms IS NOT NULL THEN now() + ${secs('r.retry_ms')} END, now()
           FROM r JOIN ${S}.deliveries d ON d.id = r.delivery_id
         ${
           again
             ? `ON CONFLICT (delivery_id, attempt) DO UPDATE
            SET status = excluded.status, http_status = excluded.http_status, latency_ms = excluded.latency_ms,
                error_code = excluded.error_code, next_attempt_at = excluded.next_attempt_at, finished_at = excluded.finished_at`
             : ''
         }
       )
       UPDATE ${S}.deliveries d
          SET status = CASE WHEN d.round <> r.round OR d.status <> 'pending' THEN d.status
                            WHEN r.status = 'succeeded' THEN 'succeeded' WHEN r.retry_ms IS NULL THEN 'failed' ELSE 'pending' END,
              next_attempt_at = CASE WHEN d.round <> r.round OR d.status <> 'pending' THEN d.next_attempt_at
                                     WHEN r.status = 'failed' AND r.retry_ms IS NOT NULL THEN now() + ${secs('r.retry_ms')} END,
              completed_at = CASE WHEN d.round <> r.round OR d.status <> 'pending' THEN d.completed_at
                                  WHEN r.status = 'succeeded' OR r.retry_ms IS NULL THEN now() END,
              lease_until = NULL, updated_at = now()
         FROM r
        WHERE d.id = ANY($2::text[]) AND d.id = r.delivery_id AND d.attempts = r.attempt`;
    // an attempt's row exists already only when its lease ran out first and the attempt was logged as
    // interrupted: rare, so the plain insert goes first and the overwriting form only when it meets one
    await onceMore(
      () => this.db.prepared('webhook_delivery_record', statement(false), params),
      () => this.db.prepared('webhook_delivery_record_again', statement(true), params),
    );
  }

  /**
   * Claims the next attempt of each requested delivery, in one statement. A claim needs the delivery pending,
   * in the job's round, due, not leased, with attempts left in its round and its subscription active. It
   * takes the lease and counts the attempt; a lease that had run out means the previous attempt was
   * interrupted, and its row is written (failed, `connection_error`).
   *
   * Written so that only primary keys drive the updates (status and due time in forms no index matches, the
   * subscription checked per row): the planner's statistics lag behind a burst of deliveries, and a plan
   * through the partial index of pending deliveries would read every pending row. Never run with no claims:
   * an empty id list is a condition the planner can prove false, which lets it pick that partial index.
   */
  async claim(reqs: ClaimRequest[], maxAttempts: number): Promise<ClaimResult[]> {
    if (reqs.length === 0) return [];
    const rows = await this.db.prepared<ClaimRow>(
      'webhook_delivery_claim',
      `WITH j AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[]) AS j(id, round, interrupted_id)
       ), before AS (
         SELECT d.id, d.status, d.round, d.attempts, d.lease_until FROM ${S}.deliveries d WHERE d.id = ANY($1::text[])
       ), c AS (
         UPDATE ${S}.deliveries d
            SET attempts = d.attempts + 1, lease_until = now() + ${secs('$5')}, updated_at = now()
          WHERE d.id = ANY($1::text[]) AND (d.id || '.' || d.round) = ANY($6::text[]) AND d.status || '' = 'pending'
            AND (d.lease_until IS NULL OR d.lease_until < now())
            AND d.next_attempt_at - now() <= ${secs('$7')}
            AND d.attempts - d.round_base < $4
            AND (SELECT s.status FROM ${S}.subscriptions s WHERE s.id = d.subscription_id) = 'active'
         RETURNING d.id, d.attempts, d.round_base, d.body, ${prefixed('d')}
       ), interrupted AS (
         ${logInterrupted(`SELECT j.interrupted_id, c.id, ${prefixed('c')}, b.attempts, now()
                             FROM c JOIN j ON j.id = c.id JOIN before b ON b.id = c.id WHERE b.lease_until IS NOT NULL`)}
       )
       SELECT j.id AS req_id, c.event_id, c.attempts, c.round_base, s.url, c.body, c.subscription_id, s.secret_sealed,
              CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret_sealed END AS previous_secret_sealed,
              b.status AS cur_status, b.round AS cur_round, b.lease_until
         FROM j
         LEFT JOIN c ON c.id = j.id
         LEFT JOIN ${S}.subscriptions s ON s.id = c.subscription_id
         LEFT JOIN before b ON b.id = j.id`,
      [
        reqs.map((r) => r.deliveryId),
        reqs.map((r) => r.round),
        reqs.map((r) => r.interruptedAttemptId),
        maxAttempts,
        LEASE_MS,
        reqs.map((r) => `${r.deliveryId}.${r.round}`),
        EARLY_TOLERANCE_MS,
      ],
    );
    const byId = new Map(rows.map((r) => [r.req_id, r]));
    return reqs.map((req): ClaimResult => {
      const r = byId.get(req.deliveryId);
      if (!r) return { kind: 'stale' };
      if (r.attempts !== null) {
        return {
          kind: 'claimed',
          deliveryId: req.deliveryId,
          eventId: r.event_id!,
          round: req.round,
          attempt: r.attempts,
          attemptInRound: r.attempts - r.round_base!,
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
   * Gives back claims whose request was never sent (the process is stopping, or the claim waited too long
   * for a slot): the attempt is uncounted and the lease given up. Returns the deliveries to queue again.
   */
  async release(claims: UnsentClaim[], maxAttempts: number): Promise<DueDelivery[]> {
    if (claims.length === 0) return [];
    return this.db.rows<DueDelivery>(
      `UPDATE ${S}.deliveries d
          SET attempts = d.attempts - 1, lease_until = NULL, updated_at = now()
         FROM unnest($1::text[], $2::int[]) AS u(id, attempt)
        WHERE d.id = ANY($1::text[]) AND d.id = u.id AND d.attempts = u.attempt AND d.lease_until IS NOT NULL
        RETURNING d.id, d.round, ($3::int - (d.attempts - d.round_base)) AS remaining, d.next_attempt_at`,
      [claims.map((c) => c.deliveryId), claims.map((c) => c.attempt), maxAttempts],
    );
  }

  /**
   * Housekeeping after crashes: deliveries whose lease ran out while still held had an attempt whose outcome
   * was never recorded (its process died). That attempt is logged as failed (`connection_error`: the outcome
   * was never seen, the receiver may have got it) and the lease given up; a delivery whose round is used up
   * becomes failed. Returns how many attempts were closed and the deliveries to queue again at once.
   */
  async closeAbandoned(maxAttempts: number, newAttemptId: () => string): Promise<{ closed: number; due: DueDelivery[] }> {
    const stale = await this.db.rows<{ id: string; attempts: number }>(
      `SELECT id, attempts FROM ${S}.deliveries WHERE status = 'pending' AND lease_until < now() LIMIT 1000`,
    );
    if (stale.length === 0) return { closed: 0, due: [] };
    const rows = await this.db.rows<DueDelivery & { status: string }>(
      `WITH s AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[]) AS s(id, attempts, attempt_id)
       ), c AS (
         UPDATE ${S}.deliveries d
            SET lease_until = NULL, updated_at = now(),
                status = CASE WHEN d.attempts - d.round_base >= $4 THEN 'failed' ELSE d.status END,
                next_attempt_at = CASE WHEN d.attempts - d.round_base >= $4 THEN NULL ELSE d.next_attempt_at END,
                completed_at = CASE WHEN d.attempts - d.round_base >= $4 THEN now() END
           FROM s
          WHERE d.id = ANY($1::text[]) AND d.id = s.id AND d.attempts = s.attempts AND d.status = 'pending' AND d.lease_until < now()
         RETURNING d.id, d.round, d.attempts, d.round_base, d.status, s.attempt_id, ${prefixed('d')}
       ), logged AS (
         ${logInterrupted(`SELECT c.attempt_id, c.id, ${prefixed('c')}, c.attempts, CASE WHEN c.status = 'pending' THEN now() END FROM c`)}
       )
       SELECT id, round, ($4::int - (attempts - round_base)) AS remaining, now() AS next_attempt_at, status FROM c`,
      [stale.map((r) => r.id), stale.map((r) => r.attempts), stale.map(() => newAttemptId()), maxAttempts],
    );
    return { closed: rows.length, due: rows.filter((r) => r.status === 'pending').map(({ status: _, ...d }) => d) };
  }

  /** Pending deliveries overdue by more than `graceMs` and not leased: their job may be gone (Redis lost). */
  async overdue(graceMs: number, maxAttempts: number, limit: number): Promise<DueDelivery[]> {
    return this.db.rows<DueDelivery>(
      `SELECT d.id, d.round, ($2::int - (d.attempts - d.round_base)) AS remaining, d.next_attempt_at
         FROM ${S}.deliveries d JOIN ${S}.subscriptions s ON s.id = d.subscription_id AND s.status = 'active'
        WHERE d.status = 'pending' AND d.next_attempt_at < now() - ${secs('$1')}
          AND (d.lease_until IS NULL OR d.lease_until < now()) AND d.attempts - d.round_base < $2
        ORDER BY d.next_attempt_at LIMIT $3`,
      [graceMs, maxAttempts, limit],
    );
  }

  /**
   * Deletes every test-mode delivery and attempt of an organization, in one transaction, with true counts.
   * Deliveries are found through indexes (see migration `CancelledDeliveriesIndex`): those ever attempted,
   * pending and cancelled ones; a succeeded or failed delivery always has an attempt row. They are locked in
   * id order, the order of the primary-key scans by which the ledger's batches lock them, so that a purge and
   * a batch do not wait on each other in a cycle. A queued job of a purged delivery later claims nothing
   * (`claim` finds no row: stale) and completes.
   *
   * An attempt in flight (its delivery leased) may record its outcome while the purge commits: the statement
   * that records it reads the delivery under a snapshot taken before the commit and so still writes the
   * attempt's row, after the purge deleted the attempts. So when a purged delivery was leased, a second
   * transaction waits for every statement writing attempts that started before the commit (a SHARE lock on
   * the table: they hold ROW EXCLUSIVE from before their snapshot until they end) and deletes those rows too.
   * Writers of attempts pause only while it waits.
   */
  async purgeTestData(orgId: string, beforeCommit: () => void): Promise<{ deliveries: number; attempts: number }> {
    const removed = await this.db.tx(async (q) => {
      const [d] = await q.rows<{ n: number; leased: string[] }>(
        `WITH owned AS (
           SELECT delivery_id AS id FROM ${S}.attempts WHERE org_id = $1 AND mode = 'test'
           UNION SELECT id FROM ${S}.deliveries WHERE status = 'pending' AND org_id = $1 AND mode = 'test'
           UNION SELECT id FROM ${S}.deliveries WHERE status = 'cancelled' AND org_id = $1 AND mode = 'test'
         ), locked AS (
           SELECT d.id FROM ${S}.deliveries d WHERE d.id IN (SELECT id FROM owned) AND d.org_id = $1 AND d.mode = 'test'
            ORDER BY d.id FOR UPDATE
         ), gone AS (
           DELETE FROM ${S}.deliveries d USING locked l WHERE d.id = l.id RETURNING d.id, d.lease_until IS NOT NULL AS leased
         )
         SELECT count(*)::int AS n, coalesce(array_agg(id) FILTER (WHERE leased), '{}') AS leased FROM gone`,
        [orgId],
      );
      const [a] = await q.rows<{ n: number }>(
        `WITH gone AS (DELETE FROM ${S}.attempts WHERE org_id = $1 AND mode = 'test' RETURNING 1) SELECT count(*)::int AS n FROM gone`,
        [orgId],
      );
      beforeCommit();
      return { deliveries: d!.n, attempts: a!.n, leased: d!.leased };
    });
    let late = 0;
    if (removed.leased.length > 0) {
      late = await this.db
        .tx(async (q) => {
          await q.rows(`SET LOCAL lock_timeout = '${PURGE_LOCK_TIMEOUT_MS}ms'`);
          await q.rows(`LOCK TABLE ${S}.attempts IN SHARE MODE`);
          const [r] = await q.rows<{ n: number }>(
            `WITH gone AS (DELETE FROM ${S}.attempts WHERE delivery_id = ANY($1::text[]) AND org_id = $2 AND mode = 'test' RETURNING 1)
             SELECT count(*)::int AS n FROM gone`,
            [removed.leased, orgId],
          );
          return r!.n;
        })
        .catch((e: unknown) => {
          // lock_not_available: the deliveries are gone, an attempt logged meanwhile may not be; a second purge removes it
          if ((e as { code?: unknown }).code !== '55P03') throw e;
          throw new DomainError('service_unavailable', { message: 'The test data was purged, but attempts logged meanwhile may remain: purge again.' });
        });
    }
    return { deliveries: removed.deliveries, attempts: removed.attempts + late };
  }

  /**
   * Starts a new round of attempts (same delivery, same webhook-id) for the deliveries matching the filter,
   * on active subscriptions only. By event, the candidates are the ids the event's deliveries have (derived
   * from the event and each subscription), and, among deliveries written before ids were derived, those of
   * the event (a partial index holds only them). By session or by time, deliveries are found through their
   * attempts: one never attempted is still pending and needs no replay.
   */
  async replay(
    f: { eventId?: string; sessionId?: string; since?: Date; subscriptionId?: string; orgId?: string },
    maxAttempts: number,
  ): Promise<DueDelivery[]> {
    const candidates = f.eventId
      ? `SELECT ${deliveryIdSql('$1', 's.id')} FROM ${S}.subscriptions s
          WHERE ($4::text IS NULL OR s.id = $4) AND ($5::text IS NULL OR s.org_id = $5)
         UNION ALL
         SELECT id FROM ${S}.deliveries WHERE length(id) = ${RANDOM_DELIVERY_ID_LENGTH} AND event_id = $1`
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
