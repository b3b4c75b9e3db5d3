/**
 * Idempotency-Key (docs/errors.md#idempotency, docs/decisions.md "Idempotency"), end to end:
 * - on the shared stack: a retried live `POST /v1/sessions` creates one session, one invitation and one debit, and
 *   replays the first answer; the same key with another body or path is 422; replays count against the rate
 *   limit; a bad header is refused naming it; a retried capture skip replays after the capture closed;
 * - on a stack of this file's own with two gateway replicas: while the first request with a key waits on a
 *   stopped sessions process, the same request is 409 on either replica; its 503 is not kept, so the retry runs;
 *   a key used on one replica replays on the other.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { SUBJECTS } from '@verity/contracts';
import { createRedis } from '@verity/platform';
import type { Redis } from 'ioredis';
import { api, query, waitFor, type ApiResponse } from '@verity/testing';
import { liveSession } from './capture-support.js';
import { startOwnStack, type OwnStack } from './own-stack.js';
import { account, newApplicant, newTemplate } from './sessions-support.js';
import { client, closeOperators, errorOf, freshWindow, orgWithKey, rateLimitOf, rows } from './support.js';

after(closeOperators);

const idem = (k: string) => ({ 'idempotency-key': k });

function replayed(res: ApiResponse): boolean {
  return res.headers.get('idempotent-replayed') === 'true';
}

/** Sessions, invitation emails and wallet debits an organization has in the us database. */
async function storedOf(orgId: string): Promise<{ sessions: number; emails: number; debits: number }> {
  const [r] = await rows<{ sessions: number; emails: number; debits: number }>(
    'us',
    `SELECT (SELECT count(*)::int FROM sessions.sessions WHERE org_id = $1) AS sessions,
            (SELECT count(*)::int FROM sessions.email_log WHERE org_id = $1) AS emails,
            (SELECT count(*)::int FROM accounts.wallet_debits WHERE org_id = $1) AS debits`,
    [orgId],
  );
  return r!;
}

describe('Idempotency-Key on the shared stack', () => {
  it('a retried live POST /v1/sessions creates one session, one invitation and one debit, and replays the first answer', async () => {
    const { org, c } = await account('us', 'live');
    const body = { applicant_id: await newApplicant(c), workflow_template_id: await newTemplate(c) };
    const k = randomUUID();
    const first = await c<{ data: { id: string; client_secret: string } }>('POST', '/v1/sessions', { body, headers: idem(k) });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    assert.deepEqual(await storedOf(org.id), { sessions: 1, emails: 1, debits: 1 });

    for (let i = 0; i < 2; i++) {
      const again = await c('POST', '/v1/sessions', { body, headers: idem(k) });
      assert.equal(again.status, 201, again.text);
      assert.ok(replayed(again));
      assert.equal(again.text, first.text, 'the identical body, client secret included');
      assert.equal(again.headers.get('content-type'), first.headers.get('content-type'));
      assert.equal(again.headers.get('original-request'), first.headers.get('x-request-id'));
    }
    assert.deepEqual(await storedOf(org.id), { sessions: 1, emails: 1, debits: 1 });

    // without the key, the same body creates another session, as it always did
    const plain = await c<{ data: { id: string } }>('POST', '/v1/sessions', { body });
    assert.equal(plain.status, 201, plain.text);
    assert.notEqual(plain.body.data.id, first.body.data.id);
    assert.deepEqual(await storedOf(org.id), { sessions: 2, emails: 2, debits: 2 });
  });

  it('the same key with another body or another path is 422 idempotency_key_reused, and nothing is created', async () => {
    const { org, c } = await account('us', 'test');
    const applicantId = await newApplicant(c);
    const templateId = await newTemplate(c);
    const k = randomUUID();
    assert.equal((await c('POST', '/v1/sessions', { body: { applicant_id: applicantId, workflow_template_id: templateId }, headers: idem(k) })).status, 201);
    const before = await storedOf(org.id);
    const attempts = [
      await c('POST', '/v1/sessions', { body: { applicant_id: applicantId, workflow_template_id: templateId, metadata: { other: 'body' } }, headers: idem(k) }),
      await c('POST', '/v1/applicants', { body: { applicant_id: applicantId, workflow_template_id: templateId }, headers: idem(k) }),
    ];
    for (const r of attempts) {
      assert.equal(r.status, 422, r.text);
      const e = errorOf(r);
      assert.equal(e.code, 'idempotency_key_reused');
      assert.equal(e.type, 'invalid_request_error');
      assert.ok(!replayed(r));
    }
    assert.deepEqual(await storedOf(org.id), before);
    const [{ n }] = (await rows<{ n: number }>('us', 'SELECT count(*)::int AS n FROM applicants.applicants WHERE org_id = $1', [org.id])) as [{ n: number }];
    assert.equal(n, 1, 'no applicant was created with the reused key');
  });

  it('a replay counts against the rate limit like any request', async () => {
    const { key } = await orgWithKey('us');
    const c = client('us', key);
    const k = randomUUID();
    await freshWindow(20);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await c('POST', '/v1/applicants', { body: { family_name: 'Counted' }, headers: idem(k) }));
    assert.deepEqual(answers.map((r) => [r.status, replayed(r)]), [[201, false], [201, true], [201, true]]);
    const limits = answers.map(rateLimitOf);
    assert.equal(new Set(limits.map((l) => l.reset)).size, 1, 'one window');
    assert.deepEqual(limits.map((l) => l.remaining), [limits[0]!.remaining, limits[0]!.remaining - 1, limits[0]!.remaining - 2]);
    assert.ok(limits.every((l) => l.limit === 60), 'the applicants:create bucket');
  });

  it('a bad header value is 422 validation_error naming Idempotency-Key, and nothing is created', async () => {
    const { org, key } = await orgWithKey('us');
    const c = client('us', key);
    for (const value of ['', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const r = await c('POST', '/v1/applicants', { body: { family_name: 'Refused' }, headers: idem(value) });
      assert.equal(r.status, 422, `${JSON.stringify(value)}: ${r.text}`);
      const e = errorOf(r);
      assert.equal(e.code, 'validation_error');
      assert.equal(e.param, 'Idempotency-Key');
    }
    assert.equal((await c('POST', '/v1/applicants', { body: { family_name: 'Taken' }, headers: idem('x'.repeat(255)) })).status, 201);
    const [{ n }] = (await rows<{ n: number }>('us', 'SELECT count(*)::int AS n FROM applicants.applicants WHERE org_id = $1', [org.id])) as [{ n: number }];
    assert.equal(n, 1);
  });

  it('capture: a retried skip replays its first answer after the capture closed; without the key it is 409', async () => {
    const { capture } = await liveSession('us');
    const k = randomUUID();
    const skip = (headers: Record<string, string> = {}) => capture.raw('POST', '/v1/capture/skip', { body: { step: 'document_front' }, headers });
    const first = await skip(idem(k));
    assert.equal(first.status, 200, first.text);
    const again = await skip(idem(k));
    assert.equal(again.status, 200, again.text);
    assert.ok(replayed(again));
    assert.equal(again.text, first.text);
    const plain = await skip();
    assert.equal(plain.status, 409, plain.text);
    assert.equal(errorOf(plain).code, 'invalid_state_transition');
  });
});

describe('Idempotency-Key across gateway replicas, with a service that hangs', () => {
  const RPC_TIMEOUT_MS = 2000;
  let own: OwnStack;
  let redis: Redis;
  let key: string;
  let orgId: string;
  /** Where the gateways keep a key of this test's organization (docs/decisions.md, "Idempotency"). */
  const recordOf = (k: string) => `${own.stack.envFor('us', 'gateway').REDIS_KEY_PREFIX}idempotency:${orgId}:test:${createHash('sha256').update(k).digest('hex')}`;
  const op = { principal: null, requestId: 'req_e2e_idempotency' };
  const at = (replica: number) => <T = Record<string, unknown>>(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) =>
    api<T>(own.stack.gatewayUrl('us', replica), method, p, { key, body, headers });

  before(async () => {
    own = await startOwnStack('idempotency', { env: { LOG_LEVEL: 'error', RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) }, replicas: { gateway: 2 }, output: null });
    const org = await own.ops.call(SUBJECTS.accountsOrgCreate, { name: 'idempotency' }, op);
    orgId = org.id;
    const scopes = ['applicants:read', 'applicants:write', 'sessions:read', 'sessions:write', 'workflows:read', 'workflows:write'];
    key = (await own.ops.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes }, op)).key;
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
