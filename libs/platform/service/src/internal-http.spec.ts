import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '@verity/contracts';
import { INTERNAL_HEADERS, SIGNATURE_WINDOW_MS, signInternalRequest, STREAMED_BODY, verifyInternalRequest } from './internal-http.js';

const principal = { org_id: 'org_1', key_id: 'key_1', mode: 'test', region: 'us', scopes: [] } as unknown as Principal;
const caller = { principal, requestId: 'req_1', deadline: 123 };
const target = { method: 'PUT', path: '/captures/ses_1/images/front' };
const NOW = 1_800_000_000_000;

describe('internal request signing', () => {
  const h = signInternalRequest('s3cret', target, caller, STREAMED_BODY, NOW);
  const verify = (headers: Record<string, string | undefined>, t = target, now = NOW, secret = 's3cret') =>
    verifyInternalRequest(secret, { method: t.method, url: t.path, headers }, now);

  it('round-trips the caller, with the declared body', () => {
    assert.deepEqual(verify(h), { caller, contentSha256: STREAMED_BODY, signature: h[INTERNAL_HEADERS.signature] });
    const get = signInternalRequest('s3cret', { method: 'GET', path: '/x' }, caller, Buffer.from('abc'), NOW);
    assert.equal(verify(get, { method: 'GET', path: '/x' })?.contentSha256, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('refuses another secret, another method, another path or query, and any altered header', () => {
    assert.equal(verify(h, target, NOW, 'other'), null);
    assert.equal(verify(h, { ...target, method: 'POST' }), null);
    assert.equal(verify(h, { ...target, path: '/captures/ses_1/images/back' }), null);
    assert.equal(verify(h, { ...target, path: `${target.path}?x=1` }), null);
    const forged = Buffer.from(JSON.stringify({ ...principal, org_id: 'org_2' })).toString('base64url');
    for (const [name, value] of [
      [INTERNAL_HEADERS.principal, forged],
      [INTERNAL_HEADERS.deadline, '999'],
      [INTERNAL_HEADERS.requestId, 'req_2'],
      [INTERNAL_HEADERS.timestamp, String(NOW + 1)],
      [INTERNAL_HEADERS.contentSha256, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
      [INTERNAL_HEADERS.signature, undefined],
    ] as const) {
      assert.equal(verify({ ...h, [name]: value }), null, name);
    }
  });

  it('refuses a signature made outside the window, either way', () => {
    assert.notEqual(verify(h, target, NOW + SIGNATURE_WINDOW_MS), null);
    assert.equal(verify(h, target, NOW + SIGNATURE_WINDOW_MS + 1), null);
    assert.equal(verify(h, target, NOW - SIGNATURE_WINDOW_MS - 1), null);
  });
});
