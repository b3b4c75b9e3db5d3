import { Inject, Injectable } from '@nestjs/common';
import type { Owner, WebhookAttempt } from '@verity/contracts';
import { Sql, type WithDates } from '@verity/platform';

/** A stored attempt: the public row's fields, with the database's types and the page key. */
export type AttemptRow = WithDates<Omit<WebhookAttempt, 'object' | 'latency_ms'>, 'next_attempt_at' | 'created_at'> & { seq: string; latency_ms: number | null };

const COLUMNS = `seq, id, delivery_id, event_id, event_type, session_id, subscription_id, attempt, status, http_status, latency_ms,
  error_code, next_attempt_at, created_at`;

/** Reads of the delivery log, scoped by organization and mode. Never the payload, never a secret. */
@Injectable()
export class AttemptsRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /** Attempts (each logged with its outcome), newest first, `limit + 1` rows so the caller can tell whether another page exists. */
  async list(owner: Owner, f: { session_id?: string; subscription_id?: string }, after: bigint | null, limit: number): Promise<AttemptRow[]> {
    return this.db.rows<AttemptRow>(
      `SELECT ${COLUMNS}
         FROM webhook_delivery.attempts
        WHERE org_id = $1 AND mode = $2
          AND ($3::text IS NULL OR session_id = $3) AND ($4::text IS NULL OR subscription_id = $4)
          AND ($5::bigint IS NULL OR seq < $5::bigint)
        ORDER BY seq DESC LIMIT $6`,
      [owner.org_id, owner.mode, f.session_id ?? null, f.subscription_id ?? null, after === null ? null : after.toString(), limit + 1],
    );
  }

  /**
   * The attempts of the given sessions, newest first, at most `limit`. Each session is read through the index
   * by session (a few rows each), so the owner's other attempts are never scanned.
   */
  async ofSessions(owner: Owner, sessionIds: string[], limit: number): Promise<AttemptRow[]> {
    if (sessionIds.length === 0) return [];
    return this.db.rows<AttemptRow>(
      `SELECT a.* FROM (SELECT DISTINCT unnest($3::text[]) AS id) s
         CROSS JOIN LATERAL (
           SELECT ${COLUMNS} FROM webhook_delivery.attempts
            WHERE session_id = s.id AND org_id = $1 AND mode = $2
            ORDER BY seq DESC LIMIT $4) a
        ORDER BY a.seq DESC LIMIT $4`,
      [owner.org_id, owner.mode, sessionIds, limit],
    );
  }
}
