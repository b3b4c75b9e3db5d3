/**
 * The console's Webhooks, Logs and Usage pages in headless Chromium, against the shared us stack (HTTPS receiver on
 * loopback, trusted through NODE_EXTRA_CA_CERTS; WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, WEBHOOK_RETRY_SCHEDULE=1s,1s,1s):
 * an admin registers an endpoint and sees its secret once, a test verification made through the API is delivered
 * signed and shows in the delivery log, one delivery and then every failed one are replayed, the secret is rotated
 * and the endpoint disabled; a developer gets 403; another organization's admin cannot touch the endpoint; the
 * Logs page shows those changes with the admin's email and the Usage page counts the verifications under test.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { WebhookAttempt } from '@verity/contracts';
import { startWebhookReceiver, testTls, waitFor, type ReceivedWebhook, type WebhookReceiver } from '@verity/testing';
import type { Browser, Page, Response } from 'playwright-core';
import { browser, CONSOLE, PHONE, shot, signedIn, switchMode, team, type Team } from './console-support.js';
import { createSession, setup, waitStatus, type Client } from './sessions-support.js';
import { client, closeOperators, createKey } from './support.js';

let rx: WebhookReceiver;
let b: Browser;
let t: Team;
let admin: Page;
let c: Client;
let ids: { applicantId: string; templateId: string };

const hookPath = `/console/${randomBytes(6).toString('hex')}`;
let failing = false;

/** What the receiver got for a verification, once there are `n` requests. */
function receivedFor(sessionId: string, n: number, ms = 15_000): Promise<ReceivedWebhook[]> {
  return waitFor(async () => {
    const got = rx.received.filter((r) => r.path === hookPath && r.body.includes(sessionId));
    return got.length >= n ? got : undefined;
  }, ms);
}

function verified(secret: string, got: ReceivedWebhook): { type: string; data: { sessionId: string } } {
  return new Webhook(secret).verify(got.body, got.headers) as { type: string; data: { sessionId: string } };
}

/** The UTC days the test verifications were created on, one entry each (a run may cross midnight). */
const createdDays: string[] = [];

/** A test verification through the API with the organization's key, settled. */
async function verification(): Promise<string> {
  const created = await createSession(c, { applicant_id: ids.applicantId, workflow_template_id: ids.templateId, expected_outcome: 'pass' });
  assert.equal(created.status, 201, created.text);
  createdDays.push(created.body.data.created_at.slice(0, 10));
  return (await waitStatus(c, created.body.data.id, ['completed'], 10_000)).id;
}

/** Clicks and returns the answer of the POST it sends (the page then shows it, or follows its redirect). */
async function submit(page: Page, click: () => Promise<void>): Promise<Response> {
  const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), click()]);
  await page.waitForLoadState('load');
  return res;
}

/** Reloads `path` until `text` shows (deliveries are logged once their attempt ends). */
async function untilShown(page: Page, path: string, text: string | RegExp, ms = 15_000): Promise<void> {
  await waitFor(async () => {
    await page.goto(path);
    return (await page.locator('main').innerText()).match(text) ? true : undefined;
  }, ms);
}

/** The cells of a table's body rows as a person reads them (whitespace and line breaks as single spaces). */
async function rowTexts(page: Page, selector: string): Promise<string[][]> {
  const out: string[][] = [];
  for (const tr of await page.locator(`${selector} tbody tr`).all()) out.push((await tr.locator('td').allInnerTexts()).map((t) => t.trim().replace(/\s+/g, ' ')));
  return out;
}

/** Reloads `path` until its table has `n` rows. */
async function untilRows(page: Page, path: string, n: number, ms = 15_000): Promise<string[][]> {
  return waitFor(async () => {
    await page.goto(path);
    const r = await rowTexts(page, 'main');
    return r.length >= n ? r : undefined;
  }, ms);
}

before(async () => {
  rx = await startWebhookReceiver({ tls: testTls() });
  rx.respond = (r) => (failing && r.path === hookPath ? 500 : 200);
  b = await browser();
  t = await team('us');
  const key = await createKey('us', t.org.id, { mode: 'test' });
  c = client('us', key.key);
  ids = await setup(c, { checks: ['document', 'watchlist'] });
  ({ page: admin } = await signedIn(b, 'us', t.people.admin));
  await switchMode(admin, 'test');
});

after(async () => {
  await b?.close();
  await rx?.close();
  await closeOperators();
});

describe('console: webhooks, logs and usage', () => {
  let sub = '';
  let secret = '';
  let first = '';
  let second = '';
  let third = '';
  let host = '';

  it('an admin registers an https endpoint (plain http refused) and sees its secret once', async () => {
    const res = await admin.goto('/webhooks');
    assert.equal(res!.status(), 200);
    assert.match(await admin.locator('main').innerText(), /No test endpoints yet/);

    await admin.getByLabel('HTTPS URL').fill('http://127.0.0.1:9/hook');
    const refused = await submit(admin, () => admin.getByRole('button', { name: 'Register endpoint' }).click());
    assert.equal(refused.status(), 422);
    assert.match(await admin.getByRole('alert').innerText(), /url must start with https:\/\/ \(plain HTTP is refused\)/);
    assert.equal(await admin.getByLabel('HTTPS URL').inputValue(), 'http://127.0.0.1:9/hook', 'the form keeps what was typed');

    await admin.getByLabel('HTTPS URL').fill(`${rx.url}${hookPath}`);
    const created = await submit(admin, () => admin.getByRole('button', { name: 'Register endpoint' }).click());
    assert.equal(created.status(), 200);
    secret = (await admin.getByTestId('webhook-secret').innerText()).trim();
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]+$/);
    assert.match(await admin.getByRole('heading', { level: 2, name: /copy its signing secret now/ }).innerText(), /Endpoint registered/);
    sub = /whs_[A-Za-z0-9]{24}/.exec(await admin.locator('section.panel', { hasText: 'Endpoint registered' }).innerText())![0];
    host = new URL(rx.url).host;
    const rows = await rowTexts(admin, 'main');
    assert.equal(rows.length, 1);
    assert.ok(rows[0]![0]!.includes(`${rx.url}${hookPath}`) && rows[0]![0]!.includes(sub));
    assert.match(rows[0]![1]!, /kyc\.session\.completed.*kyc\.session\.cancelled.*kyc\.session\.manual_review_requested/);
    assert.equal(rows[0]![2], 'active');
    await shot(admin, 'webhooks-secret');

    // shown once: the page never shows it again
    await admin.goto('/webhooks');
    assert.equal(await admin.getByTestId('webhook-secret').count(), 0);
    assert.ok(!(await admin.content()).includes(secret));
  });

  it('a test verification made with an API key is delivered signed, and shows in the delivery log', async () => {
    first = await verification();
    const [got] = await receivedFor(first, 1);
    const body = verified(secret, got!);
    assert.equal(body.type, 'kyc.session.completed');
    assert.equal(body.data.sessionId, first);
    const eventId = got!.headers['webhook-id']!;

    await untilShown(admin, `/webhooks/deliveries?session_id=${first}`, eventId);
    const rows = await rowTexts(admin, 'main');
    assert.equal(rows.length, 1);
    const [when, event, session, endpoint, result] = rows[0]!;
    assert.match(when!, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    assert.equal(event, `Completed ${eventId}`);
    assert.equal(session, first);
    assert.equal(endpoint, host);
    assert.match(result!, /^delivered · 200 attempt 1 · \d+ ms$/);
    assert.ok(!(await admin.content()).includes(secret), 'never the secret');

    // filtered by another endpoint: nothing; by this one: the row
    await admin.goto(`/webhooks/deliveries?session_id=ses_${'x'.repeat(24)}`);
    assert.match(await admin.locator('main').innerText(), /No attempts match/);
    await admin.goto('/webhooks/deliveries');
    await admin.getByLabel('Endpoint', { exact: true }).selectOption(sub);
    await admin.getByRole('button', { name: 'Filter' }).click();
    await admin.waitForURL(/subscription_id=whs_/);
    assert.equal((await rowTexts(admin, 'main')).length, 1);
    await shot(admin, 'webhooks-deliveries');
  });

  it('replays one delivery from its row: the receiver gets it again, same webhook-id, and the log shows attempt 2', async () => {
    await admin.goto(`/webhooks/deliveries?session_id=${first}`);
    const res = await submit(admin, () => admin.locator('main tbody tr').first().getByRole('button', { name: /^Replay/ }).click());
    assert.equal(res.status(), 303);
    assert.match(await admin.getByRole('status').innerText(), /is being sent again, with the same webhook-id/);
    const got = await receivedFor(first, 2);
    assert.equal(got[1]!.headers['webhook-id'], got[0]!.headers['webhook-id']);
    assert.equal(got[1]!.body, got[0]!.body);
    assert.equal(verified(secret, got[1]!).data.sessionId, first);
    assert.deepEqual(
      (await untilRows(admin, `/webhooks/deliveries?session_id=${first}`, 2)).map((r) => r[4]!.replace(/\d+ ms$/, 'N ms')),
      ['delivered · 200 attempt 2 · N ms', 'delivered · 200 attempt 1 · N ms'],
    );
  });

  it('replays every failed delivery since a time: only the one that failed is sent again', async () => {
    failing = true;
    try {
      second = await verification();
      // four attempts (the stack retries after 1 s, three times), then the delivery has failed for good
      await waitFor(async () => {
        const r = await c<{ data: WebhookAttempt[] }>('GET', `/v1/webhook-events?session_id=${second}`);
        return r.body.data.some((a) => a.attempt === 4 && a.status === 'failed' && a.next_attempt_at === null) ? true : undefined;
      }, 20_000);
    } finally {
      failing = false;
    }
    assert.equal((await receivedFor(second, 4)).length, 4);
    await admin.goto(`/webhooks/deliveries?session_id=${second}`);
    assert.match((await rowTexts(admin, 'main'))[0]![4]!, /^failed · HTTP 500 attempt 4 · \d+ ms$/);

    await admin.goto('/webhooks');
    await admin.getByLabel('Endpoint', { exact: true }).selectOption(sub);
    const res = await submit(admin, () => admin.getByRole('button', { name: 'Replay failed deliveries' }).click());
    assert.equal(res.status(), 303);
    assert.match(await admin.getByRole('status').innerText(), new RegExp(`1 failed delivery to ${host.replace(/\./g, '\\.')} since .* is being sent again`));
    const got = await receivedFor(second, 5);
    assert.equal(verified(secret, got[4]!).data.sessionId, second);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(rx.received.filter((r) => r.path === hookPath && r.body.includes(first)).length, 2, 'the delivery that succeeded is not sent again');
    await untilShown(admin, `/webhooks/deliveries?session_id=${second}`, /delivered · 200/);
  });

  it('rotates the secret: the new one is shown once, with until when the previous one still signs', async () => {
    await admin.goto('/webhooks');
    const res = await submit(admin, () => admin.getByRole('button', { name: /^Rotate secret of/ }).click());
    assert.equal(res.status(), 200);
    const next = (await admin.getByTestId('webhook-secret').innerText()).trim();
    assert.match(next, /^whsec_/);
    assert.notEqual(next, secret);
    assert.match(await admin.locator('main').innerText(), /Until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC every delivery carries two signatures/);

    third = await verification();
    const [got] = await receivedFor(third, 1);
    assert.equal(got!.headers['webhook-signature']!.split(' ').length, 2, 'both secrets sign during the overlap');
    assert.equal(verified(next, got!).data.sessionId, third);
    assert.equal(verified(secret, got!).data.sessionId, third);
    await admin.goto('/webhooks');
    await shot(admin, 'webhooks');
  });

  it("another organization's admin cannot rotate, replay or disable the endpoint", async () => {
    const other = await team('us');
    const { page, context } = await signedIn(b, 'us', other.people.admin);
    try {
      await page.goto('/webhooks');
      assert.match(await page.locator('main').innerText(), /No test endpoints yet/);
      const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
      const post = (path: string, form: Record<string, string>) => page.request.post(path, { form: { _csrf: csrf, ...form }, headers: { origin: CONSOLE.us }, maxRedirects: 0 });
      assert.equal((await post(`/webhooks/${sub}/rotate`, {})).status(), 404);
      assert.equal((await post(`/webhooks/${sub}/disable`, {})).status(), 404);
      assert.equal((await post('/webhooks/replay', { subscription_id: sub, event_id: rx.received[0]!.headers['webhook-id']! })).status(), 404);
      assert.equal((await post('/webhooks/replay-failed', { subscription_id: sub, since: '2020-01-01T00:00' })).status(), 404);
      // the delivery log is the organization's own
      await page.goto(`/webhooks/deliveries?subscription_id=${sub}`);
      assert.match(await page.locator('main').innerText(), /No attempts match/);
    } finally {
      await context.close();
    }
  });

  it('a developer gets the 403 page on Webhooks, and no link to it', async () => {
    const { page, context } = await signedIn(b, 'us', t.people.developer);
    try {
      const res = await page.goto('/webhooks');
      assert.equal(res!.status(), 403);
      assert.match(await page.locator('main').innerText(), /The Webhooks page is for owner, admin roles; you are signed in as developer/);
      assert.equal(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).count(), 0);
      assert.equal((await page.goto('/webhooks/deliveries'))!.status(), 403);
      assert.equal((await page.goto('/logs'))!.status(), 200, 'developers read the logs');
      assert.equal((await page.goto('/usage'))!.status(), 403);
    } finally {
      await context.close();
    }
  });

  it('reads on a phone', async () => {
    const { page, context } = await signedIn(b, 'us', t.people.admin, PHONE);
    try {
      await page.goto('/webhooks');
      assert.ok(await page.getByRole('heading', { name: 'Webhooks', level: 1 }).isVisible());
      const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
      await shot(page, 'webhooks-phone');
    } finally {
      await context.close();
    }
  });

  it('disables the endpoint after a confirmation page', async () => {
    await admin.goto('/webhooks');
    await admin.getByRole('link', { name: /^Disable/ }).click();
    assert.match(await admin.locator('main').innerText(), /cannot be enabled again/);
    const res = await submit(admin, () => admin.getByRole('button', { name: 'Disable endpoint' }).click());
    assert.equal(res.status(), 303);
    assert.match(await admin.getByRole('status').innerText(), new RegExp(`Endpoint ${sub} was disabled`));
    assert.equal((await rowTexts(admin, 'main'))[0]![2], 'disabled');
    assert.equal(await admin.getByRole('button', { name: /^Rotate/ }).count(), 0);
  });

  it('the Logs page shows each change with the admin email and the host only, and the evidence and email sections', async () => {
    const res = await admin.goto('/logs');
    assert.equal(res!.status(), 200);
    const rows = await rowTexts(admin, '#activity + p + .table-wrap');
    const mine = rows.filter((r) => r[3]!.startsWith(sub));
    const who = t.people.admin.user.email;
    assert.deepEqual(
      mine.map((r) => [r[1], r[2]]),
      [
        [who, 'Webhook endpoint disabled test'],
        [who, 'Webhook secret rotated test'],
        [who, 'Webhook deliveries replayed test'],
        [who, 'Webhook deliveries replayed test'],
        [who, 'Webhook endpoint registered test'],
      ],
    );
    for (const r of mine) assert.ok(r[3]!.includes(`host ${host}`), r[3]);
    assert.match(mine[2]![3]!, /failed only true/);
    assert.match(mine[3]![3]!, /event id evt_/);
    // the test verifications' invitations: suppressed, listed here only
    const emails = await rowTexts(admin, '#emails + p + .table-wrap');
    assert.deepEqual(
      emails.map((r) => [r[3], r[4]]).sort(),
      [first, second, third].map((id) => ['suppressed (test mode)', id]).sort(),
    );
    const text = await admin.locator('main').innerText();
    assert.ok(!text.includes(hookPath), 'the URL path is not logged');
    assert.ok(!(await admin.content()).includes(secret), 'never a secret');
    assert.match(text, /Emails\s+test mode/);
    assert.match(text, /Test mode emails are never delivered/);
    assert.match(text, /Evidence access/);
    await shot(admin, 'logs');
  });

  it('the Usage page counts the three verifications under test, per check and per day', async () => {
    const res = await admin.goto('/usage');
    assert.equal(res!.status(), 200);
    assert.deepEqual(await rowTexts(admin, '.usage-totals'), [
      ['Document', '3', '0'],
      ['Watchlist', '3', '0'],
      ['All checks', '6', '0'],
    ]);
    // one row per UTC day the three were created on (a run that crosses midnight has two)
    const perDay = new Map<string, number>();
    for (const d of createdDays) perDay.set(d, (perDay.get(d) ?? 0) + 1);
    assert.deepEqual(
      (await rowTexts(admin, '.usage-days')).sort(),
      [...perDay].map(([d, n]) => [d, 'test', `${n}`, `${n}`, `${2 * n}`, '']).sort(),
    );
    // an empty period says so; a period the service refuses shows why
    await admin.getByLabel('From', { exact: true }).fill('2020-01-01');
    await admin.getByLabel('To', { exact: true }).fill('2020-01-31');
    await admin.getByRole('button', { name: 'Show' }).click();
    await admin.waitForURL(/from=2020-01-01/);
    assert.match(await admin.locator('main').innerText(), /No verifications from 2020-01-01 to 2020-01-31/);
    const refused = await admin.goto('/usage?from=2020-01-01&to=2024-01-01');
    assert.equal(refused!.status(), 422);
    assert.match(await admin.getByRole('alert').innerText(), /at most 366 days/);
    await admin.goto('/usage');
    await shot(admin, 'usage');
  });
});
