import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor, type ApiResponse } from '@verity/testing';
import { adminCli, applicantRows, client, closeOperators, createKey, errorOf, orgWithKey } from './support.js';

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
