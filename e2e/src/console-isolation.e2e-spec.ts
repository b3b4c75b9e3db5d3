/**
 * The console's isolation matrix (docs/security.md, "Console roles"), over HTTP against the real stack: every role
 * × every page (200, or 403 for a role the page is not for), and every route that names an object, called with
 * another organization's object (a person, an invitation, …) and with the same organization's object of the other
 * mode: 404 for a role the route is for, 403 for the others, and nothing changes. The expected table is written out here, not read from the
 * console, so a change to who may do what fails this test until it is made on purpose.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SUBJECTS, type ConsoleRole } from '@verity/contracts';
import { CONSOLE, createPerson, team, type Person, type Team } from './console-support.js';
import { client, closeOperators, createKey, operator, rows } from './support.js';
import { account, createSession, newApplicant, newTemplate } from './sessions-support.js';

const ROLES: ConsoleRole[] = ['owner', 'admin', 'developer', 'reviewer'];
const ALL = ROLES;

/** Each page and who may open it (contract §19; the Team page is owners' only). */
const PAGES: [path: string, roles: ConsoleRole[]][] = [
  ['/verifications', ALL],
  ['/review', ['owner', 'admin', 'reviewer']],
  ['/keys', ['owner', 'admin', 'developer']],
  ['/webhooks', ['owner', 'admin']],
  ['/webhooks/deliveries', ['owner', 'admin']],
  ['/test-data', ['owner', 'admin']],
  ['/logs', ['owner', 'admin', 'developer']],
  ['/usage', ['owner', 'admin']],
  ['/billing', ['owner', 'admin']],
  ['/users', ['owner']],
  ['/account', ALL],
  ['/account/two-factor', ALL],
];

const op = { principal: null, requestId: 'req_e2e_console_isolation' };

/** A signed-in console session over HTTP: its cookie and form token, and requests made with them. */
interface Session {
  get(path: string): Promise<Response>;
  post(path: string, form?: Record<string, string>): Promise<Response>;
}

async function signIn(person: Person): Promise<Session> {
  const ip = `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
  const form = await fetch(`${CONSOLE.us}/login`);
  const token = /name="_login" value="([^"]+)"/.exec(await form.text())![1]!;
  const loginCookie = form.headers.get('set-cookie')!.split(';')[0]!;
  const res = await fetch(`${CONSOLE.us}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: loginCookie, origin: CONSOLE.us, 'x-forwarded-for': ip },
    body: new URLSearchParams({ _login: token, email: person.user.email, password: person.password }),
  });
  assert.equal(res.status, 303, `${person.user.email} signs in`);
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('verity_console='))!;
  const get = (path: string) => fetch(`${CONSOLE.us}${path}`, { redirect: 'manual', headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await (await get('/verifications')).text())![1]!;
  return {
    get,
    post: (path, body = {}) =>
      fetch(`${CONSOLE.us}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: CONSOLE.us },
        body: new URLSearchParams({ _csrf: csrf, ...body }),
      }),
  };
}

let mine: Team;
const as = new Map<ConsoleRole, Session>();
/** Objects the matrix reaches for: of another organization, and of this organization's live mode (the sessions work in test). */
const foreign = { otherOrg: { key: '', user: '', session: '', webhook: '', invitation: '' }, otherMode: { key: '', session: '', webhook: '' } };

before(async () => {
  mine = await team('us');
  for (const role of ROLES) as.set(role, await signIn(mine.people[role]));
  const ops = await operator('us');
  const webhook = async (orgId: string, mode: 'test' | 'live') =>
    (await ops.call(SUBJECTS.webhookSubscriptionCreate, { org_id: orgId, mode, url: `https://receiver.example.com/${orgId}`, event_types: ['kyc.session.completed'] }, op)).id;

  // another organization, in test mode like the sessions of this file
  const other = await account('us', 'test');
  const theirSession = await createSession(other.c, { applicant_id: await newApplicant(other.c), workflow_template_id: await newTemplate(other.c) });
  assert.equal(theirSession.status, 201, theirSession.text);
  foreign.otherOrg = {
    key: (await createKey('us', other.org.id, { mode: 'test' })).id,
    user: (await createPerson('us', other.org.id, 'developer')).user.id,
    invitation: (await ops.call(SUBJECTS.accountsConsoleInvitationCreate, { org_id: other.org.id, email: `invited.${randomBytes(4).toString('hex')}@example.com`, role: 'owner', invited_by: (await createPerson('us', other.org.id, 'owner')).user.id }, op)).invitation.id,
    session: theirSession.body.data.id,
    webhook: await webhook(other.org.id, 'test'),
  };

  // this organization's live objects
  const live = await createKey('us', mine.org.id, { mode: 'live' });
  await ops.call(SUBJECTS.accountsBillingSet, { org_id: mine.org.id, wallet_balance: 1_000_000 }, op);
  const c = client('us', live.key);
  const liveSession = await createSession(c, { applicant_id: await newApplicant(c), workflow_template_id: await newTemplate(c) });
  assert.equal(liveSession.status, 201, liveSession.text);
  foreign.otherMode = { key: live.id, session: liveSession.body.data.id, webhook: await webhook(mine.org.id, 'live') };
});

after(async () => {
  await closeOperators();
});

describe('console isolation matrix', () => {
  it('every role × every page: 200 for the roles the page is for, 403 for the others', async () => {
    const got: string[] = [];
    const want: string[] = [];
    for (const role of ROLES) {
      for (const [path, roles] of PAGES) {
        got.push(`${role} ${path} ${(await as.get(role)!.get(path)).status}`);
        want.push(`${role} ${path} ${roles.includes(role) ? 200 : 403}`);
      }
    }
    assert.deepEqual(got, want);
  });

  it("every route naming an object, with another organization's and with the other mode's: 404 for the roles it is for, 403 for the others, and nothing changes", async () => {
    const before = await state();
    // notes: the verification page is every role's, so a role that may not add a note gets that page with the
    // refusal (403) for a verification of its own, and the 404 page for one that is not (it has no page to show)
    const routes: [method: 'GET' | 'POST', path: (id: string) => string, roles: ConsoleRole[], ids: string[], form?: Record<string, string>][] = [
      ['GET', (id) => `/verifications/${id}`, ALL, [foreign.otherOrg.session]],
      ['POST', (id) => `/verifications/${id}/notes`, ALL, [foreign.otherOrg.session, foreign.otherMode.session], { note: 'a note' }],
      ['POST', (id) => `/review/${id}/decision`, ['owner', 'admin', 'reviewer'], [foreign.otherOrg.session, foreign.otherMode.session], { outcome: 'approved', reason: 'looks fine' }],
      ['POST', (id) => `/review/${id}/watchlist/fnd_${id.slice(4)}_l1`, ['owner', 'admin', 'reviewer'], [foreign.otherOrg.session, foreign.otherMode.session], { outcome: 'cleared', reason: 'a namesake' }],
      ['POST', (id) => `/keys/${id}/rotate`, ['owner', 'admin', 'developer'], [foreign.otherOrg.key, foreign.otherMode.key]],
      ['POST', (id) => `/keys/${id}/revoke`, ['owner', 'admin', 'developer'], [foreign.otherOrg.key, foreign.otherMode.key]],
      ['POST', (id) => `/webhooks/${id}/rotate`, ['owner', 'admin'], [foreign.otherOrg.webhook, foreign.otherMode.webhook]],
      ['GET', (id) => `/webhooks/${id}/disable`, ['owner', 'admin'], [foreign.otherOrg.webhook, foreign.otherMode.webhook]],
      ['POST', (id) => `/webhooks/${id}/disable`, ['owner', 'admin'], [foreign.otherOrg.webhook, foreign.otherMode.webhook]],
      ['POST', (id) => `/users/${id}/role`, ['owner'], [foreign.otherOrg.user], { role: 'owner' }],
      ['POST', (id) => `/users/${id}/remove`, ['owner'], [foreign.otherOrg.user]],
      ['POST', (id) => `/users/${id}/sign-out`, ['owner'], [foreign.otherOrg.user]],
      ['POST', (id) => `/users/${id}/disable`, ['owner'], [foreign.otherOrg.user]],
      ['POST', (id) => `/users/${id}/enable`, ['owner'], [foreign.otherOrg.user]],
      ['POST', (id) => `/users/${id}/reset-two-factor`, ['owner'], [foreign.otherOrg.user]],
      ['POST', (id) => `/users/invitations/${id}/revoke`, ['owner'], [foreign.otherOrg.invitation]],
    ];
    const got: string[] = [];
    const want: string[] = [];
    for (const role of ROLES) {
      const s = as.get(role)!;
      for (const [method, path, roles, ids, form] of routes) {
        for (const id of ids) {
          const res = method === 'GET' ? await s.get(path(id)) : await s.post(path(id), form);
          got.push(`${role} ${method} ${path(id)} ${res.status}`);
          want.push(`${role} ${method} ${path(id)} ${roles.includes(role) ? 404 : 403}`);
        }
      }
    }
    // a link to this organization's verification of the other mode is no 404: the page says which mode holds it and
    // offers the switch (409, and nothing of the verification); another organization's stays the 404 above
    for (const role of ROLES) {
      const res = await as.get(role)!.get(`/verifications/${foreign.otherMode.session}`);
      got.push(`${role} GET other mode ${res.status}`);
      want.push(`${role} GET other mode 409`);
    }
    assert.deepEqual(got, want);
    assert.deepEqual(await state(), before, 'nothing changed');
  });
});

describe('console isolation matrix: team actions', () => {
  it("the team's posts that name no object (invite a person, require two-factor sign-in) are the owner's: 403 for every other role, and nothing changes", async () => {
    const teamState = () =>
      Promise.all([
        rows('us', 'SELECT id FROM accounts.console_invitations WHERE org_id = $1 ORDER BY id', [mine.org.id]),
        rows('us', 'SELECT console_require_two_factor FROM accounts.organizations WHERE id = $1', [mine.org.id]),
      ]);
    const before = await teamState();
    const posts: [path: string, form: Record<string, string>][] = [
      ['/users/invitations', { email: `matrix.${randomBytes(4).toString('hex')}@example.com`, role: 'owner' }],
      ['/users/two-factor', { required: 'true' }],
    ];
    const got: string[] = [];
    const want: string[] = [];
    for (const role of ROLES.filter((r) => r !== 'owner')) {
      for (const [path, form] of posts) {
        got.push(`${role} POST ${path} ${(await as.get(role)!.post(path, form)).status}`);
        want.push(`${role} POST ${path} 403`);
      }
    }
    assert.deepEqual(got, want);
    assert.deepEqual(await teamState(), before, 'no invitation made, the requirement unchanged');
  });
});

/** What the matrix must not change: the foreign keys, person, invitation, sessions (and decisions on their watchlist hits) and endpoints as stored. */
async function state() {
  const [keys, users, sessions, webhooks, invitations, hitDecisions] = await Promise.all([
    rows('us', 'SELECT id, key_hash, revoked_at FROM accounts.api_keys WHERE id = ANY($1) ORDER BY id', [[foreign.otherOrg.key, foreign.otherMode.key]]),
    rows('us', 'SELECT id, role, session_epoch, disabled_at FROM accounts.console_users WHERE id = $1', [foreign.otherOrg.user]),
    rows('us', 'SELECT id, status, outcome, updated_at FROM sessions.sessions WHERE id = ANY($1) ORDER BY id', [[foreign.otherOrg.session, foreign.otherMode.session]]),
    rows('us', 'SELECT * FROM webhook_delivery.subscriptions WHERE id = ANY($1) ORDER BY id', [[foreign.otherOrg.webhook, foreign.otherMode.webhook]]),
    rows('us', 'SELECT * FROM accounts.console_invitations WHERE id = $1', [foreign.otherOrg.invitation]),
    rows('us', 'SELECT * FROM sessions.watchlist_decisions WHERE session_id = ANY($1) ORDER BY session_id, finding_id', [[foreign.otherOrg.session, foreign.otherMode.session]]),
  ]);
  return { keys, users, sessions, webhooks, invitations, hitDecisions };
}
