/** Retry timing, pure: the client's HTTP loop asks these how long to wait. */

export interface BackoffOptions {
  /** First retry's upper bound (ms). */
  baseMs: number;
  /** Largest upper bound (ms). */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, capMs: 8_000 };

/**
 * Exponential backoff with full jitter: a uniformly random wait in [0, min(cap, base * 2^retry)), `retry`
 * counting from 0. Full jitter spreads clients that failed together so that they do not retry together.
 */
export function backoffDelay(retry: number, opts: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const ceiling = Math.min(opts.capMs, opts.baseMs * 2 ** Math.max(0, retry));
  return Math.floor(random() * ceiling);
}

/**
 * How long to wait after a 429: until `reset_at` (epoch seconds, from `error.details.reset_at` or else the
 * `X-RateLimit-Reset` header), plus a little jitter so that waiting clients do not all come back at the same
 * instant. Null when the answer names no reset time.
 */
export function rateLimitDelay(resetAt: number | null, nowMs: number, random: () => number = Math.random): number | null {
  if (resetAt === null || !Number.isFinite(resetAt)) return null;
  return Math.max(0, resetAt * 1000 - nowMs) + Math.floor(random() * 250);
}

/** The reset time of a 429: `details.reset_at` of the envelope, else the `X-RateLimit-Reset` header. */
export function resetAtOf(details: Record<string, unknown> | undefined, headers: Headers): number | null {
  const fromBody = details?.['reset_at'];
  if (typeof fromBody === 'number' && Number.isFinite(fromBody)) return fromBody;
  const fromHeader = headers.get('x-ratelimit-reset');
  return fromHeader !== null && /^[0-9]+$/.test(fromHeader) ? Number(fromHeader) : null;
}
