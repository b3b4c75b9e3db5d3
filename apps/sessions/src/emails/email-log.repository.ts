import { Inject, Injectable } from '@nestjs/common';
import type { EmailLogEntry } from '@verity/contracts';
import type { Mode } from '@verity/keys';
import { Sql, type Queryable, type WithDates } from '@verity/platform';

type EmailLogRow = WithDates<Omit<EmailLogEntry, 'object'>, 'created_at' | 'sent_at'>;

function toEntry(r: EmailLogRow): EmailLogEntry {
  return {
    id: r.id,
    object: 'email',
    session_id: r.session_id,
    mode: r.mode,
    template: r.template,
    subject: r.subject,
    recipient: r.recipient,
    status: r.status,
    created_at: r.created_at.toISOString(),
    sent_at: r.sent_at ? r.sent_at.toISOString() : null,
  };
}

/** The email log: one row per email a session sends (live) or would have sent (test, `suppressed`). */
@Injectable()
export class EmailLogRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /** Settles the pending email of a session's template. */
  async settle(q: Queryable, sessionId: string, template: string, status: 'sent' | 'failed' | 'skipped'): Promise<void> {
    await q.rows(
      `UPDATE sessions.email_log SET status = $3, sent_at = CASE WHEN $3 = 'sent' THEN now() ELSE NULL END
        WHERE session_id = $1 AND template = $2 AND status = 'pending'`,
      [sessionId, template, status],
    );
  }

  /** The id of a session's email of `template` that is still to be sent; null when it is settled. */
  async pendingId(q: Queryable, sessionId: string, template: string): Promise<string | null> {
    const rows = await q.rows<{ id: string }>(`SELECT id FROM sessions.email_log WHERE session_id = $1 AND template = $2 AND status = 'pending'`, [sessionId, template]);
    return rows[0]?.id ?? null;
  }

  /** Every email of the given sessions, newest first. */
  async ofSessions(sessionIds: readonly string[]): Promise<EmailLogEntry[]> {
    if (sessionIds.length === 0) return [];
    const rows = await this.db.rows<EmailLogRow>(
      `SELECT id, mode, session_id, template, subject, recipient, status, created_at, sent_at FROM sessions.email_log
        WHERE session_id = ANY($1::text[]) ORDER BY seq DESC`,
      [sessionIds],
    );
    return rows.map(toEntry);
  }

  async list(orgId: string, limit: number, mode: Mode | null): Promise<EmailLogEntry[]> {
    const rows = await this.db.rows<EmailLogRow>(
      `SELECT id, mode, session_id, template, subject, recipient, status, created_at, sent_at FROM sessions.email_log
        WHERE org_id = $1 AND ($2::text IS NULL OR mode = $2) ORDER BY seq DESC LIMIT $3`,
      [orgId, mode, limit],
    );
    return rows.map(toEntry);
  }
}
