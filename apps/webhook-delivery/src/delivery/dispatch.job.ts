import { Inject, Injectable } from '@nestjs/common';
import { newId } from '@verity/keys';
import { CONFIG, JobHost, JobWorker, LOGGER, type Logger, Sql } from '@verity/platform';
import type { WebhookConfig } from '../config.js';
import { COPIED } from './ledger.js';
import { maxAttempts } from './retry-schedule.js';
import { Sender } from './sender.js';

/** An attempt holds its delivery's lease this long from its claim: the attempt's timeout and time to record it. */
export const LEASE_MS = 20_000;

/** An attempt this process now owns (its delivery is leased to it), with what the sender needs. */
export interface ClaimedAttempt {
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
  /** The W3C `traceparent` its event arrived with: the attempt joins that trace. */
  traceContext: string | null;
}

/**
 * Claims up to `$1` due deliveries, oldest due first, skipping those another process is claiming. A claim counts
 * the attempt and leases the delivery. A delivery whose lease ran out had an attempt whose outcome was never
 * recorded (its process died): that attempt is logged as failed with `connection_error`. A due delivery whose
 * subscription is no longer active is cancelled; one whose round is used up (its last attempt was interrupted)
 * fails.
 */
const CLAIM = `
  WITH due AS (
    SELECT d.id, d.lease_until, s.status = 'active' AS active, d.attempts - d.round_base < $2 AS has_left, s.url, s.secret_sealed,
           CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret_sealed END AS previous_secret_sealed
      FROM webhook_delivery.deliveries d JOIN webhook_delivery.subscriptions s ON s.id = d.subscription_id
     WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until < now())
     ORDER BY d.next_attempt_at LIMIT $1
       FOR UPDATE OF d SKIP LOCKED
  ), c AS (
    UPDATE webhook_delivery.deliveries d
       SET attempts = d.attempts + (due.active AND due.has_left)::int,
           lease_until = CASE WHEN due.active AND due.has_left THEN now() + make_interval(secs => ${LEASE_MS / 1000}) END,
           status = CASE WHEN NOT due.active THEN 'cancelled' WHEN NOT due.has_left THEN 'failed' ELSE 'pending' END,
           next_attempt_at = CASE WHEN due.active AND due.has_left THEN d.next_attempt_at END,
           completed_at = CASE WHEN NOT (due.active AND due.has_left) THEN now() END,
           updated_at = now()
      FROM due WHERE d.id = due.id
    RETURNING d.id, d.round, d.attempts, d.round_base, d.body, d.trace_context, ${COPIED.map((c) => `d.${c}`).join(', ')},
              due.lease_until AS expired_lease, due.active AND due.has_left AS claimed, due.url, due.secret_sealed, due.previous_secret_sealed
  ), interrupted AS (
    INSERT INTO webhook_delivery.attempts (id, delivery_id, ${COPIED.join(', ')}, attempt, next_attempt_at, status, latency_ms, error_code, finished_at)
    SELECT ($3::text[])[row_number() OVER ()], c.id, ${COPIED.map((c) => `c.${c}`).join(', ')}, c.attempts - c.claimed::int,
           CASE WHEN c.claimed THEN now() END, 'failed', ${LEASE_MS}, 'connection_error', now()
      FROM c WHERE c.expired_lease IS NOT NULL
    ON CONFLICT (delivery_id, attempt) DO NOTHING
  )
  SELECT c.id AS "deliveryId", c.event_id AS "eventId", c.round, c.attempts AS attempt, c.attempts - c.round_base AS "attemptInRound",
         c.url, c.body, c.subscription_id AS "subscriptionId", c.secret_sealed AS "secretSealed", c.previous_secret_sealed AS "previousSecretSealed",
         c.trace_context AS "traceContext"
    FROM c WHERE c.claimed`;

/** Claims up to `limit` due attempts (see CLAIM). */
export async function claimDue(db: Sql, limit: number, maxAttempts: number): Promise<ClaimedAttempt[]> {
  const ids = Array.from({ length: limit }, () => newId('webhookAttempt'));
  return db.prepared<ClaimedAttempt>('webhook_delivery_claim', CLAIM, [limit, maxAttempts, ids]);
}

/**
 * Stage 2, the dispatcher, a job on the platform's `JobWorker`: owns how many attempts are in flight
 * (`WEBHOOK_CONCURRENCY` slots). It claims due deliveries in Postgres as slots are free and hands each claim to the
 * sender, which records the attempt's outcome (and the retry, by `WEBHOOK_RETRY_SCHEDULE`) in the ledger. Postgres is
 * the only queue: first attempts, retries (due at their `next_attempt_at`), replays and attempts a dead process left
 * behind (their lease ran out) are all found by the same claim. It looks when woken by fan-out, when half its slots
 * are free, and every `WEBHOOK_POLL_MS`.
 */
@Injectable()
export class DispatchJob extends JobHost {
  protected readonly runner: JobWorker<ClaimedAttempt>;

  constructor(
    @Inject(Sql) private readonly db: Sql,
    private readonly sender: Sender,
    @Inject(CONFIG) cfg: WebhookConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    super();
    const max = maxAttempts(cfg.WEBHOOK_RETRY_SCHEDULE);
    this.runner = new JobWorker<ClaimedAttempt>(
      {
        name: 'webhook_attempts',
        claim: (limit) => claimDue(this.db, limit, max),
        // the sender records every outcome; an attempt not sent (the secret did not open) is left to its lease, and
        // logged as interrupted when it runs out
        run: (claim) => this.sender.send(claim).catch((err: unknown) => this.log.warn({ err, delivery: claim.deliveryId }, 'webhook attempt not sent')),
      },
      {
        everyMs: cfg.WEBHOOK_POLL_MS,
        slots: cfg.WEBHOOK_CONCURRENCY,
        claimWhenFree: Math.max(1, Math.floor(cfg.WEBHOOK_CONCURRENCY / 2)),
        log,
        depth: {
          queue: 'webhook_attempts',
          count: async () => {
            const [r] = await this.db.rows<{ due: string }>(`SELECT count(*) AS due FROM webhook_delivery.deliveries WHERE status = 'pending' AND next_attempt_at <= now()`);
            return Number(r?.due ?? 0);
          },
        },
      },
    );
  }

  /** New deliveries are due: look now. */
  wake(): void {
    this.runner.kick();
  }

  /** Lets the attempts in flight finish and be recorded; a delivery not claimed yet waits in Postgres. */
  override async beforeApplicationShutdown(): Promise<void> {
    await super.beforeApplicationShutdown();
    await this.sender.drain();
  }
}
