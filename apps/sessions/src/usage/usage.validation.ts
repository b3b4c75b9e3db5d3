import type { UsageRequest } from '@verity/contracts';
import { DomainError, type Issue } from '@verity/errors';
import { isId } from '@verity/keys';

/** The most days one usage request spans, both ends included (a leap year). */
export const USAGE_MAX_DAYS = 366;

const DAY_MS = 86_400_000;

/** A `YYYY-MM-DD` that names a day of the calendar (not `2026-02-30`): its UTC midnight, in ms; null otherwise. */
function dayOf(v: unknown): number | null {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return null;
  const t = Date.parse(`${v}T00:00:00Z`);
  return Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== v ? null : t;
}

/**
 * The request of `sessions.admin.usage.v1`: an organization id, and `from` ≤ `to` as `YYYY-MM-DD` (UTC days, both
 * included) spanning at most `USAGE_MAX_DAYS` days. 422 `validation_error` naming the first field at fault.
 */
export function validateUsageRequest(req: unknown): UsageRequest {
  const r = (typeof req === 'object' && req !== null && !Array.isArray(req) ? req : {}) as Record<string, unknown>;
  const issues: Issue[] = [];
  if (!isId('org', r.org_id)) issues.push({ code: 'invalid_value', message: 'org_id must be an organization id', path: ['org_id'] });
  const from = dayOf(r.from);
  const to = dayOf(r.to);
  if (from === null) issues.push({ code: 'invalid_value', message: 'from must be a date as YYYY-MM-DD', path: ['from'] });
  if (to === null) issues.push({ code: 'invalid_value', message: 'to must be a date as YYYY-MM-DD', path: ['to'] });
  if (from !== null && to !== null) {
    if (to < from) issues.push({ code: 'invalid_value', message: 'to must not be before from', path: ['to'] });
    else if ((to - from) / DAY_MS + 1 > USAGE_MAX_DAYS) {
      issues.push({ code: 'invalid_value', message: `from and to may span at most ${USAGE_MAX_DAYS} days, both included`, path: ['to'] });
    }
  }
  if (issues.length > 0) throw DomainError.validation(issues);
  return { org_id: r.org_id as string, from: r.from as string, to: r.to as string };
}
