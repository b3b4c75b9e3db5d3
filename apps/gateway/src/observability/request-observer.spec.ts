import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyRequest } from 'fastify';
import { accessLogLine } from './request-observer.js';

const request = (r: Partial<FastifyRequest> & { template?: string }): FastifyRequest =>
  ({ method: 'GET', id: 'req_fallback', requestId: '', principal: null, capture: null, routeOptions: { url: r.template }, ...r }) as unknown as FastifyRequest;

describe('access log line', () => {
  it('says route template, status, duration, request id, organization and key id prefix: nothing else', () => {
    const line = accessLogLine(
      request({
        method: 'POST',
        template: '/v1/sessions/:id',
        url: '/v1/sessions/ses_123?email=jane@example.com',
        requestId: 'req_abc',
        principal: { org_id: 'org_1', key_id: 'key_0123456789abcdef' } as FastifyRequest['principal'],
        headers: { authorization: 'Bearer sk_test_secret' },
      }),
      201,
      12.345,
    );
    assert.deepEqual(line, { method: 'POST', route: '/v1/sessions/:id', status: 201, duration_ms: 12.3, request_id: 'req_abc', org_id: 'org_1', key_prefix: 'key_01234567' });
  });

  it('a request no route took is `unmatched`; a capture caller gives its organization and no key', () => {
    assert.equal(accessLogLine(request({ url: '/nope/ses_1' }), 404, 1).route, 'unmatched');
    const capture = accessLogLine(request({ template: '/v1/capture/session', capture: { caller: { org_id: 'org_2', session_id: 'ses_1', mode: 'live' } } as FastifyRequest['capture'] }), 200, 1);
    assert.equal(capture.org_id, 'org_2');
    assert.equal(capture.key_prefix, undefined);
    assert.equal(capture.request_id, 'req_fallback');
  });
});
