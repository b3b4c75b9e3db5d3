/**
 * Data subject requests through the gateway (docs/privacy.md): the 202 and its read, each refusal in the
 * envelope, the `dsar:create` bucket of 10 a day for a standard key with its headers and the eleventh request's
 * 429, the published erasure keys, and an access export with its images inlined.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DataSubjectRequest, ErasureKeySet } from '@verity/contracts';
import { waitFor } from '@verity/testing';
import { client, closeOperators, createKey, errorOf, orgWithKey, rateLimitOf, rows } from './support.js';

after(closeOperators);

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function applicantOf(c: ReturnType<typeof client>): Promise<string> {
  const r = await c<{ data: { id: string } }>('POST', '/v1/applicants', { body: { family_name: 'Lindqvist', given_names: ['Saga'], email: 'saga@example.com' } });
  assert.equal(r.status, 201, r.text);
  return r.body.data.id;
}

describe('data subject requests', () => {
  it('202 with the pending request; the read completes it without an operator, with the export', async () => {
    const { key } = await orgWithKey('us');
    const c = client('us', key);
    const applicantId = await applicantOf(c);
    const res = await c<{ data: DataSubjectRequest }>('POST', '/v1/data_subject_requests', { body: { type: 'access', applicant_id: applicantId } });
    assert.equal(res.status, 202, res.text);
    const r = res.body.data;
    assert.match(r.id, /^dsr_[A-Za-z0-9]{24}$/);
    assert.match(r.created_at, ISO_UTC);
    assert.deepEqual(res.body, { data: { id: r.id, object: 'data_subject_request', type: 'access', applicant_id: applicantId, mode: 'test', status: 'pending', created_at: r.created_at, completed_at: null } });

    const done = await waitFor(async () => {
      const g = await c<{ data: DataSubjectRequest }>('GET', `/v1/data_subject_requests/${r.id}`);
      assert.equal(g.status, 200, g.text);
      return g.body.data.status === 'completed' ? g.body.data : undefined;
    }, 60_000, 200);
    assert.match(done.completed_at!, ISO_UTC);
    assert.equal(done.export!.applicant.id, applicantId);
    assert.equal(done.export!.applicant.family_name, 'Lindqvist');
    assert.deepEqual(done.export!.sessions, []);
    assert.deepEqual([done.export!.evidence, done.export!.evidence_inlined, done.export!.evidence_total], [[], 0, 0]);

    const erasure = await c<{ data: DataSubjectRequest }>('POST', '/v1/data_subject_requests', { body: { type: 'erasure', applicant_id: applicantId } });
    assert.equal(erasure.status, 202, erasure.text);
    assert.equal(erasure.body.data.type, 'erasure');
  });

  it('refuses another type (422), an unknown applicant (404), a key without dsar:write (403), no key (401), writing nothing', async () => {
    const { org, key } = await orgWithKey('us');
    const c = client('us', key);
    const applicantId = await applicantOf(c);
    const cases: Array<[ReturnType<typeof client>, unknown, number, string, string | undefined]> = [
      [c, { type: 'rectification', applicant_id: applicantId }, 422, 'validation_error', 'type'],
      [c, { type: 'erasure', applicant_id: 'app_000000000000000000000000' }, 404, 'resource_not_found', 'applicant_id'],
      [client('us', (await createKey('us', org.id, { scopes: ['applicants:read', 'applicants:write'] })).key), { type: 'erasure', applicant_id: applicantId }, 403, 'insufficient_scope', undefined],
      [client('us'), { type: 'erasure', applicant_id: applicantId }, 401, 'authentication_required', undefined],
    ];
    for (const [who, body, status, code, param] of cases) {
      const r = await who('POST', '/v1/data_subject_requests', { body });
      assert.equal(r.status, status, r.text);
      const e = errorOf(r);
      assert.equal(e.code, code);
      if (param) assert.equal(e.param, param);
    }
    const forbidden = await client('us', (await createKey('us', org.id, { scopes: ['applicants:read'] })).key)('GET', '/v1/data_subject_requests/dsr_000000000000000000000000');
    assert.equal(forbidden.status, 403);
    assert.equal(errorOf(forbidden).details?.required_scope, 'dsar:write');
    const unknown = await c('GET', '/v1/data_subject_requests/dsr_000000000000000000000000');
    assert.equal(unknown.status, 404);
    assert.equal(errorOf(unknown).code, 'resource_not_found');
    assert.deepEqual(await rows('us', 'SELECT id FROM applicants.data_subject_requests WHERE org_id = $1', [org.id]), []);
  });

  it('counts against dsar:create, 10 a day on the standard tier: headers on each answer, the eleventh is 429', async () => {
    const { key } = await orgWithKey('us');
    const c = client('us', key);
    const applicantId = await applicantOf(c);
    const dayEnd = Math.ceil((Date.now() + 1) / 86_400_000) * 86_400;
    for (let i = 1; i <= 10; i += 1) {
      // a refused request counts too: every third one asks for an unknown type
      const body = i % 3 === 0 ? { type: 'nope', applicant_id: applicantId } : { type: 'access', applicant_id: applicantId };
      const r = await c('POST', '/v1/data_subject_requests', { body });
      assert.equal(r.status, i % 3 === 0 ? 422 : 202, r.text);
      assert.deepEqual(rateLimitOf(r), { limit: 10, remaining: 10 - i, reset: dayEnd, window: 86_400 });
    }
    const refused = await c('POST', '/v1/data_subject_requests', { body: { type: 'access', applicant_id: applicantId } });
    assert.equal(refused.status, 429, refused.text);
    const e = errorOf(refused);
    assert.equal(e.code, 'rate_limit_exceeded');
    assert.equal(e.details?.route_class, 'dsar:create');
    assert.equal(e.details?.limit, 10);
    assert.equal(e.details?.window_seconds, 86_400);
    assert.equal(e.details?.reset_at, dayEnd);
    assert.deepEqual(rateLimitOf(refused), { limit: 10, remaining: 0, reset: dayEnd, window: 86_400 });
  });

  it('publishes the region’s erasure keys without authentication, each region its own', async () => {
    const sets: ErasureKeySet[] = [];
    for (const region of ['us', 'eu'] as const) {
      const r = await client(region)<ErasureKeySet>('GET', '/.well-known/erasure-keys.json');
      assert.equal(r.status, 200, r.text);
      assert.ok(r.body.keys.length >= 1);
      for (const k of r.body.keys) {
        assert.deepEqual(Object.keys(k).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x']);
        assert.equal(k.crv, 'Ed25519');
        assert.equal(k.alg, 'EdDSA');
      }
      sets.push(r.body);
    }
    assert.notEqual(sets[0]!.keys[0]!.x, sets[1]!.keys[0]!.x);
  });
});
