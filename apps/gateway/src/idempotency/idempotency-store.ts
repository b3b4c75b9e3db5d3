import type { Redis } from 'ioredis';
import { parseRecord, type IdempotencyRecord } from './idempotency-key.js';

/** Takes the key when free (the lease, with its expiry); otherwise answers what holds it. */
const CLAIM = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return redis.call('GET', KEYS[1])
`;

/** Stores the answer unless another request holds the key now (this one's lease ran out and it was taken). */
const FINISH = `
local v = redis.call('GET', KEYS[1])
if v and cjson.decode(v).owner ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;

/** Frees the key if this request still holds its lease (a 5xx answer is not kept). */
const RELEASE = `
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local r = cjson.decode(v)
if r.owner ~= ARGV[1] or r.state ~= 'running' then return 0 end
return redis.call('DEL', KEYS[1])
`;

type WithScripts = Redis & {
  idemClaim(key: string, value: string, leaseMs: number): Promise<string | null>;
  idemFinish(key: string, owner: string, value: string, ttlMs: number): Promise<number>;
  idemRelease(key: string, owner: string): Promise<number>;
};

/** Redis did not answer: a request with a key is then refused (503), never run unprotected. */
export class IdempotencyStoreUnavailable extends Error {}

/**
 * The records of Idempotency-Keys in the region's Redis, shared by every gateway replica: each operation is one
 * atomic script call.
 */
export class IdempotencyStore {
  private readonly redis: WithScripts;

  constructor(redis: Redis) {
    redis.defineCommand('idemClaim', { numberOfKeys: 1, lua: CLAIM });
    redis.defineCommand('idemFinish', { numberOfKeys: 1, lua: FINISH });
    redis.defineCommand('idemRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis = redis as WithScripts;
  }

  /** Null when this request now holds the key; otherwise the record that holds it. */
  async claim(key: string, owner: string, fp: string, leaseMs: number): Promise<IdempotencyRecord | null> {
    const lease: IdempotencyRecord = { state: 'running', owner, fp };
    const held = await this.run(() => this.redis.idemClaim(key, JSON.stringify(lease), leaseMs));
    if (held === null) return null;
    // unreadable (not written by this code): answered as another request's, so nothing runs twice
    return parseRecord(held) ?? { state: 'running', owner: '', fp: '' };
  }

  /** True when the answer was stored. */
  async finish(key: string, record: Extract<IdempotencyRecord, { state: 'done' }>, ttlMs: number): Promise<boolean> {
    return (await this.run(() => this.redis.idemFinish(key, record.owner, JSON.stringify(record), ttlMs))) === 1;
  }

  async release(key: string, owner: string): Promise<void> {
    await this.run(() => this.redis.idemRelease(key, owner));
  }

  private async run<T>(op: () => Promise<T>): Promise<T> {
    // the client has no offline queue: fail at once rather than wait for a reconnect
    if (this.redis.status !== 'ready') throw new IdempotencyStoreUnavailable('redis is not connected');
    try {
      return await op();
    } catch (e) {
      throw new IdempotencyStoreUnavailable((e as Error).message);
    }
  }
}
