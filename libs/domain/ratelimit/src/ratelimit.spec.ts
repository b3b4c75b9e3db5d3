import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decide, ipBucket, keyBuckets, limitFor, parseCustomLimits, rateLimitDetails, rateLimitHeaders, windowStart } from './index.js';

const T = Date.UTC(2026, 10, 22, 10, 15, 42, 500); // 10:15:42.5

describe('windows', () => {
  it('align to the epoch minute and to the UTC day for dsar', () => {
    assert.equal(windowStart(T, 60), Math.floor(Date.UTC(2026, 10, 22, 10, 15) / 1000));
    assert.equal(windowStart(T, 86400), Math.floor(Date.UTC(2026, 10, 22) / 1000));
  });

  it('a class counts with global; global alone once', () => {
    const b = keyBuckets('key_1', 'applicants:create', 'standard', null, T);
    assert.deepEqual(b.map((x) => [x.routeClass, x.limit, x.windowSeconds]), [
      ['applicants:create', 60, 60],
      ['global', 600, 60],
    ]);
    assert.equal(b[0]!.resetAt, Math.floor(Date.UTC(2026, 10, 22, 10, 16) / 1000));
    assert.deepEqual(keyBuckets('key_1', 'global', 'standard', null, T).map((x) => x.routeClass), ['global']);
    const d = keyBuckets('key_1', 'dsar:create', 'elevated', null, T);
    assert.deepEqual([d[0]!.limit, d[0]!.windowSeconds], [50, 86400]);
  });

  it('keys of different keys never share a counter', () => {
    const a = keyBuckets('key_a', 'reads', 'standard', null, T);
    const b = keyBuckets('key_b', 'reads', 'standard', null, T);
    assert.notEqual(a[0]!.key, b[0]!.key);
    assert.notEqual(ipBucket('1.2.3.4', 1000, T).key, a[0]!.key);
  });
});

describe('limits', () => {
  it('follow the tier table', () => {
    assert.equal(limitFor('standard', 'reads'), 300);
    assert.equal(limitFor('elevated', 'sessions:create'), 300);
    assert.equal(limitFor('enterprise', 'global'), 12000);
  });
  it('image class is 120 on every tier, custom included', () => {
    for (const t of ['standard', 'elevated', 'enterprise', 'custom'] as const) {
      assert.equal(limitFor(t, 'sessions:read_image', { 'sessions:read_image': 9999 }), 120);
    }
  });
  it('custom uses its own numbers, standard for the rest', () => {
    assert.equal(limitFor('custom', 'reads', { reads: 5000 }), 5000);
    assert.equal(limitFor('custom', 'global', { reads: 5000 }), 600);
  });
  it('custom limits are validated', () => {
    assert.deepEqual(parseCustomLimits({ reads: 5000 }), { ok: true, value: { reads: 5000 } });
    assert.equal(parseCustomLimits({ nope: 1 }).ok, false);
    assert.equal(parseCustomLimits({ reads: 0 }).ok, false);
    assert.equal(parseCustomLimits({ reads: 1.5 }).ok, false);
    assert.equal(parseCustomLimits({ 'sessions:read_image': 500 }).ok, false);
    assert.equal(parseCustomLimits([]).ok, false);
  });
});

describe('decide', () => {
  const buckets = keyBuckets('key_1', 'applicants:create', 'standard', null, T);

  it('allows within budget and shows the bucket with fewest remaining', () => {
    const d = decide(buckets, [10, 500]);
    assert.equal(d.allowed, true);
    assert.equal(d.shown.bucket.routeClass, 'applicants:create');
    assert.equal(d.shown.remaining, 50);
    const d2 = decide(buckets, [10, 595]);
    assert.equal(d2.shown.bucket.routeClass, 'global');
    assert.equal(d2.shown.remaining, 5);
  });

  it('the request that reaches the limit is allowed, the next refused', () => {
    assert.equal(decide(buckets, [60, 60]).allowed, true);
    const d = decide(buckets, [61, 61]);
    assert.equal(d.allowed, false);
    assert.equal(d.shown.bucket.routeClass, 'applicants:create');
    assert.equal(d.shown.remaining, 0);
  });

  it('names global when global ran out', () => {
    const d = decide(buckets, [3, 601]);
    assert.equal(d.allowed, false);
    assert.equal(d.shown.bucket.routeClass, 'global');
  });

  it('headers and 429 details', () => {
    const d = decide(buckets, [61, 61]);
    assert.deepEqual(rateLimitHeaders(d.shown), {
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(buckets[0]!.resetAt),
      'x-ratelimit-window': '60',
    });
    assert.deepEqual(rateLimitDetails(d.shown, 'standard'), {
      reset_at: buckets[0]!.resetAt,
      limit: 60,
      window_seconds: 60,
      route_class: 'applicants:create',
      tier: 'standard',
    });
  });
});
