import { parseDuration, type RetryPolicy } from '@verity/platform';

/**
 * The retry schedule of webhook deliveries (docs/webhooks.md): the delay before each retry after a failed
 * attempt. A schedule of N retries allows at most N + 1 attempts; after the last one the delivery is failed.
 */
const DAY = 86_400_000;
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';
/** One attempt waits at most this long for the response headers (connect, TLS and request included). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** How long the previous signing secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = DAY;
const MAX_RETRIES = 20;
const MAX_RETRY_DELAY_MS = 7 * DAY;

export class RetryScheduleError extends Error {}

/**
 * Parses `WEBHOOK_RETRY_SCHEDULE` into the platform's retry policy (the delay before each retry of a round; after
 * the last, the delivery fails): comma-separated durations `<whole number><ms|s|m|h|d>` (spaces around entries
 * ignored). An empty string means no retries. Each delay is from 1 ms to 7 days; at most 20 retries.
 */
export function parseRetrySchedule(text: string): RetryPolicy {
  if (text.trim() === '') return { delaysMs: [] };
  const entries = text.split(',').map((e) => e.trim());
  if (entries.length > MAX_RETRIES) throw new RetryScheduleError(`at most ${MAX_RETRIES} retries, got ${entries.length}`);
  const delaysMs = entries.map((entry, i) => {
    const ms = parseDuration(entry);
    if (ms === null) throw new RetryScheduleError(`entry ${i + 1} "${entry.slice(0, 20)}" is not a duration such as 5s, 5m, 2h`);
    if (ms < 1 || ms > MAX_RETRY_DELAY_MS) throw new RetryScheduleError(`entry ${i + 1} "${entry}" must be from 1ms to 7d`);
    return ms;
  });
  return { delaysMs };
}

/** Attempts a round may make: the first one and one per retry. */
export function maxAttempts(schedule: RetryPolicy): number {
  return schedule.delaysMs.length + 1;
}
