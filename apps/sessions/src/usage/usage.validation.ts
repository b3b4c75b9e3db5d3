import type { UsageRequest } from '@verity/contracts';
import { parseBody } from '@verity/errors';
import { isId } from '@verity/keys';
import { isCalendarDay } from '@verity/metadata';
import { z } from 'zod';

/** The most days one usage request spans, both ends included (a leap year). */
export const USAGE_MAX_DAYS = 366;

const DAY_MS = 86_400_000;

/** A calendar day's UTC midnight, in ms; null when `v` is not one. */
const dayOf = (v: unknown): number | null => (isCalendarDay(v) ? Date.parse(`${v}T00:00:00Z`) : null);

const day = z.string().refine(isCalendarDay, 'must be a date as YYYY-MM-DD');

/** `from` ≤ `to`, spanning at most `USAGE_MAX_DAYS` days (both included); checked once both are days. */
const usageRequest = z
  .object({
    org_id: z.string().refine((v) => isId('org', v), 'must be an organization id'),
    from: day,
    to: day,
  })
  .superRefine((r, ctx) => {
    const from = dayOf(r.from);
    const to = dayOf(r.to);
    if (from === null || to === null) return;
    if (to < from) ctx.addIssue({ code: 'custom', message: 'must not be before from', path: ['to'] });
    else if ((to - from) / DAY_MS + 1 > USAGE_MAX_DAYS) ctx.addIssue({ code: 'custom', message: `from and to may span at most ${USAGE_MAX_DAYS} days, both included`, path: ['to'] });
  });

/**
 * The request of `sessions.admin.usage.v1`: an organization id, and `from` ≤ `to` as `YYYY-MM-DD` (UTC days, both
 * included) spanning at most `USAGE_MAX_DAYS` days. 422 `validation_error` naming the first field at fault.
 */
export function validateUsageRequest(req: unknown): UsageRequest {
  const { org_id, from, to } = parseBody(usageRequest, req);
  return { org_id, from, to };
}
