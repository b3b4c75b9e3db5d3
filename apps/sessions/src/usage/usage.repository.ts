import { Inject, Injectable } from '@nestjs/common';
import type { CheckType, UsageRow } from '@verity/contracts';
import type { Mode } from '@verity/keys';
import { Sql } from '@verity/platform';

/**
 * The metering counters (`sessions.usage_daily`): written by the create statement (SessionsRepository), read here.
 * Counts only, no personal data: the test-data purge and an erasure leave them.
 */
@Injectable()
export class UsageRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /** The organization's counters of the UTC days `from` to `to` (both included), by day, mode and check (byte order). */
  async daily(orgId: string, from: string, to: string): Promise<UsageRow[]> {
    const rows = await this.db.rows<{ day: string; mode: Mode; check: CheckType; count: string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, mode, "check", count FROM sessions.usage_daily
        WHERE org_id = $1 AND day BETWEEN $2::date AND $3::date
        ORDER BY day, mode COLLATE "C", "check" COLLATE "C"`,
      [orgId, from, to],
    );
    return rows.map((r) => ({ day: r.day, mode: r.mode, check: r.check, count: Number(r.count) }));
  }
}
