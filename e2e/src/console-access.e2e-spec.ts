/**
 * The console's doors (docs/console.md), in headless Chromium against the real stacks: sign-in and its limit,
 * two-factor sign-in (set up, the code step, replays and recovery codes, required by an owner), the roles'
 * navigation and the friendly 403, requests from another origin refused, the API keys page (a developer creates a
 * key, sees it once, and it works against the API; rotate; revoke; live keys only for owners and admins), the Team
 * page (invitations by link, disabling, roles, removal, resetting a person's two-factor sign-in), and no other
 * organization's or region's data.
 * Screenshots: login, account, two-factor-setup, two-factor-recovery-codes, two-factor-code, two-factor-required,
 * team-two-factor, forbidden, keys, key-created, keys-live-developer, keys-phone, team, invitation, team-changes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { SUBJECTS } from '@verity/contracts';
import { createRedis } from '@verity/platform';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { browser, CONSOLE, createPerson, LAPTOP, PHONE, shot, signedIn, switchMode, team, type Team } from './console-support.js';
import { client, closeOperators, createKey, operator, rows } from './support.js';

let b: Browser;
let us: Team;

before(async () => {
  b = await browser();
  us = await team('us');
});

after(async () => {
  await b?.close();
  await closeOperators();
});

/** A form post as another site would make it: the browser's Origin is not the console's. */
async function postFrom(origin: string | null, path: string, body: Record<string, string>, cookie = ''): Promise<Response> {
  return fetch(`${CONSOLE.us}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...(origin ? { origin } : {}) },
    body: new URLSearchParams(body),
  });
}

describe('console: signing in', () => {
  it('signs in with the right password, refuses a wrong one with the same words as an unknown email, and shows the sign-in page', async () => {
    const context = await b.newContext({ viewport: { width: 1280, height: 860 }, baseURL: CONSOLE.us });
    const page = await context.newPage();
    const res = await page.goto('/verifications');
    assert.equal(new URL(page.url()).pathname, '/login', 'a page asks for sign-in first');
    assert.equal(res?.status(), 200);
    const cookie = (await context.cookies()).find((c) => c.name === 'verity_console_login');
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
    await shot(page, 'login');

    await page.getByLabel('Email').fill(us.people.developer.user.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const wrong = await page.locator('.notice.error').innerText();
    await page.getByLabel('Email').fill('nobody-here@example.com');
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal(await page.locator('.notice.error').innerText(), wrong, 'unknown email and wrong password read the same');

    await page.getByLabel('Email').fill(us.people.developer.user.email);
    await page.getByLabel('Password').fill(us.people.developer.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/verifications');
    const session = (await context.cookies()).find((c) => c.name === 'verity_console');
    assert.ok(session, 'a session cookie is set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    await context.close();
  });

  it('refuses sign-in past the failures allowed for an email address, even with the right password (429)', async () => {
    const victim = await createPerson('us', us.org.id, 'developer');
    const context = await b.newContext({ baseURL: CONSOLE.us });
    const page = await context.newPage();
    await page.goto('/login');
    for (let i = 0; i < 5; i++) {
      await page.getByLabel('Email').fill(victim.user.email);
      await page.getByLabel('Password').fill(`wrong-${i}-password`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForSelector('.notice.error');
    }
    await page.getByLabel('Email').fill(victim.user.email);
    await page.getByLabel('Password').fill(victim.password);
    const [answer] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/login') && r.request().method() === 'POST'), page.getByRole('button', { name: 'Sign in' }).click()]);
    assert.equal(answer.status(), 429);
    assert.match(await page.locator('.notice.error').innerText(), /Too many failed sign-ins\. Try again in \d+ minutes?\./);
    assert.equal(new URL(page.url()).pathname, '/login');
    await context.close();
  });

  it('a burst of sign-ins at once gets no more password checks than the limits: per account, then per client address (429 beyond)', async () => {
    const victim = await createPerson('us', us.org.id, 'developer');
    // the sign-in form's token and its cookie, as a browser holds them; every attempt below sends the pair
    const form = await fetch(`${CONSOLE.us}/login`);
    const token = /name="_login" value="([^"]+)"/.exec(await form.text())![1]!;
    const cookie = form.headers.get('set-cookie')!.split(';')[0]!;
    const net = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const attempt = (email: string, password: string, ip: string) =>
      fetch(`${CONSOLE.us}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: CONSOLE.us, 'x-forwarded-for': ip },
        body: new URLSearchParams({ _login: token, email, password }),
      }).then((r) => r.status);
    const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((t, st) => ({ ...t, [st]: (t[st] ?? 0) + 1 }), {});

    // 20 wrong passwords for one account at once, each from its own address: 5 are checked (CONSOLE_LOGIN_MAX_PER_EMAIL)
    const perAccount = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(victim.user.email, `wrong-${i}-password`, `${net}.${i + 1}`)));
    assert.deepEqual(tally(perAccount), { 401: 5, 429: 15 });
    assert.equal(await attempt(victim.user.email, victim.password, `${net}.100`), 429, 'the right password waits for the window too');

    // 25 unknown addresses at once from one client address: 20 are admitted (CONSOLE_LOGIN_MAX_PER_IP); accounts
    // checks a bounded number of passwords at once (CONSOLE_PASSWORD_CHECKS and its waiting room), so an admitted
    // attempt beyond those is 503 (try again shortly), counted all the same
    const perAddress = tally(await Promise.all(Array.from({ length: 25 }, (_, i) => attempt(`nobody.${net}.${i}@example.com`, 'wrong-password', `${net}.200`))));
    assert.deepEqual(Object.keys(perAddress).filter((st) => !['401', '429', '503'].includes(st)), [], JSON.stringify(perAddress));
    assert.equal((perAddress[401] ?? 0) + (perAddress[503] ?? 0), 20, JSON.stringify(perAddress));
    assert.equal(perAddress[429], 5, JSON.stringify(perAddress));
  });

  it('signs out: the session no longer opens a page', async () => {
    const { context, page } = await signedIn(b, 'us', us.people.reviewer);
    const cookie = (await context.cookies()).find((c) => c.name === 'verity_console')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((u) => u.pathname === '/login');
    const again = await fetch(`${CONSOLE.us}/verifications`, { redirect: 'manual', headers: { cookie: `verity_console=${cookie.value}` } });
    assert.equal(again.status, 303);
    assert.match(again.headers.get('location') ?? '', /^\/login/);
    await context.close();
  });

  it('a session record changed or written in Redis by anyone without the region secret opens nothing', async () => {
    const redis = createRedis(process.env.REDIS_URL!, 'e2e-console-sessions');
    if (redis.status !== 'ready') await once(redis, 'ready');
    try {
      /** The Redis key of a session cookie's record, wherever the stack's prefix puts it. */
      const recordKey = async (token: string) => {
        const [key] = await redis.keys(`*console:session:${createHash('sha256').update(token).digest('base64url')}`);
        return key!;
      };
      const opens = async (token: string) => (await fetch(`${CONSOLE.us}/verifications`, { redirect: 'manual', headers: { cookie: `verity_console=${token}` } })).status === 200;

      // a developer's session, rewritten to be the owner's: the signature no longer holds
      const dev = await signedIn(b, 'us', us.people.developer);
      const devToken = (await dev.context.cookies()).find((c) => c.name === 'verity_console')!.value;
      assert.ok(await opens(devToken));
      const devKey = await recordKey(devToken);
      const stored = (await redis.get(devKey))!;
      assert.doesNotMatch(stored, new RegExp(devToken), 'the cookie is not in Redis');
      await redis.set(devKey, stored.replace(us.people.developer.user.id, us.people.owner.user.id), 'KEEPTTL');
      assert.equal(await opens(devToken), false, 'the rewritten record opens nothing');
      assert.equal(await redis.exists(devKey), 0, 'and is removed');

      // an admin's valid record copied under a cookie of the writer's choosing: bound to its own key, it opens nothing there
      const admin = await signedIn(b, 'us', us.people.admin);
      const adminToken = (await admin.context.cookies()).find((c) => c.name === 'verity_console')!.value;
      const adminKey = await recordKey(adminToken);
      const chosen = 'A'.repeat(43);
      await redis.set(adminKey.replace(/[^:]+$/, createHash('sha256').update(chosen).digest('base64url')), (await redis.get(adminKey))!, 'PX', 60_000);
      assert.equal(await opens(chosen), false, 'a copied record opens nothing under another cookie');
      assert.ok(await opens(adminToken), 'the original still opens');
      await dev.context.close();
      await admin.context.close();
    } finally {
      redis.disconnect();
    }
  });

  it('a password change ends every other session of the person and keeps this one; signing out everywhere ends all', async () => {
    const person = await createPerson('us', us.org.id, 'reviewer');
    const here = await signedIn(b, 'us', person);
    const there = await signedIn(b, 'us', person);
    await here.page.getByRole('link', { name: `${person.user.email} · reviewer` }).click();
    await here.page.waitForURL((u) => u.pathname === '/account');

    const NEW = 'a brand new passphrase';
    await here.page.getByLabel('Current password').fill('not my password');
    await here.page.getByLabel('New password (12 characters or more)').fill(NEW);
    await here.page.getByLabel('New password again').fill(NEW);
    await here.page.getByRole('button', { name: 'Change password' }).click();
    assert.match(await here.page.locator('.notice.error').innerText(), /current password is not right/);

    await here.page.getByLabel('Current password').fill(person.password);
    await here.page.getByLabel('New password (12 characters or more)').fill(NEW);
    await here.page.getByLabel('New password again').fill(NEW);
    await here.page.getByRole('button', { name: 'Change password' }).click();
    assert.match(await here.page.locator('.notice.success').innerText(), /password was changed/);
    await shot(here.page, 'account');
    await here.page.goto('/verifications');
    assert.equal(new URL(here.page.url()).pathname, '/verifications', 'this browser stays signed in');
    await there.page.goto('/verifications');
    assert.equal(new URL(there.page.url()).pathname, '/login', 'the other session ended');

    await here.page.goto('/account');
    await here.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await here.page.waitForURL((u) => u.pathname === '/login');
    await here.page.goto('/verifications');
    assert.equal(new URL(here.page.url()).pathname, '/login', 'and this one too');

    const withNew = await signedIn(b, 'us', { ...person, password: NEW });
    assert.equal(new URL(withNew.page.url()).pathname, '/verifications', 'the new password signs in');
    const actions = await rows<{ action: string }>('us', `SELECT action FROM accounts.console_activity WHERE org_id = $1 AND target_id = $2 ORDER BY seq`, [us.org.id, person.user.id]);
    assert.deepEqual(actions.map((a) => a.action), ['console.user.password_changed', 'console.user.signed_out_everywhere']);
    for (const c of [here, there, withNew]) await c.context.close();
  });

  it("a person of one region cannot sign in to the other region's console", async () => {
    const context = await b.newContext({ baseURL: CONSOLE.eu });
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByLabel('Email').fill(us.people.owner.user.email);
    await page.getByLabel('Password').fill(us.people.owner.password);
    const [answer] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/login') && r.request().method() === 'POST'), page.getByRole('button', { name: 'Sign in' }).click()]);
    assert.equal(answer.status(), 401);
    await context.close();
  });
});

describe('console: two-factor sign-in', () => {
  /** Signs out, then in with the password: the page the password step leads to. */
  async function passwordStep(page: Page, email: string, password: string): Promise<string> {
    if ((await page.getByRole('button', { name: 'Sign out', exact: true }).count()) > 0) await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.goto('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname !== '/login');
    return new URL(page.url()).pathname;
  }
  /** Enters a code on the code step: the status of the answer. */
  async function codeStep(page: Page, code: string): Promise<number> {
    await page.getByLabel('Code from your app, or a recovery code').fill(code);
    const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/login/code') && r.request().method() === 'POST'), page.getByRole('button', { name: 'Verify' }).click()]);
    await page.waitForLoadState();
    return res.status();
  }

  it('a person turns it on with the key the page shows; sign-in then asks for a code: a wrong or replayed one is refused, a recovery code works once; off with a code', async () => {
    const person = await createPerson('us', us.org.id, 'admin');
    const { context, page } = await signedIn(b, 'us', person);
    const elsewhere = await signedIn(b, 'us', person);
    await page.getByRole('link', { name: `${person.user.email} · admin` }).click();
    await page.getByRole('link', { name: 'Set up two-factor sign-in' }).click();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
    const uri = new URL((await page.getByTestId('totp-uri').textContent())!.trim());
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.searchParams.get('secret'), secret, 'the link and the key are the same secret');
    assert.equal(await page.locator('.qr svg').count(), 1, 'a QR code, inline');
    await shot(page, 'two-factor-setup');
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });

    await page.getByLabel('Six-digit code').fill(totp.generate({ timestamp: Date.now() - 600_000 }));
    await page.getByRole('button', { name: 'Turn on' }).click();
    assert.match(await page.locator('.notice.error').innerText(), /not the one the app shows now/);
    assert.equal((await page.getByTestId('totp-secret').innerText()).replace(/\s/g, ''), secret, 'the same key to try again');
    const enrolCode = totp.generate();
    await page.getByLabel('Six-digit code').fill(enrolCode);
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = await page.getByTestId('recovery-codes').locator('code').allInnerTexts();
    assert.equal(codes.length, 10);
    await shot(page, 'two-factor-recovery-codes');
    await page.goto('/account/two-factor');
    assert.ok(!(await page.content()).includes(secret.slice(0, 8)), 'the key is not shown again');
    assert.equal((await page.goto('/verifications'))!.status(), 200, 'this browser stays signed in');
    await elsewhere.page.goto('/verifications');
    assert.equal(new URL(elsewhere.page.url()).pathname, '/login', 'a session made with the password alone ended');
    await elsewhere.context.close();

    // the password alone opens nothing now: the code step, which the code of the enrolment (replayed) and a wrong code do not pass
    assert.equal(await passwordStep(page, person.user.email, person.password), '/login/code');
    assert.equal((await page.goto('/verifications'))!.url().endsWith('/login?next=%2Fverifications'), true, 'no page before the code');
    await page.goto('/login/code');
    await shot(page, 'two-factor-code');
    assert.equal(await codeStep(page, enrolCode), 401, 'a code is good once');
    assert.match(await page.locator('.notice.error').innerText(), /not right, or was used already/);
    assert.equal(await codeStep(page, totp.generate({ timestamp: Date.now() - 600_000 })), 401);
    assert.equal(await codeStep(page, totp.generate({ timestamp: Date.now() + 30_000 })), 303, "the next step's code (clocks differ)");
    assert.equal(new URL(page.url()).pathname, '/verifications');

    // a recovery code signs in once
    assert.equal(await passwordStep(page, person.user.email, person.password), '/login/code');
    assert.equal(await codeStep(page, codes[0]!.toUpperCase()), 303);
    assert.equal(new URL(page.url()).pathname, '/account/two-factor');
    assert.match(await page.locator('.notice.info').innerText(), /9 are left/);
    assert.equal(await passwordStep(page, person.user.email, person.password), '/login/code');
    assert.equal(await codeStep(page, codes[0]!), 401, 'used already');
    assert.equal(await codeStep(page, codes[1]!), 303);

    // off, with a code; then the password alone signs in again
    await page.goto('/account/two-factor');
    await page.getByLabel('Code from your app, or a recovery code').fill('123 456');
    await page.getByRole('button', { name: 'Turn off' }).click();
    assert.match(await page.locator('.notice.error').innerText(), /not right/);
    await page.getByLabel('Code from your app, or a recovery code').fill(codes[2]!);
    await page.getByRole('button', { name: 'Turn off' }).click();
    assert.match(await page.locator('.notice.success').innerText(), /Two-factor sign-in is off/);
    assert.equal(await passwordStep(page, person.user.email, person.password), '/verifications');

    const actions = await rows<{ action: string; details: Record<string, number> }>('us', `SELECT action, details FROM accounts.console_activity WHERE org_id = $1 AND target_id = $2 ORDER BY seq`, [us.org.id, person.user.id]);
    assert.deepEqual(actions.map((a) => [a.action, a.details.remaining ?? null]), [
      ['console.user.two_factor_enabled', null],
      ['console.user.recovery_code_used', 9],
      ['console.user.recovery_code_used', 8],
      ['console.user.two_factor_disabled', null],
    ]);
    await context.close();
  });
  it('an owner requires it for the organization: a person without it is sent to set it up and can do nothing else until then; off again', async () => {
    const org = await team('us');
    const dev = await signedIn(b, 'us', org.people.developer);
    const owner = await signedIn(b, 'us', org.people.owner);

    // only an owner may require it
    const admin = await signedIn(b, 'us', org.people.admin);
    await admin.page.goto('/keys');
    const adminCsrf = await admin.page.locator('input[name=_csrf]').first().inputValue();
    const adminCookie = (await admin.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    assert.equal((await postFrom(CONSOLE.us, '/users/two-factor', { _csrf: adminCsrf, required: 'true' }, adminCookie)).status, 403);

    await owner.page.goto('/users');
    await owner.page.getByRole('button', { name: 'Require two-factor sign-in' }).click();
    // the owner has not set it up either: sent there at once
    assert.equal(new URL(owner.page.url()).pathname, '/account/two-factor');
    assert.match(await owner.page.locator('.notice.info').innerText(), /requires two-factor sign-in/);

    // a session made before: its next request leads to the setup, every page and every post
    for (const path of ['/verifications', '/keys', '/account']) {
      await dev.page.goto(path);
      assert.equal(new URL(dev.page.url()).pathname, '/account/two-factor', path);
    }
    assert.deepEqual(await dev.page.locator('main h1').allInnerTexts(), ['Two-factor sign-in']);
    assert.deepEqual(await dev.page.locator('nav.nav a').allInnerTexts(), [], 'no navigation until then');
    await shot(dev.page, 'two-factor-required');
    const csrf = await dev.page.locator('input[name=_csrf]').first().inputValue();
    const cookie = (await dev.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const keysBefore = await rows('us', 'SELECT id FROM accounts.api_keys WHERE org_id = $1', [org.org.id]);
    const forged = await postFrom(CONSOLE.us, '/keys', { _csrf: csrf, type: 'sk', scopes: 'sessions:read' }, cookie);
    assert.deepEqual([forged.status, forged.headers.get('location')], [303, '/account/two-factor']);
    assert.deepEqual(await rows('us', 'SELECT id FROM accounts.api_keys WHERE org_id = $1', [org.org.id]), keysBefore, 'no key made');

    // a person signing in now goes from the password to the setup
    const reviewer = await signedIn(b, 'us', org.people.reviewer);
    assert.equal(new URL(reviewer.page.url()).pathname, '/account/two-factor');
    await reviewer.context.close();

    // set up: then the console is theirs again, and it cannot be turned off while required
    await dev.page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const totp = new TOTP({ secret: Secret.fromBase32((await dev.page.getByTestId('totp-secret').innerText()).replace(/\s/g, '')) });
    await dev.page.getByLabel('Six-digit code').fill(totp.generate());
    await dev.page.getByRole('button', { name: 'Turn on' }).click();
    const codes = await dev.page.getByTestId('recovery-codes').locator('code').allInnerTexts();
    assert.equal((await dev.page.goto('/keys'))!.status(), 200);
    await dev.page.goto('/account/two-factor');
    assert.match(await dev.page.locator('main').innerText(), /requires two-factor sign-in, so it cannot be turned off/);
    assert.equal(await dev.page.getByRole('button', { name: 'Turn off' }).count(), 0);
    const devCsrf = await dev.page.locator('input[name=_csrf]').first().inputValue();
    const devCookie = (await dev.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const off = await postFrom(CONSOLE.us, '/account/two-factor/disable', { _csrf: devCsrf, code: codes[0]! }, devCookie);
    assert.equal(off.status, 422);
    assert.match(await off.text(), /requires two-factor sign-in: it cannot be turned off/);

    // the owner sets it up too, then stops requiring it
    await owner.page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const ownerTotp = new TOTP({ secret: Secret.fromBase32((await owner.page.getByTestId('totp-secret').innerText()).replace(/\s/g, '')) });
    await owner.page.getByLabel('Six-digit code').fill(ownerTotp.generate());
    await owner.page.getByRole('button', { name: 'Turn on' }).click();
    await owner.page.goto('/users');
    assert.match(await owner.page.locator('form[action="/users/two-factor"]').innerText(), /required[\s\S]*2 people have not set it up yet/);
    await shot(owner.page, 'team-two-factor');
    await owner.page.getByRole('button', { name: 'Stop requiring two-factor sign-in' }).click();
    assert.match(await owner.page.locator('.notice.success').innerText(), /no longer required/);

    const actions = await rows<{ action: string; actor_email: string; details: Record<string, boolean> }>(
      'us',
      `SELECT action, actor_email, details FROM accounts.console_activity WHERE org_id = $1 AND action IN ('console.team.two_factor_required', 'console.user.two_factor_enabled') ORDER BY seq`,
      [org.org.id],
    );
    assert.deepEqual(actions.map((a) => [a.action, a.actor_email, a.details.required ?? null]), [
      ['console.team.two_factor_required', org.people.owner.user.email, true],
      ['console.user.two_factor_enabled', org.people.developer.user.email, null],
      ['console.user.two_factor_enabled', org.people.owner.user.email, null],
      ['console.team.two_factor_required', org.people.owner.user.email, false],
    ]);
    for (const c of [dev, owner, admin]) await c.context.close();
  });
});

describe('console: roles', () => {
  it("shows each role its own pages, and answers a page outside the role with a friendly 403", async () => {
    const expected = {
      owner: ['Verifications', 'Review queue', 'API keys', 'Webhooks', 'Test data', 'Logs', 'Usage', 'Billing', 'Team'],
      admin: ['Verifications', 'Review queue', 'API keys', 'Webhooks', 'Test data', 'Logs', 'Usage', 'Billing'],
      developer: ['Verifications', 'API keys', 'Logs'],
      reviewer: ['Verifications', 'Review queue'],
    } as const;
    for (const role of ['owner', 'admin', 'developer', 'reviewer'] as const) {
      const { context, page } = await signedIn(b, 'us', us.people[role]);
      const nav = await page.locator('nav.nav a').allInnerTexts();
      assert.deepEqual(nav, expected[role], role);
      await context.close();
    }
    const { context, page } = await signedIn(b, 'us', us.people.reviewer);
    for (const path of ['/keys', '/webhooks', '/users', '/test-data']) {
      const res = await page.goto(path);
      assert.equal(res?.status(), 403, path);
      assert.match(await page.locator('main').innerText(), /is for .* roles; you are signed in as reviewer/);
    }
    await page.goto('/keys');
    await shot(page, 'forbidden');
    await context.close();
  });
});

describe('console: requests from another origin', () => {
  it('refuses a form post from another origin, or without the form token, and changes nothing', async () => {
    const { context, page } = await signedIn(b, 'us', us.people.developer);
    await page.goto('/keys');
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const before = await rows('us', 'SELECT count(*)::int AS n FROM accounts.api_keys WHERE org_id = $1', [us.org.id]);

    const fromElsewhere = await postFrom('https://attacker.example', '/keys', { _csrf: csrf, type: 'sk', scopes: 'sessions:read' }, cookie);
    assert.equal(fromElsewhere.status, 403);
    assert.match(await fromElsewhere.text(), /did not come from a page of this console/);
    const noToken = await postFrom(CONSOLE.us, '/keys', { type: 'sk', scopes: 'sessions:read' }, cookie);
    assert.equal(noToken.status, 403);
    const crossSite = await fetch(`${CONSOLE.us}/keys`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: CONSOLE.us, 'sec-fetch-site': 'cross-site' },
      body: new URLSearchParams({ _csrf: csrf, type: 'sk', scopes: 'sessions:read' }),
    });
    assert.equal(crossSite.status, 403);
    const login = await postFrom('https://attacker.example', '/login', { email: us.people.developer.user.email, password: us.people.developer.password });
    assert.equal(login.status, 403);
    assert.equal(login.headers.get('set-cookie')?.includes('verity_console='), undefined);

    assert.deepEqual(await rows('us', 'SELECT count(*)::int AS n FROM accounts.api_keys WHERE org_id = $1', [us.org.id]), before, 'no key was made');
    // the same post from the console's own page works
    const own = await postFrom(CONSOLE.us, '/keys', { _csrf: csrf, type: 'sk', scopes: 'sessions:read' }, cookie);
    assert.equal(own.status, 200);
    await context.close();
  });

  it('serves every page with a policy that allows no script and nothing from elsewhere', async () => {
    const res = await fetch(`${CONSOLE.us}/login`);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /script-src/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });
});

describe('console: API keys', () => {
  it('a developer creates a key, sees it once, and it works against the API; rotating and revoking take effect', async () => {
    const { context, page } = await signedIn(b, 'us', us.people.developer);
    await page.goto('/keys');
    await switchMode(page, 'test');
    await page.getByLabel('Type').selectOption('sk');
    await page.locator('input[name=scopes][value="applicants:read"]').check();
    await page.locator('input[name=scopes][value="sessions:read"]').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').innerText()).trim();
    assert.match(key, /^idv_sk_us_test_[A-Za-z0-9]{43}$/);
    await shot(page, 'key-created');
    await page.goto('/keys');
    assert.equal(await page.getByTestId('new-key').count(), 0, 'the key is not shown again');
    assert.ok(!(await page.content()).includes(key));

    const api = client('us', key);
    assert.equal((await api('GET', '/v1/applicants')).status, 200, 'the new key reads applicants');
    assert.equal((await api('POST', '/v1/applicants', { body: { given_names: ['Ada'], family_name: 'Lovelace' } })).status, 403, 'and only what its scopes allow');

    const id = (await page.locator('table tbody tr').first().locator('td').first().innerText()).trim();
    await page.getByRole('button', { name: `Rotate ${id}` }).click();
    const rotated = (await page.getByTestId('new-key').innerText()).trim();
    assert.notEqual(rotated, key);
    const deadline = Date.now() + 10_000;
    while ((await api('GET', '/v1/applicants')).status !== 401 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assert.equal((await api('GET', '/v1/applicants')).status, 401, 'the old secret stops working');
    assert.equal((await client('us', rotated)('GET', '/v1/applicants')).status, 200, 'the new one works');

    await page.goto('/keys');
    await page.getByRole('button', { name: `Revoke ${id}` }).click();
    assert.match(await page.locator('.notice.success').innerText(), /was revoked/);
    const until = Date.now() + 10_000;
    while ((await client('us', rotated)('GET', '/v1/applicants')).status !== 401 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    assert.equal((await client('us', rotated)('GET', '/v1/applicants')).status, 401);
    await shot(page, 'keys');

    const actions = await rows<{ action: string; actor_email: string }>('us', `SELECT action, actor_email FROM accounts.console_activity WHERE org_id = $1 AND target_id = $2 ORDER BY seq`, [us.org.id, id]);
    assert.deepEqual(actions.map((a) => a.action), ['console.key.created', 'console.key.rotated', 'console.key.revoked']);
    assert.ok(actions.every((a) => a.actor_email === us.people.developer.user.email), 'each change names who made it');
    await context.close();
  });

  it("lists only this organization's keys of the mode shown, and refuses to touch another organization's key", async () => {
    const other = await team('us');
    const theirs = await createKey('us', other.org.id, { mode: 'test' });
    const liveOwn = await createKey('us', us.org.id, { mode: 'live' });
    const { context, page } = await signedIn(b, 'us', us.people.admin);
    await page.goto('/keys');
    await switchMode(page, 'test');
    const text = await page.locator('main').innerText();
    assert.ok(!text.includes(theirs.id), "another organization's key is not listed");
    assert.ok(!text.includes(liveOwn.id), 'a live key is not listed in test mode');
    await switchMode(page, 'live');
    assert.ok((await page.locator('main').innerText()).includes(liveOwn.id), 'it is in live mode');

    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const res = await postFrom(CONSOLE.us, `/keys/${theirs.id}/revoke`, { _csrf: csrf }, cookie);
    assert.equal(res.status, 404);
    const [row] = await rows<{ revoked_at: string | null }>('us', 'SELECT revoked_at FROM accounts.api_keys WHERE id = $1', [theirs.id]);
    assert.equal(row!.revoked_at, null, "another organization's key is untouched");
    await context.close();
  });

  it('a developer cannot make, rotate or revoke live keys: no form in live mode, a forged post is 403 and changes nothing', async () => {
    const live = await createKey('us', us.org.id, { mode: 'live' });
    const keysNow = () => rows<{ id: string; key_hash: string; revoked_at: string | null }>('us', 'SELECT id, key_hash, revoked_at FROM accounts.api_keys WHERE org_id = $1 ORDER BY id', [us.org.id]);
    const { context, page } = await signedIn(b, 'us', us.people.developer);
    await page.goto('/keys');
    await switchMode(page, 'live');
    const main = await page.locator('main').innerText();
    assert.ok(main.includes(live.id), 'the live keys are listed');
    assert.match(main, /Only owners and admins create, rotate or revoke live keys/);
    assert.equal(await page.getByRole('button', { name: 'Create key' }).count(), 0, 'no form to create one');
    assert.equal(await page.getByRole('button', { name: `Rotate ${live.id}` }).count(), 0, 'no rotate button');
    assert.equal(await page.getByRole('button', { name: `Revoke ${live.id}` }).count(), 0, 'no revoke button');
    await shot(page, 'keys-live-developer');

    // the posts the page no longer offers, sent with the developer's own session and form token
    const before = await keysNow();
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    for (const [path, body] of [
      ['/keys', { type: 'sk', scopes: 'sessions:read_report' }],
      [`/keys/${live.id}/rotate`, {}],
      [`/keys/${live.id}/revoke`, {}],
    ] as const) {
      const res = await postFrom(CONSOLE.us, path, { _csrf: csrf, ...body }, cookie);
      assert.equal(res.status, 403, path);
      assert.match(await res.text(), /Only owners and admins create, rotate or revoke live keys; nothing was changed/);
    }
    assert.deepEqual(await keysNow(), before, 'no key made, none rotated or revoked');
    await context.close();

    // an admin's live keys page has the form, with every scope
    const admin = await signedIn(b, 'us', us.people.admin);
    await admin.page.goto('/keys');
    await switchMode(admin.page, 'live');
    assert.equal(await admin.page.getByRole('button', { name: 'Create key' }).count(), 1);
    assert.equal(await admin.page.locator('input[name=scopes][value="dsar:write"]').count(), 1);
    await admin.context.close();
  });

  it('reads well on a phone', async () => {
    const { context, page } = await signedIn(b, 'us', us.people.developer, PHONE);
    await page.goto('/keys');
    await shot(page, 'keys-phone');
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as number;
    assert.ok(overflow <= 1, `the page fits the phone's width (overflow ${overflow}px)`);
    await context.close();
  });
});

describe('console: team', () => {
  it('an owner invites a person by link: they set their own password and are signed in; a used or revoked link is refused', async () => {
    const org = await team('us');
    const { context, page } = await signedIn(b, 'us', org.people.owner);
    await page.goto('/users');
    const invite = async (address: string, role: string) => {
      await page.getByLabel('Email', { exact: true }).fill(address);
      await page.getByLabel('Role', { exact: true }).selectOption(role);
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      return (await page.getByTestId('invitation-link').innerText()).trim();
    };
    const email = `invited.${Date.now()}@example.com`;
    const link = await invite(email, 'reviewer');
    assert.match(link, new RegExp(`^${CONSOLE.us}/invitation/[A-Za-z0-9_-]{43}$`));
    assert.match(await page.locator('main').innerText(), /This console sends no email/);
    assert.ok((await page.locator('table').nth(1).innerText()).includes(email), 'listed as pending');
    await shot(page, 'team');
    await page.goto('/users');
    assert.equal(await page.getByTestId('invitation-link').count(), 0, 'the link is not shown again');
    assert.ok(!(await page.content()).includes(link.slice(-43)));

    // an address with an account already is refused
    await page.getByLabel('Email', { exact: true }).fill(org.people.developer.user.email);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    assert.match(await page.locator('.notice.error').innerText(), /already in use/);

    // the person opens the link, chooses a password (the two must match, 12 characters or more) and is signed in
    const theirs = await b.newContext({ baseURL: CONSOLE.us, viewport: LAPTOP });
    const theirPage = await theirs.newPage();
    assert.equal((await theirPage.goto(link))!.status(), 200);
    assert.equal(await theirPage.getByLabel('Email').inputValue(), email);
    await shot(theirPage, 'invitation');
    const PASSWORD = 'my very own passphrase';
    await theirPage.getByLabel('Password (12 characters or more)').fill(PASSWORD);
    await theirPage.getByLabel('Password again').fill('something else entirely');
    await theirPage.getByRole('button', { name: 'Create my account' }).click();
    assert.match(await theirPage.locator('.notice.error').innerText(), /differ/);
    await theirPage.getByLabel('Password (12 characters or more)').fill('short');
    await theirPage.getByLabel('Password again').fill('short');
    await theirPage.locator('form').evaluate((f: { noValidate: boolean }) => (f.noValidate = true));
    await theirPage.getByRole('button', { name: 'Create my account' }).click();
    assert.match(await theirPage.locator('.notice.error').innerText(), /12 to 256 characters/);
    await theirPage.getByLabel('Password (12 characters or more)').fill(PASSWORD);
    await theirPage.getByLabel('Password again').fill(PASSWORD);
    await theirPage.getByRole('button', { name: 'Create my account' }).click();
    await theirPage.waitForURL((u) => u.pathname === '/verifications');
    assert.deepEqual(await theirPage.locator('nav.nav a').allInnerTexts(), ['Verifications', 'Review queue'], 'signed in as a reviewer');
    await theirs.close();
    const [created] = await rows<{ id: string; role: string }>('us', 'SELECT id, role FROM accounts.console_users WHERE email = $1', [email]);
    assert.equal(created?.role, 'reviewer');
    const again = await signedIn(b, 'us', { user: { ...org.people.reviewer.user, email }, password: PASSWORD });
    assert.equal(new URL(again.page.url()).pathname, '/verifications', 'their password signs them in');
    await again.context.close();

    // the link works once
    const reuse = await b.newContext({ baseURL: CONSOLE.us });
    const reusePage = await reuse.newPage();
    assert.equal((await reusePage.goto(link))!.status(), 410);
    assert.match(await reusePage.locator('main').innerText(), /does not work[\s\S]*was already used/);
    assert.equal(await reusePage.getByRole('button', { name: 'Create my account' }).count(), 0);

    // a revoked link is refused, and nothing is made with it
    const other = `revoked.${Date.now()}@example.com`;
    await page.goto('/users');
    const revokedLink = await invite(other, 'admin');
    await page.goto('/users');
    await page.getByRole('button', { name: `Revoke the invitation of ${other}` }).click();
    assert.match(await page.locator('.notice.success').innerText(), /was revoked/);
    assert.equal(await page.getByRole('button', { name: `Revoke the invitation of ${other}` }).count(), 0);
    assert.equal((await reusePage.goto(revokedLink))!.status(), 410);
    assert.match(await reusePage.locator('main').innerText(), /was revoked/);
    assert.equal((await reusePage.goto(`/invitation/${'A'.repeat(43)}`))!.status(), 404, 'a made-up link');
    await reuse.close();
    assert.deepEqual(await rows('us', 'SELECT id FROM accounts.console_users WHERE email = $1', [other]), []);

    const actions = await rows<{ action: string; actor_email: string; details: Record<string, string> }>(
      'us',
      `SELECT action, actor_email, details FROM accounts.console_activity WHERE org_id = $1 AND action LIKE 'console.user.invit%' ORDER BY seq`,
      [org.org.id],
    );
    const owner = org.people.owner.user.email;
    assert.deepEqual(
      actions.map((a) => [a.action, a.actor_email, a.details.email ?? a.details.role]),
      [
        ['console.user.invited', owner, email],
        ['console.user.invitation_accepted', email, 'reviewer'],
        ['console.user.invited', owner, other],
        ['console.user.invitation_revoked', owner, other],
      ],
    );
    await context.close();
  });

  it('an owner disables a person: their session ends at its next request and their password no longer signs in; enabled, it does again', async () => {
    const org = await team('us');
    const dev = org.people.developer;
    const them = await signedIn(b, 'us', dev);
    await them.page.goto('/keys');
    assert.equal(new URL(them.page.url()).pathname, '/keys');

    const owner = await signedIn(b, 'us', org.people.owner);
    await owner.page.goto('/users');
    await owner.page.getByRole('button', { name: `Disable ${dev.user.email}` }).click();
    assert.match(await owner.page.locator('.notice.success').innerText(), /was disabled/);
    assert.match(await owner.page.locator('table tr', { hasText: dev.user.email }).innerText(), /disabled/);
    await them.page.goto('/keys');
    assert.equal(new URL(them.page.url()).pathname, '/login', 'their session ends at its next request');

    // the right password is answered as a wrong one is
    const wrongAnswer = async (password: string) => {
      await them.page.getByLabel('Email').fill(dev.user.email);
      await them.page.getByLabel('Password').fill(password);
      const [res] = await Promise.all([them.page.waitForResponse((r) => r.url().endsWith('/login') && r.request().method() === 'POST'), them.page.getByRole('button', { name: 'Sign in' }).click()]);
      return [res.status(), await them.page.locator('.notice.error').innerText()];
    };
    assert.deepEqual(await wrongAnswer(dev.password), await wrongAnswer('not the password at all'));
    await them.context.close();

    // the only owner cannot disable themselves
    await owner.page.getByRole('button', { name: `Disable ${org.people.owner.user.email}` }).click();
    assert.match(await owner.page.locator('.notice.error').innerText(), /keeps at least one owner who is not disabled/);
    await owner.page.goto('/users');
    await owner.page.getByRole('button', { name: `Enable ${dev.user.email}` }).click();
    assert.match(await owner.page.locator('.notice.success').innerText(), /was enabled/);
    const back = await signedIn(b, 'us', dev);
    assert.equal(new URL(back.page.url()).pathname, '/verifications', 'enabled: their password signs them in');
    await back.context.close();

    const actions = await rows<{ action: string; target_id: string }>('us', `SELECT action, target_id FROM accounts.console_activity WHERE org_id = $1 AND action IN ('console.user.disabled', 'console.user.enabled') ORDER BY seq`, [org.org.id]);
    assert.deepEqual(actions.map((a) => [a.action, a.target_id]), [
      ['console.user.disabled', dev.user.id],
      ['console.user.enabled', dev.user.id],
    ]);
    await owner.context.close();
  });

  it("an owner changes a person's role, signs them out everywhere and removes them: each takes effect on their next request; the last owner stays", async () => {
    const org = await team('us');
    const dev = org.people.developer;
    let them = await signedIn(b, 'us', dev);
    await them.page.goto('/keys');
    assert.equal(new URL(them.page.url()).pathname, '/keys');

    const owner = await signedIn(b, 'us', org.people.owner);
    await owner.page.goto('/users');
    await owner.page.getByLabel(`Role of ${dev.user.email}`, { exact: true }).selectOption('reviewer');
    await owner.page.getByRole('button', { name: `Change role of ${dev.user.email}` }).click();
    await owner.page.waitForURL((u) => u.searchParams.has('changed'));
    const keys = await them.page.goto('/keys');
    assert.equal(keys!.status(), 403, 'a reviewer now: the keys page is not theirs');
    assert.deepEqual(await them.page.locator('nav.nav a').allInnerTexts(), ['Verifications', 'Review queue']);

    // signed out everywhere by the owner: their session ends, their password still signs them in
    await owner.page.getByRole('button', { name: `Sign out ${dev.user.email} everywhere` }).click();
    assert.match(await owner.page.locator('.notice.success').innerText(), /was signed out everywhere/);
    await them.page.goto('/verifications');
    assert.equal(new URL(them.page.url()).pathname, '/login', 'signed out: their session opens nothing');
    await them.context.close();
    them = await signedIn(b, 'us', dev);

    await owner.page.getByRole('button', { name: `Remove ${dev.user.email}` }).click();
    assert.match(await owner.page.locator('.notice.success').innerText(), /was removed/);
    await them.page.goto('/verifications');
    assert.equal(new URL(them.page.url()).pathname, '/login', 'removed: their session opens nothing');
    assert.deepEqual(await rows('us', 'SELECT id FROM accounts.console_users WHERE id = $1', [dev.user.id]), []);

    // the only owner can neither step down nor leave
    const me = org.people.owner.user.email;
    await owner.page.getByLabel(`Role of ${me}`, { exact: true }).selectOption('admin');
    await owner.page.getByRole('button', { name: `Change role of ${me}` }).click();
    assert.match(await owner.page.locator('.notice.error').innerText(), /keeps at least one owner/);
    await owner.page.getByRole('button', { name: `Remove ${me}` }).click();
    assert.match(await owner.page.locator('.notice.error').innerText(), /keeps at least one owner/);
    assert.deepEqual(await rows('us', 'SELECT role FROM accounts.console_users WHERE id = $1', [org.people.owner.user.id]), [{ role: 'owner' }]);
    await shot(owner.page, 'team-changes');

    const actions = await rows<{ action: string; target_id: string; details: Record<string, string> }>('us', `SELECT action, target_id, details FROM accounts.console_activity WHERE org_id = $1 AND action LIKE 'console.user.%' ORDER BY seq`, [org.org.id]);
    assert.deepEqual(actions.map((a) => [a.action, a.target_id, a.details]), [
      ['console.user.role_changed', dev.user.id, { from: 'developer', to: 'reviewer' }],
      ['console.user.signed_out', dev.user.id, {}],
      ['console.user.removed', dev.user.id, { role: 'reviewer' }],
    ]);
    await them.context.close();
    await owner.context.close();
  });

  it("an owner resets a person's two-factor sign-in (a lost phone): they are signed out, and sign in with their password to set it up again", async () => {
    const org = await team('us');
    const [owner, dev] = [org.people.owner, org.people.developer];
    // both have two-factor sign-in on, and the organization requires it
    const ops = await operator('us');
    const op = { principal: null, requestId: 'req_e2e_two_factor_reset' };
    const totpOf = async (person: typeof dev) => {
      const { secret } = await ops.call(SUBJECTS.accountsConsoleTotpBegin, { user_id: person.user.id }, op);
      const totp = new TOTP({ secret: Secret.fromBase32(secret) });
      await ops.call(SUBJECTS.accountsConsoleTotpConfirm, { user_id: person.user.id, code: totp.generate() }, op);
      return totp;
    };
    const [ownerTotp, devTotp] = [await totpOf(owner), await totpOf(dev)];
    await ops.call(SUBJECTS.accountsConsoleOrgTwoFactor, { org_id: org.org.id, required: true }, op);
    /**
     * Signs in with the password, and the next step's code (the enrolment took this step's) when asked for one: where it
     * leads. From an address of its own (the console trusts the loopback proxy's X-Forwarded-For here), so that the
     * sign-ins of the file's other tests do not count against it.
     */
    const address = `203.0.113.${1 + Math.floor(Math.random() * 250)}`;
    const signIn = async (person: typeof dev, totp?: TOTP) => {
      const context = await b.newContext({ viewport: LAPTOP, baseURL: CONSOLE.us, extraHTTPHeaders: { 'x-forwarded-for': address } });
      const page = await context.newPage();
      await page.goto('/login');
      await page.getByLabel('Email').fill(person.user.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((u) => u.pathname !== '/login');
      if (totp && new URL(page.url()).pathname === '/login/code') {
        await page.getByLabel('Code from your app, or a recovery code').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
        await page.getByRole('button', { name: 'Verify' }).click();
        await page.waitForLoadState();
        assert.equal(new URL(page.url()).pathname.startsWith('/login'), false, await page.locator('main').innerText());
      }
      return { context, page };
    };
    const them = await signIn(dev, devTotp);
    assert.equal(new URL(them.page.url()).pathname, '/verifications');

    const mine = await signIn(owner, ownerTotp);
    await mine.page.goto('/users');
    assert.equal(await mine.page.getByRole('button', { name: `Reset the two-factor sign-in of ${owner.user.email}` }).count(), 0, 'not one\'s own: that takes a code, on one\'s account page');
    await mine.page.getByRole('button', { name: `Reset the two-factor sign-in of ${dev.user.email}` }).click();
    assert.match(await mine.page.locator('.notice.success').innerText(), new RegExp(`two-factor sign-in of ${dev.user.email} was reset: they were signed out, and sign in with their password alone, then set it up again`));
    assert.match(await mine.page.locator('table tr', { hasText: dev.user.email }).innerText(), /\boff\b/);

    // their session ends; their password leads to setting it up anew (no code of the lost phone asked), and nothing else
    await them.page.goto('/keys');
    assert.equal(new URL(them.page.url()).pathname, '/login', 'signed out at their next request');
    await them.context.close();
    const again = await signIn(dev);
    assert.equal(new URL(again.page.url()).pathname, '/account/two-factor');
    await again.page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const secret = (await again.page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
    assert.notEqual(secret, devTotp.secret.base32, 'a new secret');
    await again.context.close();

    // another organization's person: 404, nothing changed
    const csrf = await mine.page.locator('input[name=_csrf]').first().inputValue();
    const cookie = (await mine.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const stranger = await createPerson('us', us.org.id, 'admin');
    await totpOf(stranger);
    assert.equal((await postFrom(CONSOLE.us, `/users/${stranger.user.id}/reset-two-factor`, { _csrf: csrf }, cookie)).status, 404);
    const [kept] = await rows<{ totp_enabled_at: Date | null }>('us', 'SELECT totp_enabled_at FROM accounts.console_users WHERE id = $1', [stranger.user.id]);
    assert.ok(kept?.totp_enabled_at, "the other organization's person keeps theirs");

    const actions = await rows<{ action: string; actor_email: string; target_id: string }>('us', `SELECT action, actor_email, target_id FROM accounts.console_activity WHERE org_id = $1 AND action = 'console.user.two_factor_reset'`, [org.org.id]);
    assert.deepEqual(actions.map((a) => [a.actor_email, a.target_id]), [[owner.user.email, dev.user.id]]);
    await mine.context.close();
  });
});
