import { createHash, randomBytes } from 'node:crypto';
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
}

/** Random, 256 bits, URL-safe: session cookies, form tokens. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/**
 * Console sessions in Redis, shared by every replica of the region's console: created at sign-in, extended by
 * each page view (idle expiry), removed at sign-out. A session Redis has lost simply sends the person to sign in.
 */
export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly idleMs: number,
  ) {}

  private key(token: string): string {
    return `${this.prefix}console:session:${digest(token)}`;
  }

  /** A new session; returns the cookie value. */
  async create(user_id: string, org_id: string): Promise<string> {
    const token = newToken();
    const session: ConsoleSession = { user_id, org_id, mode: 'test', csrf: newToken() };
    await this.redis.set(this.key(token), JSON.stringify(session), 'PX', this.idleMs);
    return token;
  }

  /** The session of a cookie value, extended; null when unknown or expired. */
  async get(token: string): Promise<ConsoleSession | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const key = this.key(token);
    const text = await this.redis.get(key);
    if (text === null) return null;
    await this.redis.pexpire(key, this.idleMs);
    return JSON.parse(text) as ConsoleSession;
  }

  async setMode(token: string, mode: Mode): Promise<void> {
    const s = await this.get(token);
    if (s) await this.redis.set(this.key(token), JSON.stringify({ ...s, mode }), 'PX', this.idleMs);
  }

  async destroy(token: string): Promise<void> {
    await this.redis.del(this.key(token));
  }
}

/**
 * Sign-in attempts: failures are counted per email address and per client address in a fixed window; past
 * either limit, sign-in is refused until the window ends, whatever the password. A success clears the
 * address's email count.
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

  /** Milliseconds until sign-in is allowed again, or 0 when it is allowed now. */
  async blockedFor(email: string, ip: string): Promise<number> {
    const [ek, ik] = this.keys(email, ip);
    const [e, i] = await this.redis.mget(ek, ik);
    const over: string[] = [];
    if (Number(e ?? 0) >= this.limits.perEmail) over.push(ek);
    if (Number(i ?? 0) >= this.limits.perIp) over.push(ik);
    if (over.length === 0) return 0;
    const ttls = await Promise.all(over.map((k) => this.redis.pttl(k)));
    return Math.max(1000, ...ttls);
  }

  async failed(email: string, ip: string): Promise<void> {
    const m = this.redis.multi();
    for (const k of this.keys(email, ip)) m.incr(k).pexpire(k, this.limits.windowMs, 'NX');
    await m.exec();
  }

  async succeeded(email: string, ip: string): Promise<void> {
    await this.redis.del(this.keys(email, ip)[0]);
  }
}
