import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@verity/testing';
import { adminCli, client, closeOperators, createKey, errorOf, orgWithKey } from './support.js';

after(closeOperators);

describe('GET /v1/me and authentication', () => {
  it('answers a us test key on the us endpoint with exactly the spec fields', async () => {
    const { org, key, keyId } = await orgWithKey('us', { scopes: ['applicants:read', 'sessions:read'] });
    const res = await client('us', key)('GET', '/v1/me');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      data: { id: keyId, object: 'api_key', org_id: org.id, mode: 'test', region: 'us', scopes: ['applicants:read', 'sessions:read'] },
    });
    assert.match(res.headers.get('x-request-id') ?? '', /^req_[A-Za-z0-9]+$/);
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-window']) {
      assert.match(res.headers.get(h) ?? '', /^[0-9]+$/, h);
    }
  });

  it('refuses a us key on the eu endpoint with 403 region_mismatch, from the key text alone', async () => {
    const { key } = await orgWithKey('us');
    const res = await client('eu', key)('GET', '/v1/me');
    assert.equal(res.status, 403);
    const e = errorOf(res);
    assert.equal(e.code, 'region_mismatch');
    assert.equal(e.type, 'permission_error');
    assert.deepEqual(e.details, { key_region: 'us', endpoint_region: 'eu' });
    // a well-formed eu key that does not exist is decided the same way on us: no lookup needed
    const fake = `idv_sk_eu_live_${'Z'.repeat(43)}`;
    assert.equal(errorOf(await client('us', fake)('GET', '/v1/me')).code, 'region_mismatch');
  });

  it('401 authentication_required without a bearer key, 401 invalid_api_key for malformed or unknown keys', async () => {
    const c = client('us');
    for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer' }] as Record<string, string>[]) {
      const res = await c('GET', '/v1/me', { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(errorOf(res).code, 'authentication_required');
      assert.equal(errorOf(res).type, 'authentication_error');
    }
    for (const key of ['idv_sk_us_test_short', `idv_sk_us_test_${'a'.repeat(43)}`, 'nonsense']) {
      const res = await c('GET', '/v1/me', { key });
      assert.equal(res.status, 401, key);
      assert.equal(errorOf(res).code, 'invalid_api_key');
      assert.ok(!res.text.includes(key), 'the key is never echoed');
    }
  });

  it('a revoked key is refused with 401 invalid_api_key within 5 s, through the admin CLI', async () => {
    const { key, keyId } = await orgWithKey('us');
    const c = client('us', key);
    assert.equal((await c('GET', '/v1/me')).status, 200); // now cached by the gateway
    const revoked = await adminCli(['key', 'revoke', '--region', 'us', '--key', keyId]);
    assert.equal(revoked.code, 0);
    assert.deepEqual((revoked.out as { id: string; revoked: boolean }).revoked, true);
    const t0 = Date.now();
    const res = await waitFor(async () => {
      const r = await c('GET', '/v1/me');
      return r.status === 401 ? r : undefined;
    }, 5000);
    assert.ok(Date.now() - t0 <= 5000);
    assert.equal(errorOf(res).code, 'invalid_api_key');
  });

  it('rotation issues a new secret for the same key id and retires the old one', async () => {
    const { key, keyId } = await orgWithKey('us');
    const rotated = await adminCli(['key', 'rotate', '--region', 'us', '--key', keyId]);
    assert.equal(rotated.code, 0);
    const out = rotated.out as { id: string; key: string };
    assert.equal(out.id, keyId);
    assert.notEqual(out.key, key);
    assert.equal((await client('us', out.key)('GET', '/v1/me')).status, 200);
    await waitFor(async () => (await client('us', key)('GET', '/v1/me')).status === 401, 5000);
  });

  it('a key without applicants:write gets 403 insufficient_scope on POST /v1/applicants and nothing is written', async () => {
    const { key } = await orgWithKey('us', { scopes: ['applicants:read'] });
    const res = await client('us', key)('POST', '/v1/applicants', { body: { family_name: 'Nobody' } });
    assert.equal(res.status, 403);
    const e = errorOf(res);
    assert.equal(e.code, 'insufficient_scope');
    assert.deepEqual(e.details, { required_scope: 'applicants:write' });
    const list = await client('us', key)<{ data: unknown[] }>('GET', '/v1/applicants');
    assert.deepEqual(list.body.data, []);
  });

  it('a publishable key reads GET /v1/me and nothing else', async () => {
    const { org } = await orgWithKey('us');
    const pk = await createKey('us', org.id, { type: 'pk', scopes: ['applicants:read'] });
    assert.equal((await client('us', pk.key)('GET', '/v1/me')).status, 200);
    const res = await client('us', pk.key)('GET', '/v1/applicants');
    assert.equal(res.status, 403);
    assert.equal(errorOf(res).code, 'insufficient_scope');
  });

  it('the same works in the eu region with eu keys', async () => {
    const { key } = await orgWithKey('eu');
    const res = await client('eu', key)<{ data: { region: string } }>('GET', '/v1/me');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.region, 'eu');
    assert.equal(errorOf(await client('us', key)('GET', '/v1/me')).code, 'region_mismatch');
  });
});

describe('envelope on every error', () => {
  it('unknown routes and methods are 404 route_not_found with X-Request-Id', async () => {
    const { key } = await orgWithKey('us');
    for (const [m, p] of [
      ['GET', '/v1/nope'],
      ['DELETE', '/v1/me'],
      ['GET', '/v2/me'],
      ['GET', '/'],
    ] as const) {
      const res = await client('us', key)(m, p);
      assert.equal(res.status, 404, `${m} ${p}`);
      assert.equal(errorOf(res).code, 'route_not_found');
    }
  });

  it('a path the router cannot decode is 404 route_not_found in the envelope, with X-Request-Id, never echoing the path', async () => {
    const { key } = await orgWithKey('us');
    for (const p of ['/v1/%zz%3Cscript%3E', '/v1/applicants/%E0%A4%A', '/%ff%fe']) {
      const res = await client('us', key)('GET', p);
      assert.equal(res.status, 404, p);
      assert.equal(errorOf(res).code, 'route_not_found');
      assert.match(res.headers.get('x-request-id') ?? '', /^req_[A-Za-z0-9]{24}$/);
      assert.ok(!res.text.includes('%') && !/script|applicants/.test(res.text), `${p}: ${res.text}`);
    }
  });

  it('a body that is not JSON is 400 invalid_json and writes nothing', async () => {
    const { key } = await orgWithKey('us');
    const c = client('us', key);
    for (const [rawBody, type] of [
      ['{"family_name": ', 'application/json'],
      ['family_name=X', 'application/x-www-form-urlencoded'],
      ['{"family_name":"X"}', 'text/plain'],
    ]) {
      const res = await c('POST', '/v1/applicants', { rawBody, headers: { 'content-type': type! } });
      assert.equal(res.status, 400, type);
      assert.equal(errorOf(res).code, 'invalid_json');
    }
    assert.deepEqual((await c<{ data: unknown[] }>('GET', '/v1/applicants')).body.data, []);
  });

  it('authentication is checked before the body is read', async () => {
    const res = await client('us')('POST', '/v1/applicants', { rawBody: '{bad', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 401);
  });

  it('health endpoints answer without authentication and carry X-Request-Id', async () => {
    for (const p of ['/health/live', '/health/ready']) {
      const res = await client('us')('GET', p);
      assert.equal(res.status, 200, p);
      assert.match(res.headers.get('x-request-id') ?? '', /^req_/);
    }
    const ready = await client('eu')<{ services: Record<string, string> }>('GET', '/health/ready');
    assert.deepEqual(Object.values(ready.body.services).every((s) => s === 'ok'), true);
  });
});
