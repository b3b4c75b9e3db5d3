import { Inject, Injectable } from '@nestjs/common';
import type { Owner, WebhookAttempt } from '@verity/contracts';
import { Sql } from '@verity/platform';

export interface AttemptRow {
  seq: string;
  id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  session_id: string | null;
  subscription_id: string;
  attempt: number;
  status: 'succeeded' | 'failed';
  http_status: number | null;
  latency_ms: number | null;
  error_code: WebhookAttempt['error_code'];
  next_attempt_at: Date | null;
  created_at: Date;
}

/** Reads of the delivery log, scoped by organization and mode. Never the payload, never a secret. */
@Injectable()
export class AttemptsRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /** Finished attempts, newest first, `limit + 1` rows so the caller can tell whether another page exists. */
  async list(owner: Owner, f: { session_id?: string; subscription_id?: string }, after: bigint | null, limit: number): Promise<AttemptRow[]> {
    return this.db.rows<AttemptRow>(
      `SELECT seq, id, delivery_id, event_id, event_type, session_id, subscription_id, attempt, status, http_status, latency_ms,
              error_code, next_attempt_at, created_at
         FROM webhook_delivery.attempts
        WHERE org_id = $1 AND mode = $2 AND status <> 'in_progress'
          AND ($3::text IS NULL OR session_id = $3) AND ($4::text IS NULL OR subscription_id = $4)
          AND ($5::bigint IS NULL OR seq < $5::bigint)
        ORDER BY seq DESC LIMIT $6`,
      [owner.org_id, owner.mode, f.session_id ?? null, f.subscription_id ?? null, after === null ? null : after.toString(), limit + 1],
    );
  }
}
