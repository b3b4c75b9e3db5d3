/**
 * Billing of live session creates (docs/sessions.md, "Billing") against real Postgres and NATS: the debit and refund subjects
 * and the settle sweep of the accounts service. The sessions service the sweep asks (`sessions.exists.v1`) is
 * played by a responder on the same subject, so that a test can make it answer either way, or fail.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EVENTS, SUBJECTS, type CheckType, type Organization, type Principal, type ReqOf, type ResOf, type Subject } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { newId } from '@verity/keys';
import { createLogger, createServiceApp, RpcServer, type ServiceConfig } from '@verity/platform';
import { query, refusal, startServiceUnderTest, testPrincipal, type ServiceUnderTest, testPrincipalVerifier } from '@verity/testing';
import { AccountsModule } from '../src/app.module.js';
import { SettleDebitsJob } from '../src/billing/settle-debits.job.js';
import { WalletDebitsRepository } from '../src/billing/wallet-debits.repository.js';
import { ACCOUNTS_SERVICE, accountsEnv } from '../src/config.js';

let svc: ServiceUnderTest<unknown>;
let peers: RpcServer;

/** The sessions the played sessions service holds, by id (with their owner); ids in `failing` make it fail. */
const sessions = new Map<string, { org_id: string; mode: string }>();
const failing = new Set<string>();
const asked: Array<{ session_id: string; principal: Principal | null }> = [];

// a configured price (document 250 instead of 150) shows CHECK_PRICES reaches the service
const CHECKS: CheckType[] = ['document', 'face_match', 'liveness'];
const PRICE = 250 + 100 + 100;
const SETTLE_AFTER_MS = 120_000;

before(async () => {
  svc = await startServiceUnderTest({
    def: ACCOUNTS_SERVICE,
    module: AccountsModule,
    env: accountsEnv,
    vars: { CHECK_PRICES: 'document=250', BILLING_SETTLE_AFTER_MS: String(SETTLE_AFTER_MS) },
  });
  peers = new RpcServer(svc.nc, svc.root, 'peers', createLogger('accounts-billing-int', 'us', 'silent'), { principals: testPrincipalVerifier() });
  peers.handle(SUBJECTS.sessionsExists, async (p, ctx) => {
    asked.push({ session_id: p.session_id, principal: ctx.principal });
    if (failing.has(p.session_id)) throw new DomainError('service_unavailable');
    const s = sessions.get(p.session_id);
    return { exists: !!s && s.org_id === ctx.principal?.org_id && s.mode === ctx.principal.mode };
  });
  await svc.nc.flush();
});

after(async () => {
  await peers?.close();
  await svc?.close();
});

function call<S extends Subject>(p: Principal | null, subject: S, payload: ReqOf<S>): Promise<ResOf<S>> {
  return svc.rpc.call(subject, payload, { principal: p, requestId: 'req_int_billing' });
}

/** A live organization with `balance` in its wallet, and the principal of a live key of it. */
async function liveOrg(balance: number | null, locked = false): Promise<{ org: Organization; p: Principal }> {
  const org = await call(null, SUBJECTS.accountsOrgCreate, { name: 'Billing' });
  await call(null, SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: balance, wallet_locked: locked });
  return { org, p: testPrincipal({ org_id: org.id, mode: 'live', scopes: ['sessions:write'] }) };
}

async function balanceOf(orgId: string): Promise<number | null> {
  return (await call(null, SUBJECTS.accountsOrgGet, { org_id: orgId })).billing.wallet_balance;
}

async function debitRows(orgId: string) {
  return query<{ session_id: string; amount: string; checks: string[]; key_id: string; settled_at: Date | null; refunded_at: Date | null }>(
    svc.db.url,
    'SELECT session_id, amount, checks, key_id, settled_at, refunded_at FROM accounts.wallet_debits WHERE org_id = $1 ORDER BY created_at',
    [orgId],
  );
}

const debit = (p: Principal, session_id = newId('session'), checks = CHECKS) => call(p, SUBJECTS.accountsBillingDebit, { session_id, checks });

describe('debit (accounts.billing.debit.v1)', () => {
  it('takes the price of the checks (as configured) from the wallet and records the debit', async () => {
    const { org, p } = await liveOrg(500);
    const session_id = newId('session');
    const d = await debit(p, session_id);
    assert.deepEqual({ ...d, created_at: undefined }, {
      session_id,
      org_id: org.id,
      amount: PRICE,
      checks: CHECKS,
      created_at: undefined,
      settled_at: null,
      refunded_at: null,
    });
    assert.equal(await balanceOf(org.id), 500 - PRICE);
    const rows = await debitRows(org.id);
    assert.deepEqual(rows.map((r) => [r.session_id, Number(r.amount), r.checks, r.key_id]), [[session_id, PRICE, CHECKS, p.key_id]]);
  });

  it('is idempotent by session: the same debit again answers the first and takes nothing more', async () => {
    const { org, p } = await liveOrg(1000);
    const session_id = newId('session');
    const first = await debit(p, session_id);
    assert.deepEqual(await debit(p, session_id), first);
    // even at once, from several callers
    const again = await Promise.all(Array.from({ length: 5 }, () => debit(p, session_id)));
    for (const d of again) assert.deepEqual(d, first);
    assert.equal(await balanceOf(org.id), 1000 - PRICE);
    assert.equal((await debitRows(org.id)).length, 1);
  });

  it('too little balance: 402 payment_required with the price (not the balance), and nothing written', async () => {
    const { org, p } = await liveOrg(PRICE - 1);
    const e = await refusal(debit(p));
    assert.equal(e.code, 'payment_required');
    assert.equal(e.message, "The wallet balance does not cover this verification's price.");
    assert.deepEqual(e.details, { price: PRICE });
    assert.equal(await balanceOf(org.id), PRICE - 1);
    assert.equal((await debitRows(org.id)).length, 0);
    // exactly the price is enough, down to zero
    await call(null, SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: PRICE });
    await debit(p);
    assert.equal(await balanceOf(org.id), 0);
    // a verification without checks costs nothing
    assert.equal((await debit(p, newId('session'), [])).amount, 0);
  });

  it('a locked or absent wallet: 402 payment_required, nothing written', async () => {
    for (const [balance, locked] of [[10_000, true], [null, false]] as const) {
      const { org, p } = await liveOrg(balance, locked);
      const e = await refusal(debit(p));
      assert.equal(e.code, 'payment_required', JSON.stringify({ balance, locked }));
      assert.deepEqual(e.details, { price: PRICE });
      assert.equal(await balanceOf(org.id), balance);
      assert.equal((await debitRows(org.id)).length, 0);
    }
  });

  it('concurrent debits of different sessions against a balance for one: exactly one succeeds', async () => {
    const { org, p } = await liveOrg(PRICE + PRICE - 1);
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => debit(p)));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(ok.length, 1);
    assert.equal(refused.length, 11);
    for (const r of refused) assert.equal((r.reason as DomainError).code, 'payment_required');
    assert.equal(await balanceOf(org.id), PRICE - 1);
    assert.equal((await debitRows(org.id)).length, 1);
  });

  it('refuses what no gateway-fronted create sends: test mode, a bad session id, unknown checks, no principal; an unknown organization is 404', async () => {
    const { org, p } = await liveOrg(10_000);
    assert.equal((await refusal(debit({ ...p, mode: 'test' }))).code, 'validation_error');
    assert.equal((await refusal(debit(p, 'ses_nope'))).code, 'validation_error');
    assert.equal((await refusal(debit(p, newId('session'), ['passport' as CheckType]))).code, 'validation_error');
    assert.equal((await refusal(debit(null as unknown as Principal))).code, 'internal_error');
    assert.equal((await refusal(debit(testPrincipal({ mode: 'live' })))).code, 'resource_not_found');
    // a session id already billed to another organization is not billed again
    const session_id = newId('session');
    await debit(p, session_id);
    const other = await liveOrg(10_000);
    assert.equal((await refusal(debit(other.p, session_id))).code, 'validation_error');
    assert.equal(await balanceOf(other.org.id), 10_000);
    assert.equal(await balanceOf(org.id), 10_000 - PRICE);
  });

  it('a balance change publishes no org-changed event (gateways cache no balance)', async () => {
    const { org, p } = await liveOrg(1000);
    const seen: string[] = [];
    const sub = svc.rpc.subscribe(EVENTS.orgChanged, (e) => seen.push(e.org_id));
    await svc.nc.flush();
    try {
      const d = await debit(p);
      await call(p, SUBJECTS.accountsBillingRefund, { session_id: d.session_id });
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(!seen.includes(org.id));
    } finally {
      sub.unsubscribe();
    }
  });
});

describe('debits across replicas', () => {
  it('two replicas, concurrent debits against a balance for one: exactly one succeeds; the same session at once is debited once', async () => {
    // a second accounts process on the same database and subjects: requests are shared between the two
    const replica = await createServiceApp(ACCOUNTS_SERVICE, AccountsModule, svc.cfg as ServiceConfig, createLogger('accounts-replica', 'us', 'silent'));
    try {
      const { org, p } = await liveOrg(PRICE + PRICE - 1);
      const results = await Promise.allSettled(Array.from({ length: 40 }, () => debit(p)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as DomainError).code, 'payment_required');
      assert.equal(await balanceOf(org.id), PRICE - 1);
      assert.equal((await debitRows(org.id)).length, 1);

      const rich = await liveOrg(100_000);
      const session_id = newId('session');
      const same = await Promise.all(Array.from({ length: 20 }, () => debit(rich.p, session_id)));
      for (const d of same) assert.deepEqual(d, same[0]);
      assert.equal(await balanceOf(rich.org.id), 100_000 - PRICE);
      assert.equal((await debitRows(rich.org.id)).length, 1);

      // many sessions at once, from both replicas: every one paid exactly once
      const many = await Promise.all(Array.from({ length: 60 }, () => debit(rich.p)));
      assert.equal(new Set(many.map((d) => d.session_id)).size, 60);
      assert.equal(await balanceOf(rich.org.id), 100_000 - 61 * PRICE);
      assert.equal((await debitRows(rich.org.id)).length, 61);
    } finally {
      await replica.close();
    }
  });

  it('the write takes the total only from a wallet that still holds it and is open: otherwise it writes nothing', async () => {
    const repo = svc.app.get(WalletDebitsRepository);
    const { org, p } = await liveOrg(1000);
    const ask = () => ({ session_id: newId('session'), key_id: p.key_id, amount: 600, checks: CHECKS });
    // read at 1000, but another debit (or an operator) left 500 before the write
    await call(null, SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: 500 });
    assert.deepEqual(await repo.debitWallet(org.id, 600, [ask()]), []);
    await call(null, SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: 5000, wallet_locked: true });
    assert.deepEqual(await repo.debitWallet(org.id, 600, [ask()]), []);
    await call(null, SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: null, wallet_locked: false });
    assert.deepEqual(await repo.debitWallet(org.id, 600, [ask()]), []);
    assert.equal((await debitRows(org.id)).length, 0);
    await call(null, SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: 1200 });
    assert.equal((await repo.debitWallet(org.id, 1200, [ask(), ask()])).length, 2);
    assert.equal(await balanceOf(org.id), 0);
    // a session debited meanwhile fails the whole write: nothing is taken twice
    const [first] = await debitRows(org.id);
    await call(null, SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: 1200 });
    await assert.rejects(repo.debitWallet(org.id, 1200, [ask(), { ...ask(), session_id: first!.session_id }]));
    assert.equal(await balanceOf(org.id), 1200);
    assert.equal((await debitRows(org.id)).length, 2);
  });
});

describe('refund (accounts.billing.refund.v1)', () => {
  it('gives the amount back once, whoever asks how often, and marks the debit refunded', async () => {
    const { org, p } = await liveOrg(1000);
    const d = await debit(p);
    const answers = await Promise.all(Array.from({ length: 4 }, () => call(p, SUBJECTS.accountsBillingRefund, { session_id: d.session_id })));
    const refundedAt = answers[0]!.refunded_at;
    assert.ok(refundedAt !== null);
    for (const a of answers) assert.deepEqual(a, { ...d, refunded_at: refundedAt });
    assert.deepEqual(await call(p, SUBJECTS.accountsBillingRefund, { session_id: d.session_id }), answers[0]);
    assert.equal(await balanceOf(org.id), 1000);
    // the refunded session's debit is answered as it is, not made again
    assert.deepEqual(await debit(p, d.session_id), answers[0]);
    assert.equal(await balanceOf(org.id), 1000);
  });

  it('only the debit of the caller\'s organization; unknown or malformed: 404', async () => {
    const { org, p } = await liveOrg(1000);
    const d = await debit(p);
    const other = await liveOrg(0);
    assert.equal((await refusal(call(other.p, SUBJECTS.accountsBillingRefund, { session_id: d.session_id }))).code, 'resource_not_found');
    assert.equal((await refusal(call(p, SUBJECTS.accountsBillingRefund, { session_id: newId('session') }))).code, 'resource_not_found');
    assert.equal((await refusal(call(p, SUBJECTS.accountsBillingRefund, { session_id: 'nope' }))).code, 'resource_not_found');
    assert.equal(await balanceOf(org.id), 1000 - PRICE);
    assert.equal(await balanceOf(other.org.id), 0);
  });

  it('an absent wallet stays absent (the refund is recorded on the debit)', async () => {
    const { org, p } = await liveOrg(1000);
    const d = await debit(p);
    await call(null, SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: null });
    assert.ok((await call(p, SUBJECTS.accountsBillingRefund, { session_id: d.session_id })).refunded_at !== null);
    assert.equal(await balanceOf(org.id), null);
  });
});

describe('settle sweep', () => {
  const sweep = (at: number) => svc.app.get(SettleDebitsJob).sweep(new Date(at));

  it('settles a debit whose session exists, refunds one whose session never came, leaves one unknown; nothing twice', async () => {
    const { org, p } = await liveOrg(10_000);
    const came = await debit(p);
    sessions.set(came.session_id, { org_id: org.id, mode: 'live' });
    const never = await debit(p);
    const unknown = await debit(p);
    failing.add(unknown.session_id);
    // a session of the same id under another owner does not count
    const elsewhere = await debit(p);
    sessions.set(elsewhere.session_id, { org_id: newId('org'), mode: 'live' });
    const balance = 10_000 - 4 * PRICE;
    assert.equal(await balanceOf(org.id), balance);

    // too young: the create may still be running
    const now = Date.now();
    await sweep(now + SETTLE_AFTER_MS - 5000);
    assert.ok(!asked.some((a) => a.session_id === came.session_id));
    assert.ok((await debitRows(org.id)).every((r) => r.settled_at === null && r.refunded_at === null));

    const later = now + SETTLE_AFTER_MS + 1000;
    await sweep(later);
    const rows = new Map((await debitRows(org.id)).map((r) => [r.session_id, r]));
    assert.ok(rows.get(came.session_id)!.settled_at !== null && rows.get(came.session_id)!.refunded_at === null);
    assert.ok(rows.get(never.session_id)!.refunded_at !== null && rows.get(never.session_id)!.settled_at === null);
    assert.ok(rows.get(elsewhere.session_id)!.refunded_at !== null);
    assert.ok(rows.get(unknown.session_id)!.settled_at === null && rows.get(unknown.session_id)!.refunded_at === null, 'left for the next pass');
    assert.equal(await balanceOf(org.id), balance + 2 * PRICE);
    // sessions was asked with the creating key's organization, in live mode
    const q = asked.find((a) => a.session_id === came.session_id)!;
    assert.deepEqual([q.principal?.org_id, q.principal?.key_id, q.principal?.mode], [org.id, p.key_id, 'live']);

    // passes again, two at once (two replicas): nothing twice; the unknown one is closed once sessions answers
    failing.delete(unknown.session_id);
    await Promise.all([sweep(later), sweep(later)]);
    await sweep(later);
    const after = new Map((await debitRows(org.id)).map((r) => [r.session_id, r]));
    assert.ok(after.get(unknown.session_id)!.refunded_at !== null);
    assert.equal(await balanceOf(org.id), balance + 3 * PRICE);
    assert.deepEqual(after.get(came.session_id), rows.get(came.session_id));
    assert.deepEqual(after.get(never.session_id), rows.get(never.session_id));
    // a refund asked afterwards changes nothing either, and a settled debit is never refunded
    await call(p, SUBJECTS.accountsBillingRefund, { session_id: never.session_id });
    assert.equal((await call(p, SUBJECTS.accountsBillingRefund, { session_id: came.session_id })).refunded_at, null);
    assert.equal(await balanceOf(org.id), balance + 3 * PRICE);
  });
});
