import { once } from 'node:events';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, createRedis } from '@verity/platform';
import { ipBucket, keyBuckets, type Bucket } from '@verity/ratelimit';
import { isolationPrefix, TEST_REDIS_URL } from '@verity/testing';
import type { Redis } from 'ioredis';
import { RateLimiter } from '../src/access/rate-limiter.js';

const REDIS_URL = TEST_REDIS_URL;
const log = createLogger('gateway', 'us', 'silent');

let redis: Redis;
let limiter: RateLimiter;
let prefix: string;

before(async () => {
  prefix = isolationPrefix('ratelimiter');
  redis = createRedis(REDIS_URL, 'rate-limiter-int-test');
  limiter = new RateLimiter(redis, prefix, log);
  if (redis.status !== 'ready') await once(redis, 'ready');
});

after(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

/** A bucket of its own for one test: a fresh key id. */
function bucketOf(label: string, nowMs = Date.now()): Bucket[] {
  return keyBuckets(`key_${label}${Math.random().toString(36).slice(2, 10)}`, 'applicants:create', 'standard', null, nowMs);
}

describe('RateLimiter against real Redis', () => {
  it('counts atomically: 200 concurrent increments of one bucket get the counts 1..200, each exactly once', async () => {
    const now = Date.now();
    const [bucket] = bucketOf('concurrent', now);
    const results = await Promise.all(Array.from({ length: 200 }, () => limiter.increment([bucket!], now)));
    const counts = results.map((r) => {
      assert.ok(r !== null, 'Redis answered');
      assert.equal(r.length, 1);
      return r[0]!;
    });
    assert.deepEqual(
      [...counts].sort((a, b) => a - b),
      Array.from({ length: 200 }, (_, i) => i + 1),
    );
    assert.equal(await redis.get(`${prefix}${bucket!.key}`), '200');
    assert.equal(limiter.isHealthy, true);
  });

  it('increments every bucket of a request in one call and returns their counts in order', async () => {
    const now = Date.now();
    const buckets = [ipBucket('203.0.113.7', 1000, now), ...bucketOf('multi', now)];
    assert.deepEqual(await limiter.increment(buckets, now), [1, 1, 1]);
    assert.deepEqual(await limiter.increment(buckets, now), [2, 2, 2]);
    // the class bucket alone moves on; global of the same key counted with it
    assert.deepEqual(await limiter.increment(buckets.slice(1), now), [3, 3]);
    assert.deepEqual(await limiter.increment([], now), []);
    for (const b of buckets) assert.ok(await redis.exists(`${prefix}${b.key}`), `${b.key} lives under the prefix`);
  });

  it('counters expire after their window (plus a small margin), only the first increment sets the expiry, the next window counts anew', async () => {
    const now = Date.now();
    const keyId = `key_expiry${Math.random().toString(36).slice(2, 10)}`;
    const [bucket] = keyBuckets(keyId, 'reads', 'standard', null, now);
    const key = `${prefix}${bucket!.key}`;
    await limiter.increment([bucket!], now);
    const expiresAt = Number(await redis.call('EXPIRETIME', key));
    assert.ok(expiresAt >= bucket!.resetAt, `expires at ${expiresAt}, not before the window ends at ${bucket!.resetAt}`);
    assert.ok(expiresAt <= bucket!.resetAt + 6, `expires at ${expiresAt}, soon after the window ends at ${bucket!.resetAt}`);
    assert.deepEqual(await limiter.increment([bucket!], now + 1500), [2]);
    assert.equal(Number(await redis.call('EXPIRETIME', key)), expiresAt, 'later increments do not extend the window');

    const later = now + 60_000;
    const [next] = keyBuckets(keyId, 'reads', 'standard', null, later);
    assert.notEqual(next!.key, bucket!.key);
    assert.deepEqual(await limiter.increment([next!], later), [1]);
  });

  it('a 24-hour bucket expires at the end of its UTC day', async () => {
    const now = Date.now();
    const [dsar] = keyBuckets(`key_dsar${Math.random().toString(36).slice(2, 10)}`, 'dsar:create', 'standard', null, now);
    await limiter.increment([dsar!], now);
    const expiresAt = Number(await redis.call('EXPIRETIME', `${prefix}${dsar!.key}`));
    assert.equal(dsar!.resetAt % 86_400, 0);
    assert.ok(expiresAt >= dsar!.resetAt && expiresAt <= dsar!.resetAt + 6);
  });

  it('fails open when Redis cannot be reached: null counts, unhealthy, ping false', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const away = createRedis(`redis://127.0.0.1:${port}`, 'rate-limiter-int-away');
    away.on('error', () => undefined);
    try {
      const closed = new RateLimiter(away, prefix, log);
      const now = Date.now();
      assert.equal(await closed.increment(bucketOf('away', now), now), null);
      assert.equal(closed.isHealthy, false);
      assert.equal(await closed.ping(), false);
      // still no answer once the client has tried and failed to connect
      await once(away, 'error');
      assert.equal(await closed.increment(bucketOf('away', now), now), null);
      assert.equal(closed.isHealthy, false);
    } finally {
      away.disconnect();
    }
    // the healthy limiter is unaffected
    assert.equal(limiter.isHealthy, true);
    assert.equal(await limiter.ping(), true);
  });
});
