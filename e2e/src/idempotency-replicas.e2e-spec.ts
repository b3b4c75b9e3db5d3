/**
 * Idempotency-Key (docs/errors.md#idempotency, docs/decisions.md "Idempotency") on a stack of this file's own with two
 * gateway replicas: while the first request with a key waits on a stopped sessions process, the same request is 409
 * on either replica; its 503 is not kept, so the retry runs; a key used on one replica replays on the other.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { SUBJECTS } from '@verity/contracts';
import { createRedis } from '@verity/platform';
import type { Redis } from 'ioredis';
import { api, query, waitFor, type ApiResponse } from '@verity/testing';
import { startOwnStack, type OwnStack } from './own-stack.js';
import { errorOf, idem, replayed } from './support.js';

describe('Idempotency-Key across gateway replicas, with a service that hangs', () => {
  const RPC_TIMEOUT_MS = 2000;
  let own: OwnStack;
  let redis: Redis;
  let key: string;
  let orgId: string;
  let keyId: string;
  /** Where the gateways keep a key of this test's API key (docs/decisions.md, "Idempotency"). */
  const recordOf = (k: string) => `${own.stack.envFor('us', 'gateway').REDIS_KEY_PREFIX}idempotency:${orgId}:test:${keyId}:${createHash('sha256').update(k).digest('hex')}`;
  const op = { principal: null, requestId: 'req_e2e_idempotency' };
  const at = (replica: number) => <T = Record<string, unknown>>(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) =>
    api<T>(own.stack.gatewayUrl('us', replica), method, p, { key, body, headers });

  before(async () => {
    own = await startOwnStack('idempotency', { env: { LOG_LEVEL: 'error', RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) }, replicas: { gateway: 2, 'id-scan': 0, 'webhook-delivery': 0 }, output: null });
    const org = await own.ops.call(SUBJECTS.accountsOrgCreate, { name: 'idempotency' }, op);
    orgId = org.id;
    const scopes = ['applicants:read', 'applicants:write', 'sessions:read', 'sessions:write', 'workflows:read', 'workflows:write'];
    ({ key, id: keyId } = await own.ops.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes }, op));
    redis = createRedis(own.stack.envFor('us', 'gateway').REDIS_URL!, 'e2e-idempotency');
    if (redis.status !== 'ready') await once(redis, 'ready');
  });

  after(async () => {
    redis?.disconnect();
    await own?.close();
  });

  it('a key used on one replica replays on the other; another body there is 422', async () => {
    const k = randomUUID();
    const first = await at(0)('POST', '/v1/applicants', { family_name: 'Replica' }, idem(k));
    assert.equal(first.status, 201, first.text);
    const ttl = await redis.pttl(recordOf(k));
    assert.ok(ttl > 24 * 3600_000 - 60_000 && ttl <= 24 * 3600_000, `kept for ${ttl} ms`);
    const other = await at(1)('POST', '/v1/applicants', { family_name: 'Replica' }, idem(k));
    assert.equal(other.status, 201, other.text);
    assert.ok(replayed(other), 'replayed by the other replica');
    assert.equal(other.text, first.text);
    const reused = await at(1)('POST', '/v1/applicants', { family_name: 'Other' }, idem(k));
    assert.equal(errorOf(reused).code, 'idempotency_key_reused');
    const [{ n }] = (await query<{ n: number }>(own.db.url, 'SELECT count(*)::int AS n FROM applicants.applicants WHERE org_id = $1', [orgId])) as [{ n: number }];
    assert.equal(n, 1);
  });

  it('while the first request waits on a stopped sessions process the same request is 409 on both replicas; its 503 is not kept, the retry runs once', async () => {
    const applicant = await at(0)<{ data: { id: string } }>('POST', '/v1/applicants', { family_name: 'Waiting', given_names: ['In'] });
    const template = await at(0)<{ data: { id: string } }>('POST', '/v1/workflow-templates', { name: 'Waiting', checks: ['document'] });
    assert.deepEqual([applicant.status, template.status], [201, 201]);
    const body = { applicant_id: applicant.body.data.id, workflow_template_id: template.body.data.id };
    const sessionsOf = async () => (await query<{ n: number }>(own.db.url, 'SELECT count(*)::int AS n FROM sessions.sessions WHERE org_id = $1', [orgId]))[0]!.n;
    const k = randomUUID();

    const sessions = own.stack.process('us', 'sessions')!;
    sessions.kill('SIGSTOP');
    let first: ApiResponse;
    try {
      const pending = at(0)('POST', '/v1/sessions', body, idem(k));
      // the first request holds the key (its lease is in Redis) before the others are sent
      await waitFor(async () => (await redis.exists(recordOf(k))) === 1, RPC_TIMEOUT_MS, 20);
      for (const replica of [1, 0]) {
        const busy = await at(replica)('POST', '/v1/sessions', body, idem(k));
        assert.equal(busy.status, 409, `replica ${replica}: ${busy.text}`);
        assert.equal(errorOf(busy).code, 'idempotency_key_in_use');
      }
      first = await pending;
    } finally {
      sessions.kill('SIGCONT');
    }
    assert.equal(first.status, 503, first.text);
    assert.equal(errorOf(first).code, 'service_unavailable');

    // the 503 was not kept: the retry runs (503 again while sessions catches up, each released too)
    const created = await waitFor(async () => {
      const r = await at(1)<{ data: { id: string } }>('POST', '/v1/sessions', body, idem(k));
      return r.status === 201 ? r : r.status === 503 ? undefined : assert.fail(r.text);
    }, 30_000, 200);
    assert.ok(!replayed(created), 'run, not replayed');
    const again = await at(0)('POST', '/v1/sessions', body, idem(k));
    assert.ok(replayed(again));
    assert.equal(again.text, created.text);
    assert.equal(await sessionsOf(), 1, 'the request answered 503 left nothing; the retry created one session');
  });
});
