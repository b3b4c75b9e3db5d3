import { Inject, Injectable } from '@nestjs/common';
import type { ConsoleActivityEntry, ConsoleActivityRecordRequest } from '@verity/contracts';
import { Sql, type WithDates } from '@verity/platform';

type ActivityRow = WithDates<Omit<ConsoleActivityEntry, 'object'>, 'created_at'>;

const ACTIVITY_COLUMNS = 'id, org_id, mode, actor_id, actor_email, action, target_id, details, created_at';

function toEntry(row: ActivityRow): ConsoleActivityEntry {
  return {
    id: row.id,
    object: 'console_activity',
    org_id: row.org_id,
    mode: row.mode,
    actor_id: row.actor_id,
    actor_email: row.actor_email,
    action: row.action,
    target_id: row.target_id,
    details: row.details,
    created_at: row.created_at.toISOString(),
  };
}

@Injectable()
export class ConsoleActivityRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  async insert(id: string, e: ConsoleActivityRecordRequest): Promise<ConsoleActivityEntry> {
    const rows = await this.db.rows<ActivityRow>(
      `INSERT INTO accounts.console_activity (id, org_id, mode, actor_id, actor_email, action, target_id, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${ACTIVITY_COLUMNS}`,
      [id, e.org_id, e.mode, e.actor_id, e.actor_email, e.action, e.target_id, JSON.stringify(e.details)],
    );
    return toEntry(rows[0]!);
  }

  /** The position of an entry in its organization's log, or null when the organization has no such entry. */
  async positionOf(orgId: string, id: string): Promise<string | null> {
    const rows = await this.db.rows<{ seq: string }>(`SELECT seq FROM accounts.console_activity WHERE id = $1 AND org_id = $2`, [id, orgId]);
    return rows[0]?.seq ?? null;
  }

  /** An organization's entries, newest first, those before position `before` when given. */
  async list(orgId: string, limit: number, before: string | null): Promise<ConsoleActivityEntry[]> {
    const rows = await this.db.rows<ActivityRow>(
      `SELECT ${ACTIVITY_COLUMNS} FROM accounts.console_activity
        WHERE org_id = $1 AND ($2::bigint IS NULL OR seq < $2::bigint)
        ORDER BY seq DESC LIMIT $3`,
      [orgId, before, limit],
    );
    return rows.map(toEntry);
  }
}
