/** Route classes and the per-key budgets of docs/rate-limits.md. */
export const ROUTE_CLASSES = [
  'sessions:create',
  'applicants:create',
  'dsar:create',
  'reads',
  'global',
  'sessions:read_image',
] as const;
export type RouteClass = (typeof ROUTE_CLASSES)[number];
export const TIERS = ['standard', 'elevated', 'enterprise', 'custom'] as const;
export type Tier = (typeof TIERS)[number];
export type CustomLimits = Partial<Record<RouteClass, number>>;

export function isRouteClass(s: string): s is RouteClass {
  return (ROUTE_CLASSES as readonly string[]).includes(s);
}
export function isTier(s: string): s is Tier {
  return (TIERS as readonly string[]).includes(s);
}

const MINUTE = 60;
const DAY = 24 * 60 * 60;

export const WINDOW_SECONDS: Record<RouteClass, number> = {
  'sessions:create': MINUTE,
  'applicants:create': MINUTE,
  'dsar:create': DAY,
  reads: MINUTE,
  global: MINUTE,
  'sessions:read_image': MINUTE,
};

type FixedTier = Exclude<Tier, 'custom'>;
export const TIER_LIMITS: Record<FixedTier, Record<RouteClass, number>> = {
  standard: {
    'sessions:create': 60,
    'applicants:create': 60,
    reads: 300,
    global: 600,
    'sessions:read_image': 120,
    'dsar:create': 10,
  },
  elevated: {
    'sessions:create': 300,
    'applicants:create': 300,
    reads: 1200,
    global: 2400,
    'sessions:read_image': 120,
    'dsar:create': 50,
  },
  enterprise: {
    'sessions:create': 1500,
    'applicants:create': 1500,
    reads: 6000,
    global: 12000,
    'sessions:read_image': 120,
    'dsar:create': 200,
  },
};

/** The image class is 120 on every tier, `custom` included. */
const FIXED_ON_EVERY_TIER: Partial<Record<RouteClass, number>> = { 'sessions:read_image': 120 };

/** Budget of one class for an organization. A `custom` org falls back to `standard` for classes it does not set. */
export function limitFor(tier: Tier, routeClass: RouteClass, custom?: CustomLimits | null): number {
  const fixed = FIXED_ON_EVERY_TIER[routeClass];
  if (fixed !== undefined) return fixed;
  if (tier === 'custom') return custom?.[routeClass] ?? TIER_LIMITS.standard[routeClass];
  return TIER_LIMITS[tier][routeClass];
}

/** Validates operator-supplied custom limits: keys are route-class names, values positive integers. */
export function parseCustomLimits(input: unknown): { ok: true; value: CustomLimits } | { ok: false; message: string } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, message: 'limits must be a JSON object of route class to requests per window' };
  }
  const value: CustomLimits = {};
  for (const [k, v] of Object.entries(input)) {
    if (!isRouteClass(k)) return { ok: false, message: `unknown route class "${k}"` };
    if (k === 'sessions:read_image') return { ok: false, message: 'sessions:read_image is 120 on every tier' };
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 1_000_000_000) {
      return { ok: false, message: `limit of "${k}" must be a whole number from 1 to 1000000000` };
    }
    value[k] = v;
  }
  return { ok: true, value };
}
