import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  adminCli,
  applicantRows,
  client,
  clientIp,
  closeOperators,
  createKey,
  errorOf,
  freshWindow,
  orgWithKey,
  rateLimitOf,
  times,
} from './support.js';

after(closeOperators);

/** The end of the current epoch-aligned 60 s window, in UNIX seconds, as seen now. */
function windowEnds(): { min: number; max: number } {
  const now = Math.floor(Date.now() / 1000);
  return { min: now + 1, max: now - (now % 60) + 60 };
}

describe('per-key limits', () => {
  it('applicants:create is 60 per minute on standard: Remaining counts down, the 61st is 429 with exact details and headers', async () => {
    await freshWindow();
    const { org, key } = await orgWithKey('us');
    const c = client('us', key);
    const remaining: number[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await c('POST', '/v1/applicants', { body: { family_name: `Counted ${i}` } });
      assert.equal(res.status, 201, res.text);
      const h = rateLimitOf(res);
      assert.equal(h.limit, 60);
      assert.equal(h.window, 60);
      remaining.push(h.remaining);
    }
    assert.deepEqual(remaining, Array.from({ length: 60 }, (_, i) => 59 - i));

    const end = windowEnds();
    const res = await c('POST', '/v1/applicants', { body: { family_name: 'One too many' } });
    assert.equal(res.status, 429);
    const e = errorOf(res);
    assert.equal(e.code, 'rate_limit_exceeded');
    assert.equal(e.type, 'rate_limit_error');
    const resetAt = (e.details as { reset_at: number }).reset_at;
    assert.deepEqual(e.details, { reset_at: resetAt, limit: 60, window_seconds: 60, route_class: 'applicants:create', tier: 'standard' });
    assert.ok(Number.isInteger(resetAt) && resetAt % 60 === 0, 'the window is aligned to the minute');
    assert.ok(resetAt >= end.min && resetAt <= end.max, `reset_at ${resetAt} ends the current window`);
    assert.deepEqual(rateLimitOf(res), { limit: 60, remaining: 0, reset: resetAt, window: 60 });
    assert.equal(await applicantRows('us', org.id), 60, 'the refused create wrote nothing');

    // another key of the same organization has budgets of its own
    const other = await createKey('us', org.id, { scopes: ['applicants:write'] });
    const fresh = await client('us', other.key)('POST', '/v1/applicants', { body: { family_name: 'Other key' } });
    assert.equal(fresh.status, 201);
    assert.equal(rateLimitOf(fresh).remaining, 59);
    // and the exhausted key stays refused until the window rolls over
    assert.equal((await c('POST', '/v1/applicants', { body: { family_name: 'Still too many' } })).status, 429);
  });

  it("a custom tier organization is limited at its operator-set number, named tier 'custom'", async () => {
    await freshWindow();
    const { org, key } = await orgWithKey('us');
    const set = await adminCli(['org', 'set-tier', '--region', 'us', '--org', org.id, '--tier', 'custom', '--limits', '{"applicants:create":5}']);
    assert.equal(set.code, 0, JSON.stringify(set.err));
    assert.equal((set.out as { tier: string }).tier, 'custom');
    const c = client('us', key);
    for (let i = 0; i < 5; i++) {
      const res = await c('POST', '/v1/applicants', { body: { family_name: `Custom ${i}` } });
      assert.equal(res.status, 201);
      assert.deepEqual([rateLimitOf(res).limit, rateLimitOf(res).remaining], [5, 4 - i]);
    }
    const res = await c('POST', '/v1/applicants', { body: { family_name: 'Sixth' } });
    assert.equal(res.status, 429);
    const e = errorOf(res);
    assert.equal(e.code, 'rate_limit_exceeded');
    const resetAt = (e.details as { reset_at: number }).reset_at;
    assert.deepEqual(e.details, { reset_at: resetAt, limit: 5, window_seconds: 60, route_class: 'applicants:create', tier: 'custom' });
    assert.deepEqual(rateLimitOf(res), { limit: 5, remaining: 0, reset: resetAt, window: 60 });
    assert.equal(await applicantRows('us', org.id), 5);
    // a class the operator did not set keeps the standard budget
    assert.equal(rateLimitOf(await c('GET', '/v1/applicants')).limit, 300);
  });

  it('GET routes show the reads budget (300) or global (600), whichever has fewer requests remaining; refused requests count', async () => {
    await freshWindow(20);
    const { key } = await orgWithKey('us');
    const c = client('us', key);
    const first = await c('GET', '/v1/applicants');
    assert.equal(first.status, 200);
    const end = windowEnds();
    const h = rateLimitOf(first);
    assert.deepEqual([h.limit, h.remaining, h.window], [300, 299, 60]);
    assert.ok(h.reset >= end.min && h.reset <= end.max && h.reset % 60 === 0);
    const me = rateLimitOf(await c('GET', '/v1/me'));
    assert.deepEqual([me.limit, me.remaining], [300, 298], 'GET /v1/me is a read too');

    // 330 creates: 60 reach the service (and are refused there for their empty body), 270 are 429; all count against global
    const statuses = await times(330, 10, async () => (await c('POST', '/v1/applicants', { body: {} })).status);
    assert.equal(statuses.filter((s) => s === 422).length, 60);
    assert.equal(statuses.filter((s) => s === 429).length, 270);

    // reads: 3 used, 297 left; global: 333 used, 267 left: global is shown
    const res = await c('GET', '/v1/applicants');
    assert.equal(res.status, 200);
    assert.deepEqual(rateLimitOf(res), { limit: 600, remaining: 267, reset: h.reset, window: 60 });
  });
});

describe('pre-authentication IP limit', () => {
  it('1000 requests per 60 s per client address, unauthenticated ones counted; the 1001st is 429 even with a valid key; another address is unaffected', async () => {
    await freshWindow(20);
    const { key } = await orgWithKey('us');
    const ip = clientIp();
    const anonymous = client('us', undefined, ip);
    const statuses = await times(1000, 16, async () => (await anonymous('GET', '/v1/me')).status);
    assert.deepEqual(statuses.filter((s) => s !== 401), [], 'the first 1000 reach authentication');

    const refused = await anonymous('GET', '/v1/me');
    assert.equal(refused.status, 429);
    const e = errorOf(refused);
    assert.equal(e.code, 'rate_limit_exceeded');
    assert.equal(e.type, 'rate_limit_error');
    const d = e.details as { reset_at: number; limit: number; window_seconds: number };
    assert.deepEqual([d.limit, d.window_seconds], [1000, 60]);
    assert.deepEqual(rateLimitOf(refused), { limit: 1000, remaining: 0, reset: d.reset_at, window: 60 });

    // refused before the key is even looked at
    const keyed = await client('us', key, ip)('GET', '/v1/me');
    assert.equal(keyed.status, 429);
    assert.equal(errorOf(keyed).code, 'rate_limit_exceeded');
    const bogus = await client('us', 'nonsense', ip)('GET', '/v1/me');
    assert.equal(bogus.status, 429);

    // another client address is unaffected, with or without a key
    const elsewhere = clientIp();
    assert.equal((await client('us', undefined, elsewhere)('GET', '/v1/me')).status, 401);
    assert.equal((await client('us', key, elsewhere)('GET', '/v1/me')).status, 200);
  });
});
