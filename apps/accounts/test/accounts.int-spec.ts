import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/transport-node';
import { EVENTS, SUBJECTS, type EventContracts, type EventSubject, type ReqOf, type ResOf, type Subject } from '@verity/contracts';
import { hashApiKey } from '@verity/keys';
import { RpcClient } from '@verity/platform';
import { query, refusal, startServiceUnderTest, type ServiceUnderTest } from '@verity/testing';
import { AccountsModule } from '../src/app.module.js';
import { ACCOUNTS_SERVICE, accountsEnv } from '../src/config.js';


let db: ServiceUnderTest<unknown>['db'];
let nc: NatsConnection;
let rpc: RpcClient;
let svc: ServiceUnderTest<unknown> | undefined;

before(async () => {
  svc = await startServiceUnderTest({ def: ACCOUNTS_SERVICE, module: AccountsModule, env: accountsEnv });
  ({ db, nc, rpc } = svc);
});

after(() => svc?.close());

/** An operator call, as the admin CLI makes it (no principal). */
function call<S extends Subject>(subject: S, payload: ReqOf<S>): Promise<ResOf<S>> {
  return rpc.call(subject, payload, { principal: null, requestId: 'req_int_accounts' });
}

/** Collects the events published on `subject` from now on (the subscription is registered before it returns). */
async function listen<E extends EventSubject>(subject: E): Promise<{ events: EventContracts[E][]; stop: () => void }> {
  const events: EventContracts[E][] = [];
  const sub = rpc.subscribe(subject, (e) => events.push(e));
  await nc.flush();
  return { events, stop: () => sub.unsubscribe() };
}

/** Waits for the next event matching `pred` (events are asynchronous; a missing one fails after 5 s). */
async function eventually<T>(events: T[], pred: (e: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const e = events.find(pred);
    if (e) return e;
    if (Date.now() > deadline) assert.fail('the event was not published');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const ALL_SCOPES = ['applicants:read', 'applicants:write', 'sessions:read'];

describe('organizations', () => {
  it('create and get: standard by default, an active subscription, stored in accounts.organizations', async () => {
    const org = await call(SUBJECTS.accountsOrgCreate, { name: '  Acme  ' });
    assert.match(org.id, /^org_[A-Za-z0-9]{24}$/);
    assert.ok(!Number.isNaN(Date.parse(org.created_at)));
    assert.deepEqual(
      { ...org, created_at: undefined },
      {
        id: org.id,
        object: 'organization',
        name: 'Acme',
        region: 'us',
        tier: 'standard',
        custom_limits: null,
        billing: { subscription_status: 'active', past_due_since: null, wallet_balance: 0, wallet_locked: false },
        created_at: undefined,
      },
    );
    // the operator's read adds the region's pricing: its currency, the minor units' digits and each check's price
    const { pricing, ...got } = await call(SUBJECTS.accountsOrgGet, { org_id: org.id });
    assert.deepEqual(got, org);
    assert.equal(pricing.currency, 'USD');
    assert.equal(pricing.minor_unit_digits, 2);
    assert.ok(Number.isInteger(pricing.check_prices.document) && pricing.check_prices.document > 0, JSON.stringify(pricing));
    const [row] = await query(db.url, 'SELECT name, region, tier FROM accounts.organizations WHERE id = $1', [org.id]);
    assert.deepEqual(row, { name: 'Acme', region: 'us', tier: 'standard' });

    assert.equal((await call(SUBJECTS.accountsOrgCreate, { name: 'Big', tier: 'enterprise' })).tier, 'enterprise');
  });

  it('refuses bad names and tiers, and unknown or malformed ids', async () => {
    for (const req of [{ name: '' }, { name: ' ' }, { name: 'x'.repeat(201) }, { name: 'X', tier: 'gold' as 'standard' }]) {
      assert.equal((await refusal(call(SUBJECTS.accountsOrgCreate, req))).code, 'validation_error', JSON.stringify(req));
    }
    for (const org_id of [`org_${'Z'.repeat(24)}`, 'org_short', 'key_AAAAAAAAAAAAAAAAAAAAAAAA', '']) {
      assert.equal((await refusal(call(SUBJECTS.accountsOrgGet, { org_id }))).code, 'resource_not_found', org_id);
    }
    const n = await query<{ n: number }>(db.url, "SELECT count(*)::int AS n FROM accounts.organizations WHERE name = 'X' OR name = ''");
    assert.equal(n[0]!.n, 0);
  });

  it('set-tier: fixed tiers, custom with validated limits; every change publishes org-changed', async () => {
    const org = await call(SUBJECTS.accountsOrgCreate, { name: 'Tiers' });
    const changed = await listen(EVENTS.orgChanged);
    try {
      const elevated = await call(SUBJECTS.accountsOrgSetTier, { org_id: org.id, tier: 'elevated' });
      assert.deepEqual([elevated.tier, elevated.custom_limits], ['elevated', null]);
      await eventually(changed.events, (e) => e.org_id === org.id);

      const custom = await call(SUBJECTS.accountsOrgSetTier, { org_id: org.id, tier: 'custom', limits: { reads: 5000, 'applicants:create': 5 } });
      assert.deepEqual([custom.tier, custom.custom_limits], ['custom', { reads: 5000, 'applicants:create': 5 }]);
      const [row] = await query(db.url, 'SELECT tier, custom_limits FROM accounts.organizations WHERE id = $1', [org.id]);
      assert.deepEqual(row, { tier: 'custom', custom_limits: { reads: 5000, 'applicants:create': 5 } });

      for (const req of [
        { org_id: org.id, tier: 'gold' as 'standard' },
        { org_id: org.id, tier: 'custom' as const, limits: { uploads: 5 } },
        { org_id: org.id, tier: 'custom' as const, limits: { reads: 0 } },
        { org_id: org.id, tier: 'custom' as const, limits: { 'sessions:read_image': 500 } },
        { org_id: org.id, tier: 'custom' as const, limits: [5] },
        { org_id: org.id, tier: 'standard' as const, limits: { reads: 5 } },
      ]) {
        const e = await refusal(call(SUBJECTS.accountsOrgSetTier, req));
        assert.equal(e.code, 'validation_error', JSON.stringify(req));
      }
      assert.equal((await refusal(call(SUBJECTS.accountsOrgSetTier, { org_id: `org_${'Z'.repeat(24)}`, tier: 'elevated' }))).code, 'resource_not_found');
      // the refusals changed nothing
      assert.deepEqual((await call(SUBJECTS.accountsOrgGet, { org_id: org.id })).custom_limits, { reads: 5000, 'applicants:create': 5 });

      const back = await call(SUBJECTS.accountsOrgSetTier, { org_id: org.id, tier: 'standard' });
      assert.deepEqual([back.tier, back.custom_limits], ['standard', null]);
    } finally {
      changed.stop();
    }
  });

  it('billing set: subscription, past_due since, wallet balance (absent with null) and lock; publishes org-changed', async () => {
    const org = await call(SUBJECTS.accountsOrgCreate, { name: 'Billing' });
    const changed = await listen(EVENTS.orgChanged);
    try {
      const pastDue = await call(SUBJECTS.accountsBillingSet, { org_id: org.id, subscription_status: 'past_due' });
      assert.equal(pastDue.billing.subscription_status, 'past_due');
      assert.ok(pastDue.billing.past_due_since !== null);
      await eventually(changed.events, (e) => e.org_id === org.id);
      // staying past due keeps the original date; another change to the wallet leaves the subscription alone
      const again = await call(SUBJECTS.accountsBillingSet, { org_id: org.id, subscription_status: 'past_due', wallet_balance: 700 });
      assert.equal(again.billing.past_due_since, pastDue.billing.past_due_since);
      assert.equal(again.billing.wallet_balance, 700);

      const canceled = await call(SUBJECTS.accountsBillingSet, { org_id: org.id, subscription_status: 'canceled', wallet_locked: true, wallet_balance: null });
      assert.deepEqual(canceled.billing, { subscription_status: 'canceled', past_due_since: null, wallet_balance: null, wallet_locked: true });
      const [row] = await query(db.url, 'SELECT subscription_status, past_due_since, wallet_balance, wallet_locked FROM accounts.organizations WHERE id = $1', [org.id]);
      assert.deepEqual(row, { subscription_status: 'canceled', past_due_since: null, wallet_balance: null, wallet_locked: true });

      const unchanged = await call(SUBJECTS.accountsBillingSet, { org_id: org.id });
      assert.deepEqual(unchanged.billing, canceled.billing, 'fields not sent are kept');

      for (const req of [
        { org_id: org.id, subscription_status: 'paused' as 'active' },
        { org_id: org.id, wallet_balance: -1 },
        { org_id: org.id, wallet_balance: 1.5 },
        { org_id: org.id, wallet_locked: 'yes' as unknown as boolean },
      ]) {
        assert.equal((await refusal(call(SUBJECTS.accountsBillingSet, req))).code, 'validation_error', JSON.stringify(req));
      }
      assert.equal((await refusal(call(SUBJECTS.accountsBillingSet, { org_id: `org_${'Z'.repeat(24)}`, wallet_locked: false }))).code, 'resource_not_found');
      assert.deepEqual((await call(SUBJECTS.accountsOrgGet, { org_id: org.id })).billing, canceled.billing);
    } finally {
      changed.stop();
    }
  });
});

describe('keys', () => {
  it('create returns the key once; verify resolves its sha256 hash to the principal; only the hash is stored', async () => {
    const org = await call(SUBJECTS.accountsOrgCreate, { name: 'Keys', tier: 'elevated' });
    const created = await call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'live', type: 'sk', scopes: [...ALL_SCOPES, 'applicants:read'] });
    assert.match(created.id, /^key_[A-Za-z0-9]{24}$/);
    assert.match(created.key, /^idv_sk_us_live_[A-Za-z0-9]{43}$/);
    assert.deepEqual(
      { ...created, created_at: undefined },
      { id: created.id, key: created.key, object: 'api_key', org_id: org.id, type: 'sk', mode: 'live', region: 'us', scopes: ALL_SCOPES, revoked: false, created_at: undefined },
    );

    const { principal } = await call(SUBJECTS.accountsVerifyKey, { key_hash: hashApiKey(created.key) });
    assert.deepEqual(principal, {
      org_id: org.id,
      key_id: created.id,
      key_type: 'sk',
      mode: 'live',
      region: 'us',
      scopes: ALL_SCOPES,
      tier: 'elevated',
      custom_limits: null,
      billing: org.billing,
    });

    const [row] = await query<Record<string, unknown>>(db.url, 'SELECT * FROM accounts.api_keys WHERE id = $1', [created.id]);
    assert.ok(row);
    assert.equal(row.key_hash, hashApiKey(created.key));
    const secret = created.key.slice('idv_sk_us_live_'.length);
    for (const [column, value] of Object.entries(row)) {
      const text = value instanceof Date ? value.toISOString() : JSON.stringify(value);
      assert.ok(!text.includes(secret), `column ${column} holds no part of the secret`);
    }

    // a publishable test key of the same organization
    const pk = await call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'pk', scopes: [] });
    assert.match(pk.key, /^idv_pk_us_test_[A-Za-z0-9]{43}$/);
    const pkPrincipal = (await call(SUBJECTS.accountsVerifyKey, { key_hash: hashApiKey(pk.key) })).principal;
    assert.deepEqual([pkPrincipal?.key_id, pkPrincipal?.key_type, pkPrincipal?.mode], [pk.id, 'pk', 'test']);
  });

  it('verify answers null for unknown hashes and anything that is not a hash', async () => {
    for (const key_hash of [hashApiKey(`idv_sk_us_test_${'a'.repeat(43)}`), 'abc', '', `${'0'.repeat(63)}g`, "' OR 1=1 --"]) {
      assert.deepEqual(await call(SUBJECTS.accountsVerifyKey, { key_hash }), { principal: null }, key_hash);
    }
  });

  it('verify reflects the current tier and billing of the organization', async () => {
    const org = await call(SUBJECTS.accountsOrgCreate, { name: 'Current' });
    const k = await call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes: ['applicants:read'] });
    await call(SUBJECTS.accountsOrgSetTier, { org_id: org.id, tier: 'custom', limits: { 'applicants:create': 5 } });
    await call(SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_locked: true });
    const { principal } = await call(SUBJECTS.accountsVerifyKey, { key_hash: hashApiKey(k.key) });
    assert.deepEqual([principal?.tier, principal?.custom_limits, principal?.billing.wallet_locked], ['custom', { 'applicants:create': 5 }, true]);
  });

  it('create refuses unknown organizations, scopes, modes and types, and writes nothing', async () => {
    const org = await call(SUBJECTS.accountsOrgCreate, { name: 'Refusals' });
    const cases: Array<[ReqOf<typeof SUBJECTS.accountsKeyCreate>, string]> = [
      [{ org_id: `org_${'Z'.repeat(24)}`, mode: 'test', type: 'sk', scopes: [] }, 'resource_not_found'],
      [{ org_id: 'nope', mode: 'test', type: 'sk', scopes: [] }, 'resource_not_found'],
      [{ org_id: org.id, mode: 'test', type: 'sk', scopes: ['applicants:read', 'admin'] }, 'validation_error'],
      [{ org_id: org.id, mode: 'prod' as 'test', type: 'sk', scopes: [] }, 'validation_error'],
      [{ org_id: org.id, mode: 'test', type: 'rk' as 'sk', scopes: [] }, 'validation_error'],
      [{ org_id: org.id, mode: 'test', type: 'sk', scopes: 'applicants:read' as unknown as string[] }, 'validation_error'],
    ];
    for (const [req, code] of cases) assert.equal((await refusal(call(SUBJECTS.accountsKeyCreate, req))).code, code, JSON.stringify(req));
    const [n] = await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM accounts.api_keys WHERE org_id = $1', [org.id]);
    assert.equal(n!.n, 0);
  });

  it('revoke: verify answers null from then on and key-invalidated is published', async () => {
    const org = await call(SUBJECTS.accountsOrgCreate, { name: 'Revoke' });
    const k = await call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes: ['applicants:read'] });
    const other = await call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes: ['applicants:read'] });
    const invalidated = await listen(EVENTS.keyInvalidated);
    try {
      const revoked = await call(SUBJECTS.accountsKeyRevoke, { key_id: k.id });
      assert.deepEqual([revoked.id, revoked.revoked], [k.id, true]);
      assert.equal((revoked as { key?: string }).key, undefined);
      assert.deepEqual(await eventually(invalidated.events, (e) => e.key_id === k.id), { key_id: k.id, org_id: org.id });
      assert.deepEqual(await call(SUBJECTS.accountsVerifyKey, { key_hash: hashApiKey(k.key) }), { principal: null });
      const [row] = await query<{ revoked_at: Date | null }>(db.url, 'SELECT revoked_at FROM accounts.api_keys WHERE id = $1', [k.id]);
      assert.ok(row?.revoked_at instanceof Date);
      // the other key of the organization is untouched
      assert.equal((await call(SUBJECTS.accountsVerifyKey, { key_hash: hashApiKey(other.key) })).principal?.key_id, other.id);
      assert.ok(!invalidated.events.some((e) => e.key_id === other.id));
    } finally {
      invalidated.stop();
    }
    for (const key_id of [`key_${'Z'.repeat(24)}`, 'nope']) {
      assert.equal((await refusal(call(SUBJECTS.accountsKeyRevoke, { key_id }))).code, 'resource_not_found');
    }
  });

  it('rotate keeps the id, type, mode and scopes, changes the stored hash; the old key stops verifying; key-invalidated is published', async () => {
    const org = await call(SUBJECTS.accountsOrgCreate, { name: 'Rotate' });
    const k = await call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'live', type: 'pk', scopes: ['applicants:read'] });
    const invalidated = await listen(EVENTS.keyInvalidated);
    try {
      const rotated = await call(SUBJECTS.accountsKeyRotate, { key_id: k.id });
      assert.equal(rotated.id, k.id);
      assert.match(rotated.key, /^idv_pk_us_live_[A-Za-z0-9]{43}$/);
      assert.notEqual(rotated.key, k.key);
      assert.deepEqual([rotated.type, rotated.mode, rotated.scopes, rotated.org_id], ['pk', 'live', ['applicants:read'], org.id]);
      await eventually(invalidated.events, (e) => e.key_id === k.id);

      const [row] = await query<{ key_hash: string; rotated_at: Date | null }>(db.url, 'SELECT key_hash, rotated_at FROM accounts.api_keys WHERE id = $1', [k.id]);
      assert.equal(row?.key_hash, hashApiKey(rotated.key));
      assert.ok(row?.rotated_at instanceof Date);
      assert.deepEqual(await call(SUBJECTS.accountsVerifyKey, { key_hash: hashApiKey(k.key) }), { principal: null });
      assert.equal((await call(SUBJECTS.accountsVerifyKey, { key_hash: hashApiKey(rotated.key) })).principal?.key_id, k.id);
    } finally {
      invalidated.stop();
    }
    // a revoked key cannot be rotated back to life
    await call(SUBJECTS.accountsKeyRevoke, { key_id: k.id });
    assert.equal((await refusal(call(SUBJECTS.accountsKeyRotate, { key_id: k.id }))).code, 'resource_not_found');
    assert.equal((await refusal(call(SUBJECTS.accountsKeyRotate, { key_id: 'nope' }))).code, 'resource_not_found');
  });
});
