import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '@verity/contracts';
import { INTERNAL_HEADERS, signInternalRequest, verifyInternalRequest } from './internal-http.js';

const principal = { org_id: 'org_1', key_id: 'key_1', mode: 'test', region: 'us', scopes: [] } as unknown as Principal;

describe('internal request signing', () => {
  it('round-trips the caller', () => {
    const h = signInternalRequest('s3cret', principal, 'req_1', 123);
    assert.deepEqual(verifyInternalRequest('s3cret', h), { principal, requestId: 'req_1', deadline: 123 });
  });
  it('refuses another secret, a changed principal, deadline or request id, and missing headers', () => {
    const h = signInternalRequest('s3cret', principal, 'req_1', 123);
    assert.equal(verifyInternalRequest('other', h), null);
    const forged = Buffer.from(JSON.stringify({ ...principal, org_id: 'org_2' })).toString('base64url');
    assert.equal(verifyInternalRequest('s3cret', { ...h, [INTERNAL_HEADERS.principal]: forged }), null);
    assert.equal(verifyInternalRequest('s3cret', { ...h, [INTERNAL_HEADERS.deadline]: '999' }), null);
    assert.equal(verifyInternalRequest('s3cret', { ...h, [INTERNAL_HEADERS.requestId]: 'req_2' }), null);
    assert.equal(verifyInternalRequest('s3cret', { ...h, [INTERNAL_HEADERS.signature]: undefined }), null);
  });
});
