import { Injectable } from '@nestjs/common';
import type { ListQuery, Owner, Page, PrivacyExportRequest, WebhookAttempt, WebhooksExportReply } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { parseListQuery, toPage } from '@verity/platform';
import { AttemptsRepository, type AttemptRow } from './attempts.repository.js';

export function toAttempt({ seq: _, ...r }: AttemptRow): WebhookAttempt {
  const times = { next_attempt_at: r.next_attempt_at?.toISOString() ?? null, created_at: r.created_at.toISOString() };
  return { object: 'webhook_attempt', ...r, ...times, latency_ms: r.latency_ms ?? 0 };
}

/** An id filter: any id-like text; one that matches nothing (malformed or unknown alike) gives an empty page. */
const idFilter = (v: string) => v.length >= 1 && v.length <= 100;

/**
 * A data subject access export holds at most this many attempts of the applicant's sessions, the newest: at most
 * about 500 KB, so that the reply fits one NATS message (1 MiB) and leaves room in the export it becomes part of.
 */
export const EXPORT_MAX_ATTEMPTS = 1000;
/** Sessions one export may name. */
const EXPORT_MAX_SESSIONS = 10_000;

/** GET /v1/webhook-events: one row per attempt, newest first, filters session_id and subscription_id (docs/webhooks.md; lists: docs/authentication.md). */
@Injectable()
export class AttemptsService {
  constructor(private readonly repo: AttemptsRepository) {}

  async list(owner: Owner, query: ListQuery): Promise<Page<WebhookAttempt>> {
    const p = parseListQuery(query, { session_id: idFilter, subscription_id: idFilter });
    const rows = await this.repo.list(owner, p.filters, p.after, p.limit);
    return toPage(rows, p.limit, (r) => r.seq, toAttempt);
  }

  /** The attempts of the applicant's sessions (docs/privacy.md), as the log lists them: newest first, capped at EXPORT_MAX_ATTEMPTS. */
  async export(owner: Owner, req: PrivacyExportRequest): Promise<WebhooksExportReply> {
    const ids: unknown = req?.session_ids;
    if (!Array.isArray(ids) || ids.length > EXPORT_MAX_SESSIONS || !ids.every((v) => typeof v === 'string')) {
      throw DomainError.validation([{ code: 'invalid_type', message: `session_ids must be an array of at most ${EXPORT_MAX_SESSIONS} session ids`, path: ['session_ids'] }]);
    }
    // an id-like text that matches nothing (malformed or another owner's) adds nothing
    const rows = await this.repo.ofSessions(owner, ids.filter(idFilter), EXPORT_MAX_ATTEMPTS);
    return { webhook_events: rows.map(toAttempt) };
  }
}
