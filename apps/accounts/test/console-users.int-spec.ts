/**
 * The accounts side of the console (docs/console.md) against real Postgres and NATS, called as the console and the
 * admin CLI call it (operator subjects, no principal): console users and their sign-in, an organization's keys,
 * and the console's activity log.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS, type ConsoleActivityRecordRequest, type ReqOf, type ResOf, type Subject } from '@verity/contracts';
import { query, refusal, startServiceUnderTest, testPrincipal, type ServiceUnderTest } from '@verity/testing';
import { Secret, TOTP } from 'otpauth';
import { AccountsModule } from '../src/app.module.js';
import { ConsoleTwoFactorService } from '../src/console/console-two-factor.service.js';
import { ACCOUNTS_SERVICE, accountsEnv } from '../src/config.js';

let db: ServiceUnderTest<unknown>['db'];
let rpc: ServiceUnderTest<unknown>['rpc'];
let svc: ServiceUnderTest<unknown> | undefined;

before(async () => {
  svc = await startServiceUnderTest({ def: ACCOUNTS_SERVICE, module: AccountsModule, env: accountsEnv });
  ({ db, rpc } = svc);
});

after(() => svc?.close());

/** An operator call, as the console and the admin CLI make it (no principal). */
function call<S extends Subject>(subject: S, payload: ReqOf<S>): Promise<ResOf<S>> {
  return rpc.call(subject, payload, { principal: null, requestId: 'req_int_console_users' });
}

const UNKNOWN_ORG = `org_${'Z'.repeat(24)}`;
const PASSWORD = 'correct horse battery staple';
let n = 0;
/** An address no other test uses (one address per region). */
const email = (label: string) => `${label}.${Date.now()}.${n++}@example.com`;

async function newOrg(name = 'Console'): Promise<string> {
  return (await call(SUBJECTS.accountsOrgCreate, { name })).id;
}

describe('console users', () => {
  it('create, get and list: lower-cased address, usr_ id, oldest first, only the organization\'s own', async () => {
    const org = await newOrg();
    const other = await newOrg('Other');
    const address = email('Ada');
    const owner = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: `  ${address.toUpperCase()} `, role: 'owner', password: PASSWORD });
    assert.match(owner.id, /^usr_[A-Za-z0-9]{24}$/);
    assert.ok(!Number.isNaN(Date.parse(owner.created_at)));
    assert.deepEqual({ ...owner, created_at: undefined }, { id: owner.id, object: 'console_user', org_id: org, email: address.toLowerCase(), role: 'owner', created_at: undefined, session_epoch: 0, disabled_at: null, totp_enabled_at: null, totp_required: false });
    assert.deepEqual(Object.keys(owner).sort(), ['created_at', 'disabled_at', 'email', 'id', 'object', 'org_id', 'role', 'session_epoch', 'totp_enabled_at', 'totp_required'], 'no password nor hash in the reply');

    const reviewer = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('grace'), role: 'reviewer', password: PASSWORD });
    await call(SUBJECTS.accountsConsoleUserCreate, { org_id: other, email: email('alan'), role: 'admin', password: PASSWORD });

    assert.deepEqual(await call(SUBJECTS.accountsConsoleUserGet, { user_id: owner.id }), owner);
    assert.deepEqual(await call(SUBJECTS.accountsConsoleUserList, { org_id: org }), { data: [owner, reviewer] });
    assert.deepEqual((await call(SUBJECTS.accountsConsoleUserList, { org_id: await newOrg('Empty') })).data, []);

    for (const user_id of [`usr_${'Z'.repeat(24)}`, 'usr_short', `org_${'A'.repeat(24)}`, '']) {
      const e = await refusal(call(SUBJECTS.accountsConsoleUserGet, { user_id }));
      assert.deepEqual([e.code, e.param], ['resource_not_found', 'user_id'], user_id);
    }
    for (const org_id of [UNKNOWN_ORG, 'nope']) {
      const e = await refusal(call(SUBJECTS.accountsConsoleUserList, { org_id }));
      assert.deepEqual([e.code, e.param], ['resource_not_found', 'org_id'], org_id);
    }
  });

  it('stores an Argon2id hash only: no column holds the password', async () => {
    const org = await newOrg();
    const user = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('hash'), role: 'developer', password: PASSWORD });
    const [row] = await query<Record<string, unknown>>(db.url, 'SELECT * FROM accounts.console_users WHERE id = $1', [user.id]);
    assert.ok(row);
    assert.match(String(row.password_hash), /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    for (const [column, value] of Object.entries(row)) {
      const text = value instanceof Date ? value.toISOString() : JSON.stringify(value);
      assert.ok(!text.includes(PASSWORD) && !text.includes('horse'), `column ${column} holds no part of the password`);
    }
  });

  it('an address in use in the region is refused, whatever its case or organization, and nothing is written', async () => {
    const [org, other] = [await newOrg(), await newOrg('Other')];
    const address = email('dup');
    await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: address, role: 'owner', password: PASSWORD });
    for (const req of [
      { org_id: org, email: address, role: 'admin' as const, password: `${PASSWORD} 2` },
      { org_id: other, email: address.toUpperCase(), role: 'owner' as const, password: `${PASSWORD} 3` },
    ]) {
      const e = await refusal(call(SUBJECTS.accountsConsoleUserCreate, req));
      assert.deepEqual([e.code, e.param, e.message], ['validation_error', 'email', 'email is already in use']);
      assert.ok(!JSON.stringify(e.toData()).includes(req.password), 'the password is not in the error');
    }
    const rows = await query<{ org_id: string; role: string }>(db.url, 'SELECT org_id, role FROM accounts.console_users WHERE email = $1', [address]);
    assert.deepEqual(rows, [{ org_id: org, role: 'owner' }]);
    assert.deepEqual((await call(SUBJECTS.accountsConsoleUserList, { org_id: other })).data, []);

    // two creates of one address at once: one wins, the other is refused
    const racing = email('race');
    const results = await Promise.allSettled(
      [org, other].map((org_id) => call(SUBJECTS.accountsConsoleUserCreate, { org_id, email: racing, role: 'owner', password: PASSWORD })),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.equal((lost.reason as { param?: string }).param, 'email');
    const [count] = await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM accounts.console_users WHERE email = $1', [racing]);
    assert.equal(count!.n, 1);
  });

  it('refuses bad addresses, roles and passwords naming the field, and unknown organizations with 404 on org_id; writes nothing', async () => {
    const org = await newOrg();
    const secret = 'never-echo-this-secret';
    const ok = { org_id: org, email: email('valid'), role: 'admin' as const, password: `${secret}-long-enough` };
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ email: 'not-an-address' }, 'validation_error', 'email'],
      [{ email: `${'a'.repeat(64)}@${'b'.repeat(186)}.com` }, 'validation_error', 'email'],
      [{ email: 42 }, 'validation_error', 'email'],
      [{ role: 'superuser' }, 'validation_error', 'role'],
      [{ role: undefined }, 'validation_error', 'role'],
      [{ password: secret.slice(0, 11) }, 'validation_error', 'password'],
      [{ password: `${secret}${'x'.repeat(256)}` }, 'validation_error', 'password'],
      [{ password: undefined }, 'validation_error', 'password'],
      [{ org_id: UNKNOWN_ORG }, 'resource_not_found', 'org_id'],
      [{ org_id: 'org_nope' }, 'resource_not_found', 'org_id'],
    ];
    for (const [over, code, param] of cases) {
      const e = await refusal(call(SUBJECTS.accountsConsoleUserCreate, { ...ok, ...over } as typeof ok));
      assert.deepEqual([e.code, e.param], [code, param], JSON.stringify(over).slice(0, 80));
      assert.ok(!JSON.stringify(e.toData()).includes(secret.slice(0, 11)), 'the password is not in the error');
    }
    const e = await refusal(call(SUBJECTS.accountsConsoleUserCreate, { ...ok, password: 'short' }));
    assert.equal(e.message, 'password must be 12 to 256 characters');
    const [count] = await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM accounts.console_users WHERE org_id = $1', [org]);
    assert.equal(count!.n, 0);
  });

  it('operator subjects only: a request carrying a principal is refused', async () => {
    const org = await newOrg();
    const e = await refusal(
      rpc.call(SUBJECTS.accountsConsoleUserList, { org_id: org }, { principal: testPrincipal({ org_id: org }), requestId: 'req_int_console_users' }),
    );
    assert.equal(e.code, 'internal_error');
  });
});

describe('console sign-in', () => {
  it('the right password answers the user (any case of the address); a wrong one and an unknown address both answer null', async () => {
    const org = await newOrg();
    const address = email('login');
    const user = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: address, role: 'developer', password: PASSWORD });
    assert.deepEqual(await call(SUBJECTS.accountsConsoleLogin, { email: address, password: PASSWORD }), { user });
    assert.deepEqual(await call(SUBJECTS.accountsConsoleLogin, { email: ` ${address.toUpperCase()}`, password: PASSWORD }), { user });
    for (const req of [
      { email: address, password: `${PASSWORD}!` },
      { email: address, password: PASSWORD.toUpperCase() },
      { email: email('nobody'), password: PASSWORD },
    ]) {
      assert.deepEqual(await call(SUBJECTS.accountsConsoleLogin, req), { user: null }, req.email);
    }
  });

  it('malformed input is refused with the field named', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ email: 'not-an-address', password: PASSWORD }, 'email'],
      [{ email: null, password: PASSWORD }, 'email'],
      [{ email: email('x'), password: '' }, 'password'],
      [{ email: email('x'), password: 12345678901234 }, 'password'],
      [{ email: email('x'), password: 'x'.repeat(257) }, 'password'],
    ];
    for (const [req, param] of cases) {
      const e = await refusal(call(SUBJECTS.accountsConsoleLogin, req as { email: string; password: string }));
      assert.deepEqual([e.code, e.param], ['validation_error', param], JSON.stringify(req).slice(0, 80));
    }
  });
});

describe('console users: role changes and removal', () => {
  it("change a person's role or remove them, only within their organization; the last owner is refused; nothing changes on a refusal", async () => {
    const org = await newOrg();
    const other = await newOrg('Other');
    const owner = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('own'), role: 'owner', password: PASSWORD });
    const dev = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('dev'), role: 'developer', password: PASSWORD });
    assert.deepEqual(await call(SUBJECTS.accountsConsoleUserUpdate, { org_id: org, user_id: dev.id, role: 'admin' }), { ...dev, role: 'admin' });

    // another organization's person, an unknown one, a bad role
    for (const [req, param] of [
      [{ org_id: other, user_id: dev.id, role: 'reviewer' }, 'user_id'],
      [{ org_id: org, user_id: `usr_${'Z'.repeat(24)}`, role: 'reviewer' }, 'user_id'],
      [{ org_id: UNKNOWN_ORG, user_id: dev.id, role: 'reviewer' }, 'org_id'],
    ] as const) {
      const e = await refusal(call(SUBJECTS.accountsConsoleUserUpdate, req));
      assert.deepEqual([e.code, e.param], ['resource_not_found', param], JSON.stringify(req));
    }
    const bad = await refusal(call(SUBJECTS.accountsConsoleUserUpdate, { org_id: org, user_id: dev.id, role: 'root' as never }));
    assert.deepEqual([bad.code, bad.param], ['validation_error', 'role']);

    // the only owner can neither step down nor be removed
    const demote = await refusal(call(SUBJECTS.accountsConsoleUserUpdate, { org_id: org, user_id: owner.id, role: 'admin' }));
    assert.deepEqual([demote.code, demote.param], ['validation_error', 'role']);
    const leave = await refusal(call(SUBJECTS.accountsConsoleUserRemove, { org_id: org, user_id: owner.id }));
    assert.deepEqual([leave.code, leave.param], ['validation_error', 'user_id']);
    assert.equal((await call(SUBJECTS.accountsConsoleUserGet, { user_id: owner.id })).role, 'owner');

    // with a second owner, the first may step down; a removed person is gone, and cannot sign in
    await call(SUBJECTS.accountsConsoleUserUpdate, { org_id: org, user_id: dev.id, role: 'owner' });
    assert.equal((await call(SUBJECTS.accountsConsoleUserUpdate, { org_id: org, user_id: owner.id, role: 'reviewer' })).role, 'reviewer');
    assert.deepEqual(await refusal(call(SUBJECTS.accountsConsoleUserRemove, { org_id: other, user_id: owner.id })).then((e) => e.code), 'resource_not_found');
    assert.deepEqual(await call(SUBJECTS.accountsConsoleUserRemove, { org_id: org, user_id: owner.id }), { removed: true });
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleUserGet, { user_id: owner.id }))).code, 'resource_not_found');
    assert.deepEqual(await call(SUBJECTS.accountsConsoleLogin, { email: owner.email, password: PASSWORD }), { user: null });
    assert.deepEqual((await call(SUBJECTS.accountsConsoleUserList, { org_id: org })).data.map((u) => [u.id, u.role]), [[dev.id, 'owner']]);
  });

  it('two owners demoting each other at once: one change wins, the organization keeps an owner', async () => {
    const org = await newOrg();
    const a = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('a'), role: 'owner', password: PASSWORD });
    const b = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('b'), role: 'owner', password: PASSWORD });
    const results = await Promise.allSettled([a, b].map((u) => call(SUBJECTS.accountsConsoleUserUpdate, { org_id: org, user_id: u.id, role: 'admin' })));
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const roles = (await call(SUBJECTS.accountsConsoleUserList, { org_id: org })).data.map((u) => u.role).sort();
    assert.deepEqual(roles, ['admin', 'owner']);
  });
});

describe('console users: disabling', () => {
  it('a disabled person signs in as a wrong password does and their sessions end; enabled, they sign in again; only within the organization', async () => {
    const org = await newOrg();
    const owner = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('own'), role: 'owner', password: PASSWORD });
    const dev = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('dev'), role: 'developer', password: PASSWORD });
    const disabled = await call(SUBJECTS.accountsConsoleUserDisable, { org_id: org, user_id: dev.id });
    assert.ok(disabled.disabled_at && !Number.isNaN(Date.parse(disabled.disabled_at)));
    assert.equal(disabled.session_epoch, dev.session_epoch + 1, 'every session of theirs ends');
    assert.deepEqual(await call(SUBJECTS.accountsConsoleLogin, { email: dev.email, password: PASSWORD }), { user: null }, 'the right password is refused');
    assert.deepEqual(await call(SUBJECTS.accountsConsoleUserDisable, { org_id: org, user_id: dev.id }), disabled, 'disabling again changes nothing');
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleUserEnable, { org_id: await newOrg('Other'), user_id: dev.id }))).code, 'resource_not_found');
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleUserDisable, { org_id: org, user_id: `usr_${'Z'.repeat(24)}` }))).code, 'resource_not_found');

    const enabled = await call(SUBJECTS.accountsConsoleUserEnable, { org_id: org, user_id: dev.id });
    assert.deepEqual(enabled, { ...disabled, disabled_at: null }, 'enabled: the epoch stays where disabling put it');
    assert.deepEqual(await call(SUBJECTS.accountsConsoleLogin, { email: dev.email, password: PASSWORD }), { user: enabled });

    // the last owner who is not disabled stays; a disabled owner does not count as one
    const leave = await refusal(call(SUBJECTS.accountsConsoleUserDisable, { org_id: org, user_id: owner.id }));
    assert.deepEqual([leave.code, leave.param], ['validation_error', 'user_id']);
    await call(SUBJECTS.accountsConsoleUserUpdate, { org_id: org, user_id: dev.id, role: 'owner' });
    await call(SUBJECTS.accountsConsoleUserDisable, { org_id: org, user_id: dev.id });
    const demote = await refusal(call(SUBJECTS.accountsConsoleUserUpdate, { org_id: org, user_id: owner.id, role: 'admin' }));
    assert.deepEqual([demote.code, demote.param], ['validation_error', 'role'], 'the other owner is disabled');
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleUserRemove, { org_id: org, user_id: owner.id }))).param, 'user_id');
    assert.equal((await call(SUBJECTS.accountsConsoleUserGet, { user_id: owner.id })).disabled_at, null);
  });

  it('two owners disabling each other at once: one change wins, the organization keeps an owner who can sign in', async () => {
    const org = await newOrg();
    const a = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('a'), role: 'owner', password: PASSWORD });
    const b = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('b'), role: 'owner', password: PASSWORD });
    const results = await Promise.allSettled([b, a].map((u) => call(SUBJECTS.accountsConsoleUserDisable, { org_id: org, user_id: u.id })));
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const active = (await call(SUBJECTS.accountsConsoleUserList, { org_id: org })).data.filter((u) => u.disabled_at === null);
    assert.equal(active.length, 1);
  });
});

describe('console users: signing out everywhere and changing a password', () => {
  it('sign-out moves the epoch on; a password change checks the current one, sets the new one and moves the epoch on', async () => {
    const org = await newOrg();
    const user = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('pw'), role: 'reviewer', password: PASSWORD });
    assert.equal((await call(SUBJECTS.accountsConsoleUserSignOut, { org_id: org, user_id: user.id })).session_epoch, 1);
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleUserSignOut, { org_id: await newOrg('Other'), user_id: user.id }))).code, 'resource_not_found');

    const NEW = 'a new and longer passphrase';
    for (const [req, param] of [
      [{ user_id: user.id, current_password: 'not the password', new_password: NEW }, 'current_password'],
      [{ user_id: user.id, current_password: '', new_password: NEW }, 'current_password'],
      [{ user_id: user.id, current_password: PASSWORD, new_password: 'short' }, 'new_password'],
    ] as const) {
      const e = await refusal(call(SUBJECTS.accountsConsolePasswordChange, req));
      assert.deepEqual([e.code, e.param], ['validation_error', param], JSON.stringify(req));
    }
    assert.deepEqual(await call(SUBJECTS.accountsConsoleLogin, { email: user.email, password: PASSWORD }), { user: { ...user, session_epoch: 1 } }, 'a refused change changes nothing');

    const changed = await call(SUBJECTS.accountsConsolePasswordChange, { user_id: user.id, current_password: PASSWORD, new_password: NEW });
    assert.equal(changed.session_epoch, 2);
    assert.deepEqual(await call(SUBJECTS.accountsConsoleLogin, { email: user.email, password: PASSWORD }), { user: null });
    assert.deepEqual(await call(SUBJECTS.accountsConsoleLogin, { email: user.email, password: NEW }), { user: changed });
    // the same old password a second time (two changes at once): the first won, this one is refused
    assert.equal((await refusal(call(SUBJECTS.accountsConsolePasswordChange, { user_id: user.id, current_password: PASSWORD, new_password: 'yet another passphrase' }))).param, 'current_password');
  });
});

describe('console invitations', () => {
  it('an invitation: its token answered once and stored as a hash; opened; accepted once with the person\'s own password, which signs them in', async () => {
    const org = await newOrg('Invited');
    const owner = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('inviter'), role: 'owner', password: PASSWORD });
    const address = email('Invitee');
    const { invitation, token } = await call(SUBJECTS.accountsConsoleInvitationCreate, { org_id: org, email: address.toUpperCase(), role: 'reviewer', invited_by: owner.id });
    assert.match(invitation.id, /^inv_[A-Za-z0-9]{24}$/);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual([invitation.email, invitation.role, invitation.status, invitation.invited_by], [address.toLowerCase(), 'reviewer', 'pending', owner.id]);
    const days = (Date.parse(invitation.expires_at) - Date.parse(invitation.created_at)) / 86_400_000;
    assert.ok(Math.abs(days - 7) < 0.001, `expires 7 days on (${days})`);
    const [row] = await query<Record<string, unknown>>(db.url, 'SELECT * FROM accounts.console_invitations WHERE id = $1', [invitation.id]);
    for (const [column, value] of Object.entries(row!)) assert.ok(!JSON.stringify(value).includes(token), `column ${column} does not hold the token`);
    assert.deepEqual(await call(SUBJECTS.accountsConsoleInvitationList, { org_id: org }), { data: [invitation] });

    assert.deepEqual(await call(SUBJECTS.accountsConsoleInvitationOpen, { token }), { invitation, org_name: 'Invited' });
    for (const bad of ['A'.repeat(43), 'short', '']) assert.equal((await refusal(call(SUBJECTS.accountsConsoleInvitationOpen, { token: bad }))).code, 'resource_not_found', bad);
    const short = await refusal(call(SUBJECTS.accountsConsoleInvitationAccept, { token, password: 'short' }));
    assert.deepEqual([short.code, short.param], ['validation_error', 'password']);

    const { user, invitation: used } = await call(SUBJECTS.accountsConsoleInvitationAccept, { token, password: PASSWORD });
    assert.deepEqual([user.email, user.role, user.org_id, used.status], [address.toLowerCase(), 'reviewer', org, 'accepted']);
    assert.deepEqual(await call(SUBJECTS.accountsConsoleLogin, { email: address, password: PASSWORD }), { user });
    const again = await refusal(call(SUBJECTS.accountsConsoleInvitationAccept, { token, password: 'another passphrase' }));
    assert.deepEqual([again.code, again.param], ['validation_error', 'token'], 'used once');
    assert.equal((await call(SUBJECTS.accountsConsoleInvitationOpen, { token })).invitation.status, 'accepted');
    assert.deepEqual((await call(SUBJECTS.accountsConsoleInvitationList, { org_id: org })).data, [], 'no longer pending');
    const taken = await refusal(call(SUBJECTS.accountsConsoleInvitationCreate, { org_id: org, email: address, role: 'admin', invited_by: owner.id }));
    assert.deepEqual([taken.code, taken.param], ['validation_error', 'email'], 'the address has an account now');
  });

  it('revoked, replaced or expired: refused; revoking is for the organization\'s own pending invitations', async () => {
    const org = await newOrg();
    const other = await newOrg('Other');
    const owner = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('inviter'), role: 'owner', password: PASSWORD });
    const address = email('twice');
    const first = await call(SUBJECTS.accountsConsoleInvitationCreate, { org_id: org, email: address, role: 'developer', invited_by: owner.id });
    const second = await call(SUBJECTS.accountsConsoleInvitationCreate, { org_id: org, email: address, role: 'admin', invited_by: owner.id });
    assert.equal((await call(SUBJECTS.accountsConsoleInvitationOpen, { token: first.token })).invitation.status, 'revoked', 'replaced by the newer one');
    assert.deepEqual((await call(SUBJECTS.accountsConsoleInvitationList, { org_id: org })).data.map((i) => i.id), [second.invitation.id]);

    const foreign = await refusal(call(SUBJECTS.accountsConsoleInvitationRevoke, { org_id: other, invitation_id: second.invitation.id }));
    assert.deepEqual([foreign.code, foreign.param], ['resource_not_found', 'invitation_id']);
    assert.equal((await call(SUBJECTS.accountsConsoleInvitationRevoke, { org_id: org, invitation_id: second.invitation.id })).status, 'revoked');
    const twice = await refusal(call(SUBJECTS.accountsConsoleInvitationRevoke, { org_id: org, invitation_id: second.invitation.id }));
    assert.deepEqual([twice.code, twice.param], ['validation_error', 'invitation_id']);
    for (const { token } of [first, second]) {
      const e = await refusal(call(SUBJECTS.accountsConsoleInvitationAccept, { token, password: PASSWORD }));
      assert.deepEqual([e.code, e.param], ['validation_error', 'token']);
    }

    const late = await call(SUBJECTS.accountsConsoleInvitationCreate, { org_id: org, email: email('late'), role: 'developer', invited_by: owner.id });
    await query(db.url, `UPDATE accounts.console_invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [late.invitation.id]);
    assert.equal((await call(SUBJECTS.accountsConsoleInvitationOpen, { token: late.token })).invitation.status, 'expired');
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleInvitationAccept, { token: late.token, password: PASSWORD }))).param, 'token');
    assert.deepEqual((await call(SUBJECTS.accountsConsoleInvitationList, { org_id: org })).data, []);
    assert.deepEqual(await query(db.url, 'SELECT id FROM accounts.console_users WHERE email = ANY($1)', [[address, late.invitation.email]]), [], 'no account was made');

    for (const [req, param] of [
      [{ org_id: org, email: 'nobody', role: 'admin', invited_by: owner.id }, 'email'],
      [{ org_id: org, email: email('x'), role: 'root', invited_by: owner.id }, 'role'],
      [{ org_id: org, email: email('x'), role: 'admin', invited_by: 'someone' }, 'invited_by'],
    ] as const) {
      const e = await refusal(call(SUBJECTS.accountsConsoleInvitationCreate, req as never));
      assert.deepEqual([e.code, e.param], ['validation_error', param], JSON.stringify(req));
    }
  });

  it('two acceptances of one invitation at once: one account is made', async () => {
    const org = await newOrg();
    const owner = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('inviter'), role: 'owner', password: PASSWORD });
    const { token } = await call(SUBJECTS.accountsConsoleInvitationCreate, { org_id: org, email: email('race'), role: 'developer', invited_by: owner.id });
    const results = await Promise.allSettled([1, 2].map((i) => call(SUBJECTS.accountsConsoleInvitationAccept, { token, password: `${PASSWORD} ${i}` })));
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    assert.equal((await call(SUBJECTS.accountsConsoleUserList, { org_id: org })).data.length, 2);
  });
});

describe('console two-factor sign-in', () => {
  const codeOf = (secret: string, at = Date.now()) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

  it('enrol with a code of the secret shown; codes are good once; recovery codes once each; off with a code', async () => {
    const org = await newOrg();
    const user = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('totp'), role: 'developer', password: PASSWORD });
    assert.equal(user.totp_enabled_at, null);
    const begun = await call(SUBJECTS.accountsConsoleTotpBegin, { user_id: user.id });
    assert.match(begun.secret, /^[A-Z2-7]{32}$/);
    assert.ok(begun.uri.startsWith(`otpauth://totp/Verity%20US:${encodeURIComponent(user.email)}?`), begun.uri);
    assert.deepEqual(await call(SUBJECTS.accountsConsoleTotpBegin, { user_id: user.id }), begun, 'the same secret while it waits for its code');
    const [pending] = await query<{ totp_pending_secret: string }>(db.url, 'SELECT totp_pending_secret FROM accounts.console_users WHERE id = $1', [user.id]);
    assert.ok(pending!.totp_pending_secret.startsWith('v1.') && !pending!.totp_pending_secret.includes(begun.secret), 'the secret being enrolled is sealed too');

    const wrong = await refusal(call(SUBJECTS.accountsConsoleTotpConfirm, { user_id: user.id, code: codeOf(begun.secret, Date.now() - 120_000) }));
    assert.deepEqual([wrong.code, wrong.param], ['validation_error', 'code']);
    const { user: on, recovery_codes } = await call(SUBJECTS.accountsConsoleTotpConfirm, { user_id: user.id, code: codeOf(begun.secret) });
    assert.ok(on.totp_enabled_at);
    assert.equal(on.session_epoch, user.session_epoch + 1, 'every session made without it ends');
    assert.equal(recovery_codes.length, 10);
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleTotpBegin, { user_id: user.id }))).param, 'user_id', 'on already');

    // nothing stored or answered holds the secret or a recovery code as given: the secret is sealed (CONSOLE_TOTP_KEY)
    const [row] = await query<Record<string, unknown>>(db.url, 'SELECT * FROM accounts.console_users WHERE id = $1', [user.id]);
    const codes = await query<Record<string, unknown>>(db.url, 'SELECT * FROM accounts.console_recovery_codes WHERE user_id = $1', [user.id]);
    assert.equal(codes.length, 10);
    for (const c of recovery_codes) assert.ok(!JSON.stringify(codes).includes(c.replace(/-/g, '')) && !JSON.stringify(codes).includes(c), 'hashed');
    assert.deepEqual(Object.keys(row!).filter((k) => JSON.stringify(row![k]).includes(begun.secret)), []);
    assert.match(String(row!.totp_secret), /^v1\.[A-Za-z0-9+/]+=*$/);
    assert.ok(!JSON.stringify(await call(SUBJECTS.accountsConsoleUserGet, { user_id: user.id })).includes(begun.secret));

    // the code step: the code the confirmation took is not taken again; the next step's is, once
    const replay = await refusal(call(SUBJECTS.accountsConsoleTotpVerify, { user_id: user.id, code: codeOf(begun.secret) }));
    assert.deepEqual([replay.code, replay.param], ['validation_error', 'code'], 'replayed');
    const next = codeOf(begun.secret, Date.now() + 30_000);
    assert.deepEqual(await call(SUBJECTS.accountsConsoleTotpVerify, { user_id: user.id, code: next }), { user: on, method: 'totp', recovery_codes_left: 10 });
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleTotpVerify, { user_id: user.id, code: next }))).param, 'code', 'good once');
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleTotpVerify, { user_id: user.id, code: '000000' }))).param, 'code');

    const [first, second] = recovery_codes as [string, string];
    const used = await call(SUBJECTS.accountsConsoleTotpVerify, { user_id: user.id, code: first.toUpperCase() });
    assert.deepEqual([used.method, used.recovery_codes_left], ['recovery_code', 9]);
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleTotpVerify, { user_id: user.id, code: first }))).param, 'code', 'a recovery code works once');

    // a disabled person's right code is refused as a wrong one is
    await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('owner'), role: 'owner', password: PASSWORD });
    await call(SUBJECTS.accountsConsoleUserDisable, { org_id: org, user_id: user.id });
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleTotpVerify, { user_id: user.id, code: second }))).param, 'code');
    await call(SUBJECTS.accountsConsoleUserEnable, { org_id: org, user_id: user.id });

    assert.equal((await refusal(call(SUBJECTS.accountsConsoleTotpDisable, { user_id: user.id, code: '123456' }))).param, 'code');
    const off = await call(SUBJECTS.accountsConsoleTotpDisable, { user_id: user.id, code: recovery_codes[2]! });
    assert.equal(off.totp_enabled_at, null);
    assert.deepEqual(await query(db.url, 'SELECT * FROM accounts.console_recovery_codes WHERE user_id = $1', [user.id]), []);
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleTotpVerify, { user_id: user.id, code: codeOf(begun.secret, Date.now() - 30_000) }))).param, 'code', 'off: no code signs in');
    assert.notEqual((await call(SUBJECTS.accountsConsoleTotpBegin, { user_id: user.id })).secret, begun.secret, 'a new secret to enrol again');
  });

  it('an organization that requires it: every person of it says so at once; nobody can turn it off; only that organization', async () => {
    const org = await newOrg();
    const other = await newOrg('Other');
    const user = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('req'), role: 'developer', password: PASSWORD });
    const outsider = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: other, email: email('out'), role: 'developer', password: PASSWORD });
    assert.deepEqual(await call(SUBJECTS.accountsConsoleOrgTwoFactor, { org_id: org, required: true }), { org_id: org, required: true });
    assert.equal((await call(SUBJECTS.accountsConsoleUserGet, { user_id: user.id })).totp_required, true);
    assert.equal((await call(SUBJECTS.accountsConsoleLogin, { email: user.email, password: PASSWORD })).user?.totp_required, true, 'the sign-in says so');
    assert.equal((await call(SUBJECTS.accountsConsoleUserGet, { user_id: outsider.id })).totp_required, false);

    const { secret } = await call(SUBJECTS.accountsConsoleTotpBegin, { user_id: user.id });
    const { recovery_codes } = await call(SUBJECTS.accountsConsoleTotpConfirm, { user_id: user.id, code: codeOf(secret) });
    const off = await refusal(call(SUBJECTS.accountsConsoleTotpDisable, { user_id: user.id, code: recovery_codes[0]! }));
    assert.deepEqual([off.code, off.param], ['validation_error', 'user_id']);
    assert.equal((await call(SUBJECTS.accountsConsoleTotpVerify, { user_id: user.id, code: recovery_codes[0]! })).method, 'recovery_code', 'the refusal used no code');

    assert.deepEqual(await call(SUBJECTS.accountsConsoleOrgTwoFactor, { org_id: org, required: false }), { org_id: org, required: false });
    assert.equal((await call(SUBJECTS.accountsConsoleTotpDisable, { user_id: user.id, code: recovery_codes[1]! })).totp_required, false);
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleOrgTwoFactor, { org_id: UNKNOWN_ORG, required: true }))).code, 'resource_not_found');
    assert.equal((await refusal(call(SUBJECTS.accountsConsoleOrgTwoFactor, { org_id: org, required: 'yes' as never }))).param, 'required');
  });

  it('two sign-ins with the same code at once: one is taken', async () => {
    const org = await newOrg();
    const user = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: email('race'), role: 'developer', password: PASSWORD });
    const { secret } = await call(SUBJECTS.accountsConsoleTotpBegin, { user_id: user.id });
    await call(SUBJECTS.accountsConsoleTotpConfirm, { user_id: user.id, code: codeOf(secret, Date.now() - 30_000) });
    const code = codeOf(secret);
    const results = await Promise.allSettled([1, 2, 3].map(() => call(SUBJECTS.accountsConsoleTotpVerify, { user_id: user.id, code })));
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected', 'rejected']);
  });
});

describe('console two-factor secrets at rest', () => {
  const codeOf = (secret: string, at = Date.now()) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

  /** A person with two-factor sign-in on, and their secret as the app has it. */
  async function enrolled(label: string): Promise<{ id: string; secret: string }> {
    const user = await call(SUBJECTS.accountsConsoleUserCreate, { org_id: await newOrg(), email: email(label), role: 'developer', password: PASSWORD });
    const { secret } = await call(SUBJECTS.accountsConsoleTotpBegin, { user_id: user.id });
    await call(SUBJECTS.accountsConsoleTotpConfirm, { user_id: user.id, code: codeOf(secret) });
    return { id: user.id, secret };
  }
  const stored = async (id: string) => (await query<{ totp_secret: string }>(db.url, 'SELECT totp_secret FROM accounts.console_users WHERE id = $1', [id]))[0]!.totp_secret;

  it("a sealed secret copied onto another person's row does not open there: their codes are refused", async () => {
    const [a, b] = [await enrolled('sealed-a'), await enrolled('sealed-b')];
    await query(db.url, 'UPDATE accounts.console_users SET totp_secret = $2, totp_last_step = NULL WHERE id = $1', [b.id, await stored(a.id)]);
    for (const secret of [a.secret, b.secret]) {
      const e = await refusal(call(SUBJECTS.accountsConsoleTotpVerify, { user_id: b.id, code: codeOf(secret, Date.now() + 30_000) }));
      assert.deepEqual([e.code, e.param], ['validation_error', 'code']);
    }
  });

  it('a secret an earlier release stored in clear still takes its codes, and is sealed when accounts starts', async () => {
    const person = await enrolled('clear');
    await query(db.url, 'UPDATE accounts.console_users SET totp_secret = $2 WHERE id = $1', [person.id, person.secret]);
    const verified = await call(SUBJECTS.accountsConsoleTotpVerify, { user_id: person.id, code: codeOf(person.secret, Date.now() + 30_000) });
    assert.equal(verified.method, 'totp');
    // what a start of accounts does before it serves
    assert.ok((await svc!.app.get(ConsoleTwoFactorService).sealClearSecrets()) >= 1);
    const sealed = await stored(person.id);
    assert.ok(sealed.startsWith('v1.') && !sealed.includes(person.secret), sealed);
    // the sealed secret takes the app's codes as before (the step taken above forgotten, to use a code of now again)
    await query(db.url, 'UPDATE accounts.console_users SET totp_last_step = NULL WHERE id = $1', [person.id]);
    assert.equal((await call(SUBJECTS.accountsConsoleTotpVerify, { user_id: person.id, code: codeOf(person.secret) })).method, 'totp');
    assert.equal(await svc!.app.get(ConsoleTwoFactorService).sealClearSecrets(), 0, 'nothing left in clear');
  });
});

describe('console sign-in under a burst', () => {
  it('checks at most CONSOLE_PASSWORD_CHECKS passwords at once; a sign-in beyond the waiting room is 503 at once, and the service answers again after', async () => {
    // one check at a time, nobody waiting: of a burst at once, the ones that find the check taken are refused
    const busy = await startServiceUnderTest({ def: ACCOUNTS_SERVICE, module: AccountsModule, env: accountsEnv, vars: { CONSOLE_PASSWORD_CHECKS: '1', CONSOLE_PASSWORD_CHECKS_WAITING: '0' } });
    try {
      const op = (payload: ReqOf<typeof SUBJECTS.accountsConsoleLogin>) => busy.rpc.call(SUBJECTS.accountsConsoleLogin, payload, { principal: null, requestId: 'req_int_burst' });
      const org = (await busy.rpc.call(SUBJECTS.accountsOrgCreate, { name: 'Burst' }, { principal: null, requestId: 'req_int_burst' })).id;
      const address = email('burst');
      const user = await busy.rpc.call(SUBJECTS.accountsConsoleUserCreate, { org_id: org, email: address, role: 'developer', password: PASSWORD }, { principal: null, requestId: 'req_int_burst' });
      const answers = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => op({ email: i % 2 ? address : email('nobody'), password: `wrong ${i}` })));
      const refused = answers.filter((a) => a.status === 'rejected').map((a) => (a as PromiseRejectedResult).reason as { code: string; message: string });
      const checked = answers.filter((a) => a.status === 'fulfilled').map((a) => (a as PromiseFulfilledResult<unknown>).value);
      assert.ok(refused.length > 0, 'a burst of 30 at once on one check: some are refused');
      assert.ok(checked.length > 0, 'and some are checked');
      assert.deepEqual([...new Set(refused.map((e) => `${e.code}: ${e.message}`))], ['service_unavailable: Too many sign-ins are being checked right now; try again in a few seconds.']);
      assert.deepEqual([...new Set(checked.map((c) => JSON.stringify(c)))], ['{"user":null}'], 'every check done answered as for a wrong password');
      assert.deepEqual(await op({ email: address, password: PASSWORD }), { user }, 'the right password signs in once the burst is over');
    } finally {
      await busy.close();
    }
  });
});

describe('key list', () => {
  it("an organization's keys newest first, revoked ones too, of one mode when asked; never a secret", async () => {
    const org = await newOrg();
    const a = await call(SUBJECTS.accountsKeyCreate, { org_id: org, mode: 'test', type: 'sk', scopes: ['applicants:read'] });
    const b = await call(SUBJECTS.accountsKeyCreate, { org_id: org, mode: 'live', type: 'pk', scopes: [] });
    const c = await call(SUBJECTS.accountsKeyCreate, { org_id: org, mode: 'test', type: 'sk', scopes: ['sessions:read'] });
    await call(SUBJECTS.accountsKeyCreate, { org_id: await newOrg('Other'), mode: 'test', type: 'sk', scopes: [] });
    const revoked = await call(SUBJECTS.accountsKeyRevoke, { key_id: a.id });
    const strip = ({ key: _, ...record }: typeof a) => record;

    const all = await call(SUBJECTS.accountsKeyList, { org_id: org });
    assert.deepEqual(all.data, [strip(c), strip(b), revoked]);
    assert.equal(all.data[2]!.revoked, true);
    assert.ok(all.data.every((k) => !('key' in k)), 'no secret in a listed key');
    assert.deepEqual((await call(SUBJECTS.accountsKeyList, { org_id: org, mode: 'test' })).data.map((k) => k.id), [c.id, a.id]);
    assert.deepEqual((await call(SUBJECTS.accountsKeyList, { org_id: org, mode: 'live' })).data.map((k) => k.id), [b.id]);
    assert.deepEqual((await call(SUBJECTS.accountsKeyList, { org_id: await newOrg('No keys') })).data, []);

    const bad = await refusal(call(SUBJECTS.accountsKeyList, { org_id: org, mode: 'prod' as 'test' }));
    assert.deepEqual([bad.code, bad.param], ['validation_error', 'mode']);
    const unknown = await refusal(call(SUBJECTS.accountsKeyList, { org_id: UNKNOWN_ORG }));
    assert.deepEqual([unknown.code, unknown.param], ['resource_not_found', 'org_id']);
  });
});

describe('console activity', () => {
  const entry = (org_id: string, over: Partial<ConsoleActivityRecordRequest> = {}): ConsoleActivityRecordRequest => ({
    org_id,
    mode: 'test',
    actor_id: `usr_${'A'.repeat(24)}`,
    actor_email: 'Ada@Example.com',
    action: 'console.key.created',
    target_id: `key_${'B'.repeat(24)}`,
    details: { scopes: 'applicants:read', live: false, count: 2, note: null },
    ...over,
  });

  it('record answers the entry as stored; list pages newest first by before', async () => {
    const org = await newOrg();
    const other = await newOrg('Other');
    const first = await call(SUBJECTS.accountsActivityRecord, entry(org));
    assert.match(first.id, /^act_[A-Za-z0-9]{24}$/);
    assert.deepEqual({ ...first, created_at: undefined }, { ...entry(org), actor_email: 'ada@example.com', id: first.id, object: 'console_activity', created_at: undefined });
    const [row] = await query(db.url, 'SELECT mode, action, target_id, details FROM accounts.console_activity WHERE id = $1', [first.id]);
    assert.deepEqual(row, { mode: 'test', action: 'console.key.created', target_id: `key_${'B'.repeat(24)}`, details: entry(org).details });

    const rest = [];
    for (let i = 1; i < 25; i++) {
      rest.push(await call(SUBJECTS.accountsActivityRecord, entry(org, { action: 'console.user.created', mode: null, target_id: null, details: { i } })));
    }
    await call(SUBJECTS.accountsActivityRecord, entry(other));
    const newestFirst = [first, ...rest].reverse().map((e) => e.id);

    const page1 = await call(SUBJECTS.accountsActivityList, { org_id: org });
    assert.deepEqual(page1.data.map((e) => e.id), newestFirst.slice(0, 20), 'newest first, 20 by default');
    assert.deepEqual(page1.data[0], rest[rest.length - 1]);
    assert.deepEqual([page1.data[0]!.mode, page1.data[0]!.target_id], [null, null]);
    const page2 = await call(SUBJECTS.accountsActivityList, { org_id: org, before: page1.data[19]!.id });
    assert.deepEqual(page2.data.map((e) => e.id), newestFirst.slice(20));
    assert.deepEqual(page2.data.at(-1), first);

    const small: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await call(SUBJECTS.accountsActivityList, { org_id: org, limit: 7, before });
      small.push(...page.data.map((e) => e.id));
      if (page.data.length < 7) break;
      before = page.data.at(-1)!.id;
    }
    assert.deepEqual(small, newestFirst, 'pages of 7 walk the whole log once');
    assert.equal((await call(SUBJECTS.accountsActivityList, { org_id: org, limit: 100 })).data.length, 25);
    assert.deepEqual((await call(SUBJECTS.accountsActivityList, { org_id: other })).data.map((e) => e.org_id), [other]);
  });

  it('refuses malformed entries and list requests naming the field; unknown organizations are 404 on org_id', async () => {
    const org = await newOrg();
    const other = await newOrg('Other');
    const elsewhere = await call(SUBJECTS.accountsActivityRecord, entry(other));
    const cases: Array<[Partial<ConsoleActivityRecordRequest> & Record<string, unknown>, string]> = [
      [{ action: 'key.created' }, 'action'],
      [{ action: 'console.Key' }, 'action'],
      [{ mode: 'prod' as 'test' }, 'mode'],
      [{ actor_id: 'someone' }, 'actor_id'],
      [{ actor_email: 'someone' }, 'actor_email'],
      [{ target_id: 'not an id' }, 'target_id'],
      [{ details: { nested: { a: 1 } } as unknown as Record<string, string> }, 'details'],
      [{ details: ['a'] as unknown as Record<string, string> }, 'details'],
      [{ details: { big: 'x'.repeat(4100) } }, 'details'],
    ];
    for (const [over, param] of cases) {
      const e = await refusal(call(SUBJECTS.accountsActivityRecord, entry(org, over)));
      assert.deepEqual([e.code, e.param], ['validation_error', param], JSON.stringify(over).slice(0, 80));
    }
    const unknown = await refusal(call(SUBJECTS.accountsActivityRecord, entry(UNKNOWN_ORG)));
    assert.deepEqual([unknown.code, unknown.param], ['resource_not_found', 'org_id']);
    const [count] = await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM accounts.console_activity WHERE org_id = $1', [org]);
    assert.equal(count!.n, 0, 'nothing written');

    for (const [req, code, param] of [
      [{ org_id: org, limit: 0 }, 'validation_error', 'limit'],
      [{ org_id: org, limit: 101 }, 'validation_error', 'limit'],
      [{ org_id: org, limit: 2.5 }, 'validation_error', 'limit'],
      [{ org_id: org, before: 'act_nope' }, 'validation_error', 'before'],
      // an entry of another organization is no place in this one's log
      [{ org_id: org, before: elsewhere.id }, 'validation_error', 'before'],
      [{ org_id: UNKNOWN_ORG }, 'resource_not_found', 'org_id'],
    ] as const) {
      const e = await refusal(call(SUBJECTS.accountsActivityList, req));
      assert.deepEqual([e.code, e.param], [code, param], JSON.stringify(req));
    }
  });
});
