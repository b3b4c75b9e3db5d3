import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHECK_TYPES } from '@verity/contracts';
import { newId } from '@verity/keys';
import { debitRequestProblem, decideDebit, decideDebits } from './debits.js';
import { DEFAULT_CHECK_PRICES, parseCheckPrices, priceOf } from './pricing.js';

describe('check prices (CHECK_PRICES)', () => {
  it('every check has a default price; empty configuration keeps them all', () => {
    assert.deepEqual(Object.keys(DEFAULT_CHECK_PRICES).sort(), [...CHECK_TYPES].sort());
    assert.deepEqual(parseCheckPrices(''), { ok: true, value: DEFAULT_CHECK_PRICES });
    assert.deepEqual(parseCheckPrices(' , '), { ok: true, value: DEFAULT_CHECK_PRICES });
  });

  it('named checks override their defaults, spaces allowed, 0 allowed; the others keep theirs', () => {
    const r = parseCheckPrices('document=200, liveness = 0,credit_history=1000');
    assert.ok(r.ok);
    assert.deepEqual(r.value, { ...DEFAULT_CHECK_PRICES, document: 200, liveness: 0, credit_history: 1000 });
  });

  it('refuses unknown checks, prices that are not whole minor units, too large ones and a check named twice', () => {
    for (const text of ['passport=100', 'document=1.5', 'document=-1', 'document=', 'document', '=100', 'document=1000000000', 'document=100000001', 'document=1,document=2']) {
      const r = parseCheckPrices(text);
      assert.equal(r.ok, false, text);
    }
    assert.match((parseCheckPrices('passport=1') as { message: string }).message, /unknown check "passport"/);
  });

  it('the price of a verification is the sum of its checks, each billed once', () => {
    assert.equal(priceOf(['document', 'face_match', 'liveness'], DEFAULT_CHECK_PRICES), 350);
    assert.equal(priceOf(['document', 'document'], DEFAULT_CHECK_PRICES), 150);
    assert.equal(priceOf([], DEFAULT_CHECK_PRICES), 0);
    assert.equal(priceOf([...CHECK_TYPES], DEFAULT_CHECK_PRICES), 1100);
  });
});

describe('debit decision (docs/sessions.md, Billing)', () => {
  it('takes the price from a wallet that covers it, to exactly zero', () => {
    assert.deepEqual(decideDebit({ balance: 500, locked: false }, 350), { ok: true, balance: 150 });
    assert.deepEqual(decideDebit({ balance: 350, locked: false }, 350), { ok: true, balance: 0 });
    assert.deepEqual(decideDebit({ balance: 0, locked: false }, 0), { ok: true, balance: 0 });
  });

  it('refuses 402 payment_required with the price, never the balance: short, locked, absent', () => {
    for (const wallet of [
      { balance: 349, locked: false },
      { balance: 0, locked: false },
      { balance: 10_000, locked: true },
      { balance: null, locked: false },
    ]) {
      const d = decideDebit(wallet, 350);
      assert.equal(d.ok, false, JSON.stringify(wallet));
      if (d.ok) continue;
      assert.equal(d.error.code, 'payment_required');
      assert.deepEqual(d.error.details, { price: 350 });
      if (wallet.balance !== null) assert.ok(!d.error.message.includes(String(wallet.balance)), 'the balance is not told');
    }
    const short = decideDebit({ balance: 100, locked: false }, 350);
    assert.ok(!short.ok && short.error.message === "The wallet balance does not cover this verification's price.");
  });

  it('a debit request: live only, a session id, known checks', () => {
    const live = { org_id: newId('org'), mode: 'live' as const };
    const ok = { session_id: newId('session'), checks: ['document', 'watchlist'] };
    assert.equal(debitRequestProblem(live, ok), null);
    assert.equal(debitRequestProblem(live, { ...ok, checks: [] }), null);
    assert.equal(debitRequestProblem({ ...live, mode: 'test' }, ok)?.param, 'mode');
    assert.equal(debitRequestProblem(live, { ...ok, session_id: 'ses_nope' })?.param, 'session_id');
    assert.equal(debitRequestProblem(live, { ...ok, session_id: newId('applicant') })?.param, 'session_id');
    assert.equal(debitRequestProblem(live, { ...ok, checks: ['passport'] })?.param, 'checks');
    assert.equal(debitRequestProblem(live, { ...ok, checks: 'document' })?.param, 'checks');
  });
});

describe('debits decided together (one batch)', () => {
  const A = newId('org');
  const B = newId('org');
  const later = Date.now() + 60_000;
  const ask = (org_id: string, amount: number, session_id = newId('session'), deadline = later) => ({ session_id, org_id, amount, deadline });

  it('in arrival order, each from what the earlier ones left; organizations apart', () => {
    const wallets = new Map([
      [A, { balance: 500, locked: false }],
      [B, { balance: 100, locked: false }],
    ]);
    const asks = [ask(A, 350), ask(B, 100), ask(A, 350), ask(A, 150), ask(B, 1)];
    const { outcomes, taken } = decideDebits(wallets, new Map(), asks, Date.now());
    assert.deepEqual(outcomes.map((o) => o.kind), ['new', 'new', 'refused', 'new', 'refused']);
    assert.deepEqual(taken, new Map([[A, 500], [B, 100]]));
    const refused = outcomes[2]!;
    assert.ok(refused.kind === 'refused' && refused.error.code === 'payment_required');
    assert.deepEqual(refused.kind === 'refused' && refused.error.details, { price: 350 });
  });

  it('idempotent: a session already debited, or asked twice in the batch, is taken once', () => {
    const s = newId('session');
    const t = newId('session');
    const wallets = new Map([[A, { balance: 1000, locked: false }]]);
    const { outcomes, taken } = decideDebits(wallets, new Map([[s, { session_id: s, org_id: A }]]), [ask(A, 350, s), ask(A, 350, t), ask(A, 350, t)], Date.now());
    assert.deepEqual(outcomes.map((o) => o.kind), ['existing', 'new', 'existing']);
    assert.deepEqual(taken, new Map([[A, 350]]));
    // a refusal asked twice is refused twice
    const poor = decideDebits(new Map([[A, { balance: 0, locked: false }]]), new Map(), [ask(A, 1, t), ask(A, 1, t)], Date.now());
    assert.deepEqual(poor.outcomes.map((o) => o.kind), ['refused', 'refused']);
  });

  it('another organization\'s session id, an unknown organization and a passed deadline are refused and take nothing', () => {
    const s = newId('session');
    const wallets = new Map([[A, { balance: 1000, locked: false }]]);
    const now = Date.now();
    const { outcomes, taken } = decideDebits(
      wallets,
      new Map([[s, { session_id: s, org_id: B }]]),
      [ask(A, 10, s), ask(B, 10), ask(A, 10, newId('session'), now - 1), ask(A, 10, newId('session'), now)],
      now,
    );
    assert.deepEqual(
      outcomes.map((o) => (o.kind === 'refused' ? o.error.code : o.kind)),
      ['validation_error', 'resource_not_found', 'service_unavailable', 'service_unavailable'],
    );
    assert.equal(taken.size, 0);
  });
});
