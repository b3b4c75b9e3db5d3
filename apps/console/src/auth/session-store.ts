import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Mode } from '@verity/keys';
import type { Redis } from 'ioredis';

/** A signed-in session, as kept in Redis under the hash of its cookie (the cookie's value is never stored). */
export interface ConsoleSession {
  user_id: string;
  org_id: string;
  /** The mode the pages show and act in; test until the person switches. */
  mode: Mode;
  /** The token every form of this session carries (cross-site request protection). */
  csrf: string;
  /** The person's session epoch when it was made: it opens pages only while that is still theirs. */
  epoch: number;
}

/** Random, 256 bits, URL-safe: session cookies, form tokens. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** A session as Redis holds it: the session and when it began (for its absolute lifetime). */
interface SessionRecord extends ConsoleSession {
  created_at: number;
}

/**
 * The key that signs session records: derived from the region's INTERNAL_AUTH_SECRET (HKDF, its own label), so
 * that nothing in Redis can make or change a session without a secret Redis never sees.
 */
export function sessionSigningKey(internalAuthSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', internalAuthSecret, 'verity-console', 'console session record v1', 32));
}

/**
 * A record as stored: `<mac>.<json>`, the MAC (HMAC-SHA-256) over the Redis key it is stored under and the JSON,
 * so a record moved to another key (another cookie) does not open either.
 */
export function sealRecord<R extends { created_at: number }>(signingKey: Buffer, redisKey: string, record: R): string {
  const json = JSON.stringify(record);
  return `${mac(signingKey, redisKey, json)}.${json}`;
}

/** The record stored under `redisKey`, or null when its MAC does not hold or it is past `maxAgeMs` since it began. */
export function openRecord<R extends { created_at: number } = SessionRecord>(signingKey: Buffer, redisKey: string, stored: string, now: number, maxAgeMs: number): R | null {
  const dot = stored.indexOf('.');
  if (dot < 0) return null;
  const json = stored.slice(dot + 1);
  const given = Buffer.from(stored.slice(0, dot));
  const expected = Buffer.from(mac(signingKey, redisKey, json));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const record = JSON.parse(json) as R;
  return now - record.created_at < maxAgeMs ? record : null;
}

function mac(signingKey: Buffer, redisKey: string, json: string): string {
  return createHmac('sha256', signingKey).update(redisKey).update('\n').update(json).digest('base64url');
}

/**
 * Console sessions in Redis, shared by every replica of the region's console: created at sign-in, extended by
 * each page view (idle expiry) up to an absolute lifetime from sign-in, removed at sign-out. Each record is
 * signed (`sealRecord`): one written or changed by anyone without the region's secret opens nothing. A session
 * Redis has lost simply sends the person to sign in.
 */
export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly lifetime: { idleMs: number; maxAgeMs: number },
    private readonly signingKey: Buffer,
  ) {}

  private key(token: string): string {
    return `${this.prefix}console:session:${digest(token)}`;
  }

  /** Kept in Redis until the idle timeout, never past the absolute lifetime. */
  private ttl(record: SessionRecord): number {
    return Math.max(1, Math.min(this.lifetime.idleMs, record.created_at + this.lifetime.maxAgeMs - Date.now()));
  }

  private async write(token: string, record: SessionRecord): Promise<void> {
    const key = this.key(token);
    await this.redis.set(key, sealRecord(this.signingKey, key, record), 'PX', this.ttl(record));
  }

  /** A new session; returns the cookie value. */
  async create(user_id: string, org_id: string, epoch: number): Promise<string> {
    const token = newToken();
    await this.write(token, { user_id, org_id, mode: 'test', csrf: newToken(), epoch, created_at: Date.now() });
    return token;
  }

  /** The session of a cookie value, extended; null when unknown, expired, past its lifetime or not signed by this region. */
  async get(token: string): Promise<ConsoleSession | null> {
    const record = await this.record(token);
    if (!record) return null;
    await this.redis.pexpire(this.key(token), this.ttl(record));
    const { created_at: _, ...session } = record;
    return session;
  }

  private async record(token: string): Promise<SessionRecord | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const key = this.key(token);
    const text = await this.redis.get(key);
    if (text === null) return null;
    const record = openRecord(this.signingKey, key, text, Date.now(), this.lifetime.maxAgeMs);
    if (!record) await this.redis.del(key);
    return record;
  }

  async setMode(token: string, mode: Mode): Promise<void> {
    const record = await this.record(token);
    if (record) await this.write(token, { ...record, mode });
  }

  async destroy(token: string): Promise<void> {
    await this.redis.del(this.key(token));
  }
}

/**
 * A sign-in half done (docs/console.md, "Two-factor sign-in"): the password was right, the code is asked next. Kept
 * in Redis under the SHA-256 of a cookie of its own, signed as sessions are (its Redis key says what it is, so a
 * session record cannot pass for one), for `CHALLENGE_TTL_MS` at most; it opens no page, only the code step.
 */
export interface SignInChallenge {
  user_id: string;
  /** The address signed in with: the code step counts its attempts under it, with the password's. */
  email: string;
  /** The person's session epoch when the password was checked: a change since (a new password) ends the challenge. */
  epoch: number;
  /** Where to go once signed in. */
  next: string;
  created_at: number;
}

/** How long the code step waits after the password. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

export class ChallengeStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly signingKey: Buffer,
  ) {}

  private key(token: string): string {
    return `${this.prefix}console:challenge:${digest(token)}`;
  }

  async create(c: Omit<SignInChallenge, 'created_at'>): Promise<string> {
    const token = newToken();
    const key = this.key(token);
    await this.redis.set(key, sealRecord(this.signingKey, key, { ...c, created_at: Date.now() }), 'PX', CHALLENGE_TTL_MS);
    return token;
  }

  async get(token: string): Promise<SignInChallenge | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const key = this.key(token);
    const text = await this.redis.get(key);
    if (text === null) return null;
    const record = openRecord<SignInChallenge>(this.signingKey, key, text, Date.now(), CHALLENGE_TTL_MS);
    if (!record) await this.redis.del(key);
    return record;
  }

  async destroy(token: string): Promise<void> {
    await this.redis.del(this.key(token));
  }
}

/**
 * Counts an attempt under each key (email, then client address) and reports each count and the milliseconds left
 * of its window, in one step: two sign-ins at once can never both read a count from before the other's.
 */
const ADMIT_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
  out[#out + 1] = n
  out[#out + 1] = redis.call('PTTL', key)
end
return out`;

/** Clears the email's count and gives the address its attempt back (a window that ended is not started again). */
const SUCCEEDED_SCRIPT = `
redis.call('DEL', KEYS[1])
if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
return 1`;

/**
 * Sign-in attempts, per email address and per client address in a fixed window that starts with the first
 * attempt counted (failing more never extends it, so nobody can keep an account locked for longer than the
 * window by failing on it). An attempt is counted **before** its password is checked, atomically, so a burst at
 * once gets no more checks than the limit; past either limit sign-in is refused until that window ends, whatever
 * the password. A success clears the email's count and gives its attempt back to the client address.
 */
export class LoginLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: { perEmail: number; perIp: number; windowMs: number },
  ) {}

  private keys(email: string, ip: string): [string, string] {
    return [`${this.prefix}console:login:email:${digest(email.toLowerCase())}`, `${this.prefix}console:login:ip:${digest(ip)}`];
  }

  /**
   * Counts this attempt. 0: it may check the password now; otherwise the milliseconds until sign-in is allowed
   * again (the attempt is refused without a check).
   */
  async admit(email: string, ip: string): Promise<number> {
    const [e, eTtl, i, iTtl] = (await this.redis.eval(ADMIT_SCRIPT, 2, ...this.keys(email, ip), this.limits.windowMs)) as number[];
    const waits: number[] = [];
    if (e! > this.limits.perEmail) waits.push(eTtl!);
    if (i! > this.limits.perIp) waits.push(iTtl!);
    return waits.length === 0 ? 0 : Math.max(1000, ...waits);
  }

  /** The attempt admitted was the right password. */
  async succeeded(email: string, ip: string): Promise<void> {
    await this.redis.eval(SUCCEEDED_SCRIPT, 2, ...this.keys(email, ip));
  }
}
