import { limitFor, WINDOW_SECONDS, type CustomLimits, type RouteClass, type Tier } from './limits.js';

/** One fixed-window counter, aligned to the epoch (a 60 s window starts on the minute). */
export interface Bucket {
  /** Redis key without the region prefix. */
  key: string;
  routeClass: RouteClass | 'ip' | 'capture';
  limit: number;
  windowSeconds: number;
  resetAt: number;
}

export function windowStart(nowMs: number, windowSeconds: number): number {
  const now = Math.floor(nowMs / 1000);
  return now - (now % windowSeconds);
}

function bucket(owner: string, routeClass: Bucket['routeClass'], limit: number, windowSeconds: number, nowMs: number): Bucket {
  const start = windowStart(nowMs, windowSeconds);
  return { key: `rl:${owner}:${routeClass}:${start}`, routeClass, limit, windowSeconds, resetAt: start + windowSeconds };
}

export function ipBucket(ip: string, limit: number, nowMs: number): Bucket {
  return bucket(`ip:${ip}`, 'ip', limit, 60, nowMs);
}

/** Requests a capture session may make per minute (docs/rate-limits.md), on every tier. */
export const CAPTURE_LIMIT_PER_MINUTE = 120;

/** The bucket of a capture request: per session (a client secret, not an API key), 120 a minute. */
export function captureBucket(sessionId: string, nowMs: number): Bucket {
  return bucket(`capture:${sessionId}`, 'capture', CAPTURE_LIMIT_PER_MINUTE, 60, nowMs);
}

/** The buckets a request of `routeClass` counts against: its own class and `global` (once, when the class is global). */
export function keyBuckets(
  keyId: string,
  routeClass: RouteClass,
  tier: Tier,
  custom: CustomLimits | null | undefined,
  nowMs: number,
): Bucket[] {
  const classes: RouteClass[] = routeClass === 'global' ? ['global'] : [routeClass, 'global'];
  return classes.map((c) => bucket(`key:${keyId}`, c, limitFor(tier, c, custom), WINDOW_SECONDS[c], nowMs));
}

export interface BucketState {
  bucket: Bucket;
  count: number;
  remaining: number;
}

export interface LimitDecision {
  allowed: boolean;
  /** The bucket the headers describe: the one with the fewest requests remaining (on refusal, the one that ran out). */
  shown: BucketState;
}

/**
 * Decides from counters already incremented for this request. A request is refused when any bucket is over its
 * limit; every request that reached a bucket has counted against it, refused ones included.
 */
export function decide(buckets: Bucket[], counts: number[]): LimitDecision {
  if (buckets.length === 0 || buckets.length !== counts.length) throw new Error('decide: one count per bucket');
  let shown: BucketState | undefined;
  let exceeded: BucketState | undefined;
  buckets.forEach((b, i) => {
    const count = counts[i]!;
    const state: BucketState = { bucket: b, count, remaining: Math.max(0, b.limit - count) };
    if (count > b.limit && !exceeded) exceeded = state;
    if (!shown || state.remaining < shown.remaining) shown = state;
  });
  if (exceeded) return { allowed: false, shown: exceeded };
  return { allowed: true, shown: shown! };
}

export function rateLimitHeaders(state: BucketState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(state.bucket.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset': String(state.bucket.resetAt),
    'x-ratelimit-window': String(state.bucket.windowSeconds),
  };
}

/** `details` of a 429. */
export function rateLimitDetails(state: BucketState, tier: Tier | null): Record<string, unknown> {
  return {
    reset_at: state.bucket.resetAt,
    limit: state.bucket.limit,
    window_seconds: state.bucket.windowSeconds,
    route_class: state.bucket.routeClass,
    tier,
  };
}

/**
 * Increments every key given and sets its expiry on first use, atomically, returning the counts.
 * KEYS: counter keys; ARGV: expiry in seconds for each key.
 */
export const INCREMENT_SCRIPT = `
local out = {}
for i, k in ipairs(KEYS) do
  local c = redis.call('INCR', k)
  if c == 1 then redis.call('EXPIRE', k, tonumber(ARGV[i])) end
  out[i] = c
end
return out
`;

/** Expiry for a counter key: the rest of its window plus a margin for clock skew between gateways. */
export function expirySeconds(b: Bucket, nowMs: number): number {
  return Math.max(1, b.resetAt - Math.floor(nowMs / 1000)) + 5;
}
