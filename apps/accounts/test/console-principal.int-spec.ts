/**
 * The console's subjects of accounts against real Postgres and NATS (docs/security.md, "The bus's trust boundary"):
 * the organization, mode and person are those of the principal the console signed, never a field of the request;
 * the person's role is checked by accounts too; a request without a principal the console signed for a person is
 * refused before anything is read or written.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS, type ConsoleRole, type ConsoleUser, type Principal, type ReqOf, type ResOf, type Subject } from '@verity/contracts';
import type { Mode } from '@verity/keys';
import { RpcClient } from '@verity/platform';
import { query, refusal, startServiceUnderTest, testPrincipal, testSigner, type ServiceUnderTest } from '@verity/testing';
import { AccountsModule } from '../src/app.module.js';
import { ACCOUNTS_SERVICE, accountsEnv } from '../src/config.js';

let svc: ServiceUnderTest<unknown> | undefined;
/** The console: signs every principal with its key. */
let consoleRpc: RpcClient;

before(async () => {
  svc = await startServiceUnderTest({ def: ACCOUNTS_SERVICE, module: AccountsModule, env: accountsEnv });
  consoleRpc = new RpcClient(svc.nc, svc.root, 5000, { signer: testSigner('console') });
});

after(() => svc?.close());

const op = { principal: null, requestId: 'req_int_console_principal' };
const operator = <S extends Subject>(subject: S, payload: ReqOf<S>): Promise<ResOf<S>> => svc!.rpc.call(subject, payload, op);
let n = 0;
const email = (label: string) => `${label}.${Date.now()}.${n++}@example.com`;

interface Person {
  user: ConsoleUser;
  principal: Principal;
}

/** A person of a new organization (or of `orgId`), and the principal the console signs for them in `mode`. */
async function person(role: ConsoleRole, mode: Mode = 'test', orgId?: string): Promise<Person> {
  const org_id = orgId ?? (await operator(SUBJECTS.accountsOrgCreate, { name: 'Console principal' })).id;
  const user = await operator(SUBJECTS.accountsConsoleUserCreate, { org_id, email: email(role), role, password: 'correct horse battery staple' });
  return { user, principal: testPrincipal({ org_id, key_id: user.id, mode, actor: { user_id: user.id, role } }) };
}

/** A call as the console makes it for `who`, with a payload that may carry fields the subject does not take. */
function as<S extends Subject>(who: Person | Principal, subject: S, payload: Record<string, unknown>): Promise<ResOf<S>> {
  const principal = 'principal' in who ? who.principal : who;
  return consoleRpc.call(subject, payload as ReqOf<S>, { principal, requestId: 'req_int_console_principal' });
}

async function keysOf(orgId: string): Promise<Array<{ org_id: string; mode: string; revoked_at: Date | null }>> {
  return query(svc!.db.url, 'SELECT org_id, mode, revoked_at FROM accounts.api_keys WHERE org_id = $1', [orgId]);
}

describe("the console's subjects take the organization, mode and person from the signed principal", () => {
  it('a key is made in the principal\'s organization and mode, whatever organization and mode the request names', async () => {
    const admin = await person('admin', 'test');
    const victim = await person('owner', 'live');
    const created = await as(admin, SUBJECTS.accountsConsoleKeyCreate, { type: 'sk', scopes: ['sessions:read'], org_id: victim.user.org_id, mode: 'live' });
    assert.deepEqual([created.org_id, created.mode], [admin.user.org_id, 'test']);
    assert.deepEqual(await keysOf(victim.user.org_id), [], 'nothing written for the organization the request named');
    assert.deepEqual((await keysOf(admin.user.org_id)).map((k) => [k.org_id, k.mode]), [[admin.user.org_id, 'test']]);
    // and listed for the principal's organization and mode only
    const listed = await as(admin, SUBJECTS.accountsConsoleKeyList, { org_id: victim.user.org_id, mode: 'live' });
    assert.deepEqual(listed.data.map((k) => k.id), [created.id]);
  });

  it("another organization's key, or the other mode's, cannot be rotated or revoked: 404, and it keeps working", async () => {
    const admin = await person('admin', 'test');
    const other = await person('owner', 'test');
    const theirs = await as(other, SUBJECTS.accountsConsoleKeyCreate, { type: 'sk', scopes: ['sessions:read'] });
    const live = await as({ ...admin.principal, mode: 'live' }, SUBJECTS.accountsConsoleKeyCreate, { type: 'sk', scopes: ['sessions:read'] });
    for (const [key, label] of [[theirs, 'another organization'], [live, 'the other mode']] as const) {
      for (const subject of [SUBJECTS.accountsConsoleKeyRotate, SUBJECTS.accountsConsoleKeyRevoke]) {
        const e = await refusal(as(admin, subject, { key_id: key.id }));
        assert.equal(e.code, 'resource_not_found', `${subject} of ${label}`);
      }
    }
    assert.deepEqual((await keysOf(other.user.org_id)).map((k) => k.revoked_at), [null]);
    const [mine] = (await keysOf(admin.user.org_id)).filter((k) => k.mode === 'live');
    assert.equal(mine?.revoked_at, null);
  });

  it("accounts checks the person's role: a developer makes no live key and none beyond their role; a reviewer sees no key", async () => {
    const dev = await person('developer', 'live');
    const e = await refusal(as(dev, SUBJECTS.accountsConsoleKeyCreate, { type: 'sk', scopes: ['sessions:read'] }));
    assert.equal(e.code, 'insufficient_scope');
    assert.deepEqual(await keysOf(dev.user.org_id), []);
    // in test mode a developer makes keys of any scope
    const test = await as({ ...dev.principal, mode: 'test' }, SUBJECTS.accountsConsoleKeyCreate, { type: 'sk', scopes: ['dsar:write'] });
    assert.equal(test.mode, 'test');
    const reviewer = await person('reviewer', 'test', dev.user.org_id);
    assert.equal((await refusal(as(reviewer, SUBJECTS.accountsConsoleKeyList, {}))).code, 'insufficient_scope');
    assert.equal((await refusal(as(reviewer, SUBJECTS.accountsConsoleKeyRevoke, { key_id: test.id }))).code, 'insufficient_scope');
    assert.equal((await keysOf(dev.user.org_id)).filter((k) => k.revoked_at === null).length, 1);
  });

  it('the team is for owners, within their organization: an admin is refused, another organization\'s person is 404, nothing changes', async () => {
    const owner = await person('owner');
    const admin = await person('admin', 'test', owner.user.org_id);
    const stranger = await person('developer');
    for (const [subject, payload] of [
      [SUBJECTS.accountsConsoleTeamRole, { user_id: owner.user.id, role: 'reviewer' }],
      [SUBJECTS.accountsConsoleTeamDisable, { user_id: owner.user.id }],
      [SUBJECTS.accountsConsoleTeamResetTwoFactor, { user_id: owner.user.id }],
      [SUBJECTS.accountsConsoleTeamInvite, { email: email('invited'), role: 'owner' }],
      [SUBJECTS.accountsConsoleTeamList, {}],
    ] as const) {
      assert.equal((await refusal(as(admin, subject, payload))).code, 'insufficient_scope', subject);
    }
    for (const subject of [SUBJECTS.accountsConsoleTeamGet, SUBJECTS.accountsConsoleTeamRole, SUBJECTS.accountsConsoleTeamDisable, SUBJECTS.accountsConsoleTeamRemove, SUBJECTS.accountsConsoleTeamResetTwoFactor]) {
      const e = await refusal(as(owner, subject, { user_id: stranger.user.id, role: 'owner', org_id: stranger.user.org_id }));
      assert.equal(e.code, 'resource_not_found', subject);
    }
    assert.deepEqual(await operator(SUBJECTS.accountsConsoleUserGet, { user_id: stranger.user.id }), stranger.user);
    assert.equal((await operator(SUBJECTS.accountsConsoleUserGet, { user_id: owner.user.id })).role, 'owner');
    // the owner's own organization: the change is made
    assert.equal((await as(owner, SUBJECTS.accountsConsoleTeamRole, { user_id: admin.user.id, role: 'reviewer', org_id: stranger.user.org_id })).role, 'reviewer');
    assert.deepEqual((await as(owner, SUBJECTS.accountsConsoleTeamList, { org_id: stranger.user.org_id })).data.map((u) => u.id), [owner.user.id, admin.user.id]);
  });

  it("one's own account is the principal's person: a password change naming another person changes one's own", async () => {
    const me = await person('reviewer');
    const other = await person('owner', 'test', me.user.org_id);
    const changed = await as(me, SUBJECTS.accountsConsoleOwnPassword, { user_id: other.user.id, current_password: 'correct horse battery staple', new_password: 'a new and long password' });
    assert.equal(changed.id, me.user.id);
    assert.deepEqual(await operator(SUBJECTS.accountsConsoleLogin, { email: other.user.email, password: 'correct horse battery staple' }), { user: other.user });
    assert.equal((await operator(SUBJECTS.accountsConsoleLogin, { email: me.user.email, password: 'a new and long password' })).user?.id, me.user.id);
  });

  it('the activity log: written as made by the principal\'s person in their organization, whoever the request names', async () => {
    const me = await person('developer');
    const victim = await person('owner');
    const entry = await as(me, SUBJECTS.accountsConsoleActivityRecord, {
      mode: 'test',
      action: 'console.key.created',
      target_id: null,
      details: {},
      org_id: victim.user.org_id,
      actor_id: victim.user.id,
      actor_email: victim.user.email,
    });
    assert.deepEqual([entry.org_id, entry.actor_id, entry.actor_email], [me.user.org_id, me.user.id, me.user.email]);
    assert.deepEqual((await operator(SUBJECTS.accountsActivityList, { org_id: victim.user.org_id })).data, []);
    const e = await refusal(as(me, SUBJECTS.accountsConsoleActivityRecord, { mode: 'live', action: 'console.key.created', target_id: null, details: {} }));
    assert.deepEqual([e.code, e.param], ['validation_error', 'mode']);
    assert.deepEqual((await as(me, SUBJECTS.accountsConsoleActivityList, { org_id: victim.user.org_id })).data.map((x) => x.id), [entry.id]);
  });

  it("billing: the principal's organization's wallet and live spend (debits given back left out), the prices and their currency; owners and admins only", async () => {
    const admin = await person('admin', 'test');
    const other = await person('owner', 'live');
    await operator(SUBJECTS.accountsBillingSet, { org_id: admin.user.org_id, wallet_balance: 10_000 });
    await operator(SUBJECTS.accountsBillingSet, { org_id: other.user.org_id, wallet_balance: 777 });
    // two debits of the admin's organization today, one of them given back; one of the other organization
    for (const [session, org, amount, refunded] of [['ses_bill1', admin.user.org_id, 350, false], ['ses_bill2', admin.user.org_id, 150, true], ['ses_bill3', other.user.org_id, 900, false]] as const) {
      await query(svc!.db.url, `INSERT INTO accounts.wallet_debits (session_id, org_id, key_id, amount, checks, refunded_at) VALUES ($1, $2, 'key_x', $3, '{document}', $4)`, [`${session}_${n++}`, org, amount, refunded ? new Date() : null]);
    }
    const got = await as(admin, SUBJECTS.accountsConsoleBilling, { org_id: other.user.org_id });
    assert.deepEqual([got.currency, got.minor_unit_digits, got.wallet_balance, got.check_prices.document], ['USD', 2, 10_000, 150]);
    assert.deepEqual(got.spend, [{ day: new Date().toISOString().slice(0, 10), amount: 350, verifications: 1 }]);
    assert.equal((await refusal(as(admin, SUBJECTS.accountsConsoleBilling, { days: 91 }))).code, 'validation_error');
    for (const role of ['developer', 'reviewer'] as const) {
      assert.equal((await refusal(as(await person(role, 'live', admin.user.org_id), SUBJECTS.accountsConsoleBilling, {}))).code, 'insufficient_scope', role);
    }
    // the operator's org get: the same prices with their currency
    const org = await operator(SUBJECTS.accountsOrgGet, { org_id: admin.user.org_id });
    assert.deepEqual([org.billing.wallet_balance, org.pricing.currency, org.pricing.check_prices.liveness], [10_000, 'USD', 100]);
  });

  it('refused before anything is read or written: no principal, one the gateway signed, one naming no person or another than it signed for', async () => {
    const owner = await person('owner');
    const payload = { type: 'sk', scopes: ['sessions:read'] };
    const gatewayRpc = svc!.rpc; // signs as the gateway
    const refusals = [
      consoleRpc.call(SUBJECTS.accountsConsoleKeyCreate, payload as never, { principal: null, requestId: 'req_int_console_principal' }),
      gatewayRpc.call(SUBJECTS.accountsConsoleKeyCreate, payload as never, { principal: owner.principal, requestId: 'req_int_console_principal' }),
      as({ ...owner.principal, actor: undefined }, SUBJECTS.accountsConsoleKeyCreate, payload),
      as({ ...owner.principal, key_id: `usr_${'Z'.repeat(24)}` }, SUBJECTS.accountsConsoleKeyCreate, payload),
      as({ ...owner.principal, actor: { user_id: owner.user.id, role: 'root' as never } }, SUBJECTS.accountsConsoleKeyCreate, payload),
    ];
    for (const [i, p] of refusals.entries()) assert.equal((await refusal(p)).code, 'internal_error', `case ${i}`);
    assert.deepEqual(await keysOf(owner.user.org_id), []);
  });
});
