import { Inject, Injectable } from '@nestjs/common';
import type { WebhookAttempt } from '@verity/contracts';
import { MicroBatch, Sql, unnestColumns } from '@verity/platform';

export type AttemptErrorCode = NonNullable<WebhookAttempt['error_code']>;
/** The columns an attempt row copies from its delivery. */
export const COPIED = ['org_id', 'mode', 'event_id', 'event_type', 'session_id', 'subscription_id'];

/** The outcome of one attempt, as the sender hands it over. */
export interface AttemptOutcome {
  attempt_id: string;
  delivery_id: string;
  round: number;
  attempt: number;
  status: 'succeeded' | 'failed';
  http_status: number | null;
  latency_ms: number;
  error_code: AttemptErrorCode | null;
  /** Delay before the next attempt, or null when none follows. */
  retry_ms: number | null;
}

const OUTCOMES = unnestColumns({
  attempt_id: 'text',
  delivery_id: 'text',
  round: 'int',
  attempt: 'int',
  status: 'text',
  http_status: 'int',
  latency_ms: 'int',
  error_code: 'text',
  retry_ms: 'int',
});

const after = (ms: string) => `now() + make_interval(secs => ${ms}::double precision / 1000)`;
/** The delivery moved on while its attempt was in flight (replayed into another round, cancelled). */
const MOVED = `(d.round <> r.round OR d.status <> 'pending')`;
/** The overwriting form runs only when an attempt's row exists already: it was logged as interrupted first. */
const record = (overwrite: boolean) => `
  WITH r AS (
    SELECT * FROM ${OUTCOMES.sql}
  ), recorded AS (
    INSERT INTO webhook_delivery.attempts (id, delivery_id, ${COPIED.join(', ')}, attempt, status, http_status, latency_ms, error_code, next_attempt_at, finished_at)
    SELECT r.attempt_id, r.delivery_id, ${COPIED.map((c) => `d.${c}`).join(', ')}, r.attempt, r.status, r.http_status, r.latency_ms, r.error_code,
           CASE WHEN r.retry_ms IS NOT NULL THEN ${after('r.retry_ms')} END, now()
      FROM r JOIN webhook_delivery.deliveries d ON d.id = r.delivery_id
    ${
      overwrite
        ? `ON CONFLICT (delivery_id, attempt) DO UPDATE
       SET status = excluded.status, http_status = excluded.http_status, latency_ms = excluded.latency_ms,
           error_code = excluded.error_code, next_attempt_at = excluded.next_attempt_at, finished_at = excluded.finished_at`
        : ''
    }
  )
  UPDATE webhook_delivery.deliveries d
     SET status = CASE WHEN ${MOVED} THEN d.status WHEN r.status = 'succeeded' THEN 'succeeded' WHEN r.retry_ms IS NULL THEN 'failed' ELSE 'pending' END,
         next_attempt_at = CASE WHEN ${MOVED} THEN d.next_attempt_at WHEN r.status = 'failed' AND r.retry_ms IS NOT NULL THEN ${after('r.retry_ms')} END,
         completed_at = CASE WHEN ${MOVED} THEN d.completed_at WHEN r.status = 'succeeded' OR r.retry_ms IS NULL THEN now() END,
         lease_until = NULL, updated_at = now()
    FROM r
   WHERE d.id = ANY($2::text[]) AND d.id = r.delivery_id AND d.attempts = r.attempt`;

/**
 * Stage 4, the ledger: records the outcomes of attempts, a batch per statement. Each writes its attempt's row in the
 * delivery log and gives up its delivery's lease; the delivery becomes succeeded, failed, or pending until the next
 * attempt, unless it moved on meanwhile (replayed, cancelled), when it keeps its new state.
 */
@Injectable()
export class Ledger {
  private readonly batch = new MicroBatch<AttemptOutcome, void>((outcomes) => this.write(outcomes), 256, 1);

  constructor(@Inject(Sql) private readonly db: Sql) {}

  /** Resolves once the outcome is written. */
  record(outcome: AttemptOutcome): Promise<void> {
    return this.batch.add(outcome);
  }

  /** Writes a batch of outcomes in one statement. */
  async write(outcomes: AttemptOutcome[]): Promise<void[]> {
    const params = OUTCOMES.params(outcomes);
    try {
      await this.db.prepared('webhook_delivery_record', record(false), params);
    } catch (e) {
      // 23505: an attempt's row exists (logged as interrupted when its lease ran out first); the statement was rolled back
      if ((e as { code?: unknown }).code !== '23505') throw e;
      await this.db.prepared('webhook_delivery_record_again', record(true), params);
    }
    return outcomes.map(() => undefined);
  }
}
