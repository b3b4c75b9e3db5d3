import { createHash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'idv';
export const REGIONS = ['us', 'eu'] as const;
export const MODES = ['test', 'live'] as const;
export const KEY_TYPES = ['sk', 'pk'] as const;
export type Region = (typeof REGIONS)[number];
export type Mode = (typeof MODES)[number];
export type KeyType = (typeof KEY_TYPES)[number];

export const SCOPES = [
  'applicants:read',
  'applicants:write',
  'sessions:read',
  'sessions:write',
  'sessions:read_report',
  'workflows:read',
  'workflows:write',
  'webhooks:read',
  'idv:scan',
  'dsar:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

export interface ParsedKey {
  type: KeyType;
  region: Region;
  mode: Mode;
}

const SECRET_LENGTH = 43;
const KEY_RE = /^idv_(sk|pk)_(us|eu)_(live|test)_([A-Za-z0-9]{43})$/;
const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Reads type, region and mode from a key's own text; null when the text is not a key. */
export function parseApiKey(raw: string): ParsedKey | null {
  const m = KEY_RE.exec(raw);
  if (!m) return null;
  return { type: m[1] as KeyType, region: m[2] as Region, mode: m[3] as Mode };
}

// Random bytes are drawn from the CSPRNG in blocks: one system call per few hundred identifiers.
const POOL_SIZE = 8192;
let pool = randomBytes(POOL_SIZE);
let poolPos = 0;

function nextRandomByte(): number {
  if (poolPos >= POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    poolPos = 0;
  }
  return pool[poolPos++]!;
}

/** Uniformly random characters of [A-Za-z0-9], by rejection sampling (no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    const b = nextRandomByte();
    if (b < 248) out += ALPHANUM[b % 62];
  }
  return out;
}

export function generateApiKey(type: KeyType, region: Region, mode: Mode): string {
  return `${KEY_PREFIX}_${type}_${region}_${mode}_${randomAlphanumeric(SECRET_LENGTH)}`;
}

/** SHA-256 of the whole key, hex. The only form in which a key is stored. */
export function hashApiKey(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}
