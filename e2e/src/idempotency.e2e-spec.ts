/**
 * Idempotency-Key (docs/errors.md#idempotency, docs/decisions.md "Idempotency"), end to end:
 * on the shared stack: a retried live `POST /v1/sessions` creates one session, one invitation and one debit, and
 * replays the first answer; the same key with another body or path is 422; replays count against the rate limit; a
 * bad header is refused naming it; a retried capture skip replays after the capture closed. Across gateway replicas,
 * with a service that hangs: idempotency-replicas.e2e-spec.ts.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { liveSession } from './capture-support.js';
import { account, newApplicant, newTemplate } from './sessions-support.js';
import { client, closeOperators, errorOf, freshWindow, idem, orgWithKey, rateLimitOf, replayed, rows } from './support.js';

after(closeOperators);

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
