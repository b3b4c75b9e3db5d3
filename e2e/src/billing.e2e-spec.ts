import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor, type ApiResponse } from '@verity/testing';
import { adminCli, applicantRows, client, closeOperators, createKey, errorOf, orgWithKey, rows } from './support.js';

after(closeOperators);

const SCOPES = ['applicants:read', 'applicants:write'];

interface Billing {
  subscription_status: string;
  past_due_since: string | null;
  wallet_balance: number | null;
  wallet_locked: boolean;
}

/** `billing set` through the admin CLI, as an operator would. */
async function billingSet(orgId: string, ...flags: string[]): Promise<Billing> {
  const r = await adminCli(['billing', 'set', '--region', 'us', '--org', orgId, ...flags]);
  assert.equal(r.code, 0, JSON.stringify(r.err));
  return (r.out as { billing: Billing }).billing;
}

/** A fresh organization with a live and a test key, both verified (and so cached by the gateway) before any change. */
async function liveAndTest() {
  const { org, key } = await orgWithKey('us', { mode: 'live', scopes: SCOPES });
  const test = await createKey('us', org.id, { mode: 'test', scopes: SCOPES });
  const live = client('us', key);
  const testClient = client('us', test.key);
  assert.equal((await live('GET', '/v1/applicants')).status, 200);
  assert.equal((await testClient('GET', '/v1/applicants')).status, 200);
  return { org, live, test: testClient };
}

/** The first answer with `status`, polled for at most 5 s: the bound within which a billing change takes effect. */
function within5s(call: () => Promise<ApiResponse>, status: number): Promise<ApiResponse> {
  return waitFor(async () => {
    const r = await call();
    return r.status === status ? r : undefined;
  }, 5000);
}

describe('billing state (live mode only)', () => {
  it('a canceled subscription: 403 subscription_required on live /v1 routes but GET /v1/me; test keys unaffected; reactivation restores access', async () => {
    const { org, live, test } = await liveAndTest();
    assert.equal((await billingSet(org.id, '--subscription', 'canceled')).subscription_status, 'canceled');

    const res = await within5s(() => live('GET', '/v1/applicants'), 403);
    const e = errorOf(res);
    assert.equal(e.code, 'subscription_required');
    assert.equal(e.type, 'billing_error');
    const post = await live('POST', '/v1/applicants', { body: { family_name: 'Unpaid' } });
    assert.equal(post.status, 403);
    assert.equal(errorOf(post).code, 'subscription_required');
    assert.equal(await applicantRows('us', org.id), 0, 'nothing was created');
    const me = await live<{ data: { mode: string } }>('GET', '/v1/me');
    assert.equal(me.status, 200, 'the account-state read stays open');
    assert.equal(me.body.data.mode, 'live');

    assert.equal((await test('GET', '/v1/applicants')).status, 200);
    assert.equal((await test('POST', '/v1/applicants', { body: { family_name: 'Test mode' } })).status, 201);

    await billingSet(org.id, '--subscription', 'active');
    await within5s(() => live('GET', '/v1/applicants'), 200);
  });

  it('past_due within the grace period keeps working', async () => {
    const { org, live } = await liveAndTest();
    await billingSet(org.id, '--subscription', 'canceled');
    await within5s(() => live('GET', '/v1/applicants'), 403);
    const billing = await billingSet(org.id, '--subscription', 'past_due');
    assert.equal(billing.subscription_status, 'past_due');
    assert.ok(billing.past_due_since !== null && !Number.isNaN(Date.parse(billing.past_due_since)), 'past due since now');
    await within5s(() => live('GET', '/v1/applicants'), 200);
    assert.equal((await live('POST', '/v1/applicants', { body: { family_name: 'Grace' } })).status, 201);
  });

  it('a locked wallet: 402 payment_required on live routes but GET /v1/me; test keys unaffected; unlocking restores access', async () => {
    const { org, live, test } = await liveAndTest();
    assert.equal((await billingSet(org.id, '--wallet-locked', 'true')).wallet_locked, true);

    const res = await within5s(() => live('GET', '/v1/applicants'), 402);
    const e = errorOf(res);
    assert.equal(e.code, 'payment_required');
    assert.equal(e.type, 'billing_error');
    const post = await live('POST', '/v1/applicants', { body: { family_name: 'Locked' } });
    assert.equal(post.status, 402);
    assert.equal(await applicantRows('us', org.id), 0);
    assert.equal((await live('GET', '/v1/me')).status, 200);
    assert.equal((await test('GET', '/v1/applicants')).status, 200);
    assert.equal((await test('POST', '/v1/applicants', { body: { family_name: 'Test mode' } })).status, 201);

    await billingSet(org.id, '--wallet-locked', 'false');
    await within5s(() => live('GET', '/v1/applicants'), 200);
  });

  it('an absent wallet (--wallet-balance none): 402 payment_required on live routes; a balance restores access', async () => {
    const { org, live, test } = await liveAndTest();
    assert.equal((await billingSet(org.id, '--wallet-balance', 'none')).wallet_balance, null);

    const res = await within5s(() => live('GET', '/v1/applicants'), 402);
    assert.equal(errorOf(res).code, 'payment_required');
    assert.equal((await live('GET', '/v1/me')).status, 200);
    assert.equal((await test('GET', '/v1/applicants')).status, 200);

    assert.equal((await billingSet(org.id, '--wallet-balance', '500')).wallet_balance, 500);
    await within5s(() => live('GET', '/v1/applicants'), 200);
  });
});

/** The wallet balance as an operator reads it: `org get` through the admin CLI. */
async function walletOf(orgId: string): Promise<number | null> {
  const r = await adminCli(['org', 'get', '--region', 'us', '--org', orgId]);
  assert.equal(r.code, 0, JSON.stringify(r.err));
  return (r.out as { billing: Billing }).billing.wallet_balance;
}

/** What an organization has stored: sessions, their background jobs, email-log rows, and wallet debits. */
async function storedOf(orgId: string): Promise<{ sessions: number; jobs: number; emails: number; debits: number }> {
  const [r] = await rows<{ sessions: number; jobs: number; emails: number; debits: number }>(
    'us',
    `SELECT (SELECT count(*)::int FROM sessions.sessions WHERE org_id = $1) AS sessions,
            (SELECT count(*)::int FROM sessions.jobs WHERE principal->>'org_id' = $1) AS jobs,
            (SELECT count(*)::int FROM sessions.email_log WHERE org_id = $1) AS emails,
            (SELECT count(*)::int FROM accounts.wallet_debits WHERE org_id = $1) AS debits`,
    [orgId],
  );
  return r!;
}

const SESSION_SCOPES = ['applicants:read', 'applicants:write', 'workflows:read', 'workflows:write', 'sessions:read', 'sessions:write'];
/** The default prices (docs/configuration.md, CHECK_PRICES): document 150, face_match 100, liveness 100. */
const CHECKS = ['document', 'face_match', 'liveness'];
const PRICE = 350;

/** A fresh organization with a live and a test key, each with an applicant (with an email address) and a template of `CHECKS`. */
async function liveAndTestSetup() {
  const { org, key } = await orgWithKey('us', { mode: 'live', scopes: SESSION_SCOPES });
  const testKey = await createKey('us', org.id, { mode: 'test', scopes: SESSION_SCOPES });
  const fixtures = async (c: ReturnType<typeof client>) => {
    const a = await c<{ data: { id: string } }>('POST', '/v1/applicants', { body: { family_name: 'Doe', given_names: ['Jane'], email: 'jane.doe@example.com' } });
    const t = await c<{ data: { id: string } }>('POST', '/v1/workflow-templates', { body: { name: 'Onboarding', checks: CHECKS } });
    assert.equal(a.status, 201, a.text);
    assert.equal(t.status, 201, t.text);
    return { applicant_id: a.body.data.id, workflow_template_id: t.body.data.id };
  };
  const live = client('us', key);
  const test = client('us', testKey.key);
  return { org, live, test, liveBody: await fixtures(live), testBody: await fixtures(test) };
}

describe('billing of live session creates (docs/sessions.md, Billing)', () => {
  it('a live create debits the price of its workflow\'s checks from the wallet', async () => {
    const { org, live, liveBody } = await liveAndTestSetup();
    await billingSet(org.id, '--wallet-balance', '500');
    const res = await live<{ data: { id: string; mode: string } }>('POST', '/v1/sessions', { body: liveBody });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.mode, 'live');
    assert.equal(await walletOf(org.id), 500 - PRICE);
    const [debit] = await rows<{ session_id: string; amount: string; checks: string[]; refunded_at: Date | null }>(
      'us',
      'SELECT session_id, amount, checks, refunded_at FROM accounts.wallet_debits WHERE org_id = $1',
      [org.id],
    );
    assert.deepEqual([debit?.session_id, Number(debit?.amount), debit?.checks, debit?.refunded_at], [res.body.data.id, PRICE, CHECKS, null]);
  });

  it('too little balance: 402 payment_required with the price, and no session, job, email-log row or debit; a top-up lets the next create through', async () => {
    const { org, live, liveBody } = await liveAndTestSetup();
    await billingSet(org.id, '--wallet-balance', String(PRICE - 1));
    const res = await live('POST', '/v1/sessions', { body: liveBody });
    assert.equal(res.status, 402, res.text);
    const e = errorOf(res);
    assert.equal(e.code, 'payment_required');
    assert.equal(e.type, 'billing_error');
    assert.equal(e.message, "The wallet balance does not cover this verification's price.");
    assert.deepEqual(e.details, { price: PRICE });
    assert.ok(!res.text.includes(String(PRICE - 1)), 'the balance is not told');
    assert.deepEqual(await storedOf(org.id), { sessions: 0, jobs: 0, emails: 0, debits: 0 });
    assert.equal(await walletOf(org.id), PRICE - 1);

    await billingSet(org.id, '--wallet-balance', String(PRICE));
    assert.equal((await live('POST', '/v1/sessions', { body: liveBody })).status, 201);
    assert.equal(await walletOf(org.id), 0);
    assert.equal((await live('POST', '/v1/sessions', { body: liveBody })).status, 402, 'the wallet is empty again');
    const s = await storedOf(org.id);
    assert.deepEqual([s.sessions, s.emails, s.debits], [1, 1, 1]);
  });

  it('test mode never debits, whatever the wallet holds', async () => {
    const { org, test, testBody } = await liveAndTestSetup();
    await billingSet(org.id, '--wallet-balance', '0');
    const res = await test<{ data: { mode: string } }>('POST', '/v1/sessions', { body: testBody });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.mode, 'test');
    assert.equal(await walletOf(org.id), 0);
    assert.equal((await storedOf(org.id)).debits, 0);
  });

  it('a live create refused for another reason (404 applicant, 422 body) debits nothing', async () => {
    const { org, live, liveBody } = await liveAndTestSetup();
    await billingSet(org.id, '--wallet-balance', '1000');
    const missing = await live('POST', '/v1/sessions', { body: { ...liveBody, applicant_id: `app_${'Z'.repeat(24)}` } });
    assert.equal(missing.status, 404);
    assert.equal(errorOf(missing).param, 'applicant_id');
    assert.equal((await live('POST', '/v1/sessions', { body: { ...liveBody, metadata: [] } })).status, 422);
    assert.equal(await walletOf(org.id), 1000);
    assert.deepEqual(await storedOf(org.id), { sessions: 0, jobs: 0, emails: 0, debits: 0 });
  });
});
