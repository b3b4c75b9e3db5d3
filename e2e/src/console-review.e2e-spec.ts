/**
 * The console's verification work (docs/console.md: Verifications, Review queue, Test data), in headless Chromium
 * against the us stack: an admin makes a test verification with the Expected outcome "Needs review"; a reviewer
 * finds it in the review queue, reads its screening, evidence images and timeline, adds a note and approves it
 * with a reason, and the organization's receiver gets `kyc.session.completed`; roles see what they may; another
 * organization's verification is a 404; the purge empties test mode.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS, type ConsoleActivityEntry } from '@verity/contracts';
import { startWebhookReceiver, testTls, waitFor, type ReceivedWebhook, type WebhookReceiver } from '@verity/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browser as launchBrowser, CONSOLE, PHONE, shot, signedIn, switchMode, team, type Team } from './console-support.js';
import { client, closeOperators, createKey, operator } from './support.js';
import { account, createSession, newApplicant, newTemplate, waitStatus, type Client } from './sessions-support.js';

const op = { principal: null, requestId: 'req_e2e_console_review' };

let b: Browser;
let t: Team;
let rx: WebhookReceiver;
let api: Client;
const open: BrowserContext[] = [];

/** A signed-in page of one of the team's people (closed after the file). */
async function person(role: 'owner' | 'admin' | 'developer' | 'reviewer', viewport?: { width: number; height: number }): Promise<Page> {
  const { context, page } = await signedIn(b, 'us', t.people[role], viewport);
  context.setDefaultTimeout(10_000);
  open.push(context);
  return page;
}

async function activity(): Promise<ConsoleActivityEntry[]> {
  return (await (await operator('us')).call(SUBJECTS.accountsActivityList, { org_id: t.org.id, limit: 100 }, op)).data;
}

function completedFor(sessionId: string): (r: ReceivedWebhook) => boolean {
  return (r) => {
    const body = JSON.parse(r.body) as { type?: string; data?: { sessionId?: string } };
    return body.type === 'kyc.session.completed' && body.data?.sessionId === sessionId;
  };
}

/** Every `<img>` of the page has loaded real pixels. */
async function imagesLoaded(page: Page): Promise<number[]> {
  const imgs = page.locator('.images img');
  return waitFor(async () => {
    const widths = await imgs.evaluateAll((els) => els.map((el) => (el as unknown as { complete: boolean; naturalWidth: number }).naturalWidth));
    return widths.length > 0 && widths.every((w) => w > 0) ? widths : undefined;
  }, 10_000, 100);
}

before(async () => {
  b = await launchBrowser();
  t = await team('us');
  rx = await startWebhookReceiver({ tls: testTls() });
  await (await operator('us')).call(
    SUBJECTS.webhookSubscriptionCreate,
    { org_id: t.org.id, mode: 'test', url: `${rx.url}/console-review/${t.org.id}`, event_types: ['kyc.session.completed'] },
    op,
  );
  api = client('us', (await createKey('us', t.org.id, { mode: 'test' })).key);
});

after(async () => {
  for (const c of open) await c.close().catch(() => undefined);
  await b?.close();
  await rx?.close();
  await closeOperators();
});

describe('console: verifications, the review queue and test data (us)', () => {
  let sessionId = '';

  it('an admin creates an applicant and a test verification with the Expected outcome "Needs review"; it reaches manual_review', async () => {
    const page = await person('admin');
    await page.goto('/test-data');
    assert.equal(await page.locator('h1').textContent(), 'Test data');
    // a fresh organization has no workflow template in test mode: the page offers the default one
    await page.getByRole('button', { name: 'Create the default template' }).click();
    await page.getByText('The default workflow template').waitFor();
    for (const label of ['Pass', 'Needs review', 'Fail', 'Document quality issue']) assert.equal(await page.getByLabel(label).count(), 1, label);
    await page.getByLabel('Given names').fill('Ada Augusta');
    await page.getByLabel('Family name').fill('King-Lovelace');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Needs review').check();
    await page.getByRole('button', { name: 'Create test verification' }).click();
    const link = page.getByRole('link', { name: 'Open the verification' });
    await link.waitFor();
    const href = (await link.getAttribute('href')) ?? '';
    sessionId = /^\/verifications\/(ses_[A-Za-z0-9]+)$/.exec(href)?.[1] ?? '';
    assert.ok(sessionId, `a link to the new verification (got ${href})`);
    const session = await waitStatus(api, sessionId, ['manual_review'], 15_000);
    assert.equal(session.outcome, null);
    await page.reload();
    await page.getByText('Manual review').first().waitFor();
    await shot(page, 'test-data');

    const created = (await activity()).find((a) => a.action === 'console.test_data.created' && a.target_id === sessionId);
    assert.ok(created, 'console.test_data.created recorded');
    assert.equal(created.actor_id, t.people.admin.user.id);
    assert.equal(created.mode, 'test');
    assert.equal(created.details.expected_outcome, 'review');
  });

  it('a reviewer opens it from the review queue, reads screening, evidence and timeline, adds a note, and approves it with a reason', async () => {
    const page = await person('reviewer');
    await page.goto('/review');
    const row = page.locator('tr', { hasText: sessionId });
    await row.waitFor();
    await shot(page, 'review-queue');
    await page.getByRole('link', { name: `Review ${sessionId}` }).click();
    await page.waitForURL((u) => u.pathname === `/verifications/${sessionId}`);

    const text = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
    // the screening result and its rule trace (the default template's rules: a possible watchlist match, the score)
    for (const s of ['Screening', 'Review', 'Possible watchlist match', 'watchlist_hit', 'finding.severity.medium.count', 'Document not clear', 'check.document.outcome', 'below the review threshold of 0.5']) {
      assert.ok(text.includes(s), `the page shows "${s}"`);
    }
    // the applicant's name fields as the applicant holds them
    for (const s of ['Ada', 'Augusta', 'King-Lovelace', 'ada@example.com']) assert.ok(text.includes(s), `the applicant's "${s}"`);
    // the timeline: created, then sent to manual review
    const timeline = page.locator('#timeline');
    assert.match(await timeline.innerText(), /Verification created[\s\S]*Sent to manual review[\s\S]*kyc\.session\.manual_review_requested/);
    // evidence images of the test run, through the console's authorised path; each one loads
    // the document first, then its portrait beside the selfie (a test run stores no back)
    assert.deepEqual(await page.locator('.images img').evaluateAll((els) => els.map((el) => el.getAttribute('src'))), [
      `/verifications/${sessionId}/images/front`,
      `/verifications/${sessionId}/images/portrait`,
      `/verifications/${sessionId}/images/selfie`,
    ]);
    // test-mode checks: synthetic outcomes, no reasons and no scores, and the page says so
    assert.ok(text.includes('Test-mode results are synthetic: they carry no reasons and no score.'));
    assert.equal((await imagesLoaded(page)).length, 3);

    await page.getByLabel('Add a note').fill('Called the applicant: the photo on the document is old, the face matches.');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.getByText('Your note was added to the timeline.').waitFor();
    assert.match(await page.locator('#timeline').innerText(), /Note\s+Called the applicant: the photo on the document is old, the face matches\./);

    await imagesLoaded(page);
    await page.getByLabel(/^Reason/).fill('Document, selfie and liveness agree; the watchlist hit is a namesake.');
    await page.getByLabel(/^Reason/).blur();
    await shot(page, 'verification');

    // a blank reason is refused on the form, and nothing changes
    await page.getByLabel(/^Reason/).fill('   ');
    const refused = page.waitForResponse((r) => r.url().endsWith(`/review/${sessionId}/decision`));
    await page.getByRole('button', { name: 'Approve' }).click();
    assert.equal((await refused).status(), 422);
    await page.locator('#decision .notice.error').getByText('Write the reason for your decision').waitFor();
    assert.equal((await api<{ data: { status: string } }>('GET', `/v1/sessions/${sessionId}`)).body.data.status, 'manual_review');

    await page.getByLabel(/^Reason/).fill('Document, selfie and liveness agree; the watchlist hit is a namesake.');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((u) => u.searchParams.get('decided') === 'approved');
    await page.getByText('You approved this verification').waitFor();
    assert.equal(await page.locator('#decision').count(), 0, 'no decision form on a completed verification');
    assert.match(await page.locator('#timeline').innerText(), /Completed\s+kyc\.session\.completed/);

    // the customer's receiver gets the completion, with the outcome
    const hook = await waitFor(async () => rx.received.find(completedFor(sessionId)), 30_000, 100);
    assert.equal(hook.path, `/console-review/${t.org.id}`);
    const event = JSON.parse(hook.body) as { data: { status: string; outcome: string } };
    assert.deepEqual([event.data.status, event.data.outcome], ['completed', 'approved']);
    // and the API reads the decision
    const read = await api<{ data: { status: string; outcome: string } }>('GET', `/v1/sessions/${sessionId}`);
    assert.deepEqual([read.body.data.status, read.body.data.outcome], ['completed', 'approved']);

    const decided = (await activity()).find((a) => a.action === 'console.session.decided' && a.target_id === sessionId);
    assert.ok(decided, 'console.session.decided recorded');
    assert.equal(decided.actor_email, t.people.reviewer.user.email);
    assert.equal(decided.details.outcome, 'approved');
    // the image views went through evidence as the reviewer, which logged each one
    const views = (await (await operator('us')).call(SUBJECTS.evidenceActivityList, { org_id: t.org.id, session_id: sessionId, limit: 100 }, op)).data;
    assert.ok(views.some((v) => v.action === 'kyc.idv.evidence_exported' && v.key_id === t.people.reviewer.user.id && v.outcome === 'served'), JSON.stringify(views));
  });

  it('the verification page reads on a phone', async () => {
    const page = await person('reviewer', PHONE);
    await page.goto(`/verifications/${sessionId}`);
    await imagesLoaded(page);
    assert.ok(Number(await page.evaluate('document.documentElement.scrollWidth')) <= PHONE.width, 'no sideways scrolling');
    await shot(page, 'verification-phone');
  });

  it('images: only roles with evidence access get them; a developer sees a note; a request without a session gets 404', async () => {
    const reviewer = await person('reviewer');
    const ok = await reviewer.request.get(`/verifications/${sessionId}/images/front`);
    assert.equal(ok.status(), 200);
    assert.equal(ok.headers()['content-type'], 'image/jpeg');
    assert.equal(ok.headers()['cache-control'], 'no-store');
    const bytes = await ok.body();
    assert.deepEqual([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
    assert.equal((await reviewer.request.get(`/verifications/${sessionId}/images/back`)).status(), 404, 'the back is never served');

    const developer = await person('developer');
    await developer.goto(`/verifications/${sessionId}`);
    await developer.getByText('does not include evidence images').waitFor();
    assert.equal(await developer.locator('.images img').count(), 0);
    assert.equal(await developer.locator('#decision').count(), 0);
    assert.equal(await developer.getByLabel('Add a note').count(), 0, 'a developer adds no notes');
    assert.equal((await developer.request.get(`/verifications/${sessionId}/images/front`)).status(), 404);

    const anonymous = await b.newContext({ baseURL: CONSOLE.us });
    open.push(anonymous);
    assert.equal((await anonymous.request.get(`/verifications/${sessionId}/images/front`)).status(), 404);
  });

  it('a reviewer gets the 403 page on API keys and webhooks', async () => {
    const page = await person('reviewer');
    for (const path of ['/keys', '/webhooks']) {
      const res = await page.goto(path);
      assert.equal(res?.status(), 403, path);
      await page.getByText('Not available to your role').waitFor();
    }
    const nav = await page.locator('nav.nav').innerText();
    assert.ok(!nav.includes('API keys') && !nav.includes('Webhooks') && !nav.includes('Test data'), nav);
  });

  it("another organization's live verification is a 404 page, in live mode and in test mode", async () => {
    const other = await account('us', 'live');
    const created = await createSession(other.c, { applicant_id: await newApplicant(other.c), workflow_template_id: await newTemplate(other.c) });
    assert.equal(created.status, 201, created.text);
    const theirs = created.body.data.id;
    const page = await person('reviewer');
    await switchMode(page, 'live');
    for (const mode of ['live', 'test'] as const) {
      if (mode === 'test') await switchMode(page, 'test');
      const res = await page.goto(`/verifications/${theirs}`);
      assert.equal(res?.status(), 404, mode);
      await page.getByText('There is nothing here for your organization in this mode.').waitFor();
      assert.equal((await page.content()).includes(other.org.id), false);
      assert.equal((await page.request.get(`/verifications/${theirs}/images/front`)).status(), 404);
    }
    await switchMode(page, 'live');
    await page.goto('/verifications');
    assert.equal((await page.content()).includes(theirs), false);
    await page.getByText('No live verifications yet').waitFor();
  });

  it('the verifications list filters by status and applicant', async () => {
    const page = await person('admin');
    await page.goto('/verifications');
    await page.locator('tr', { hasText: sessionId }).getByText('Approved').waitFor();
    await page.getByLabel('Status').selectOption('manual_review');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No verifications match these filters').waitFor();
    await page.getByRole('link', { name: 'Clear filters' }).click();
    await page.locator('tr', { hasText: sessionId }).getByRole('link', { name: /^app_/ }).click();
    assert.match(page.url(), /applicant_id=app_/);
    await page.locator('tr', { hasText: sessionId }).waitFor();
    await page.goto('/verifications');
    await shot(page, 'verifications');
  });

  it('an admin purges all test data: the counts are shown and the verification is gone', async () => {
    const page = await person('admin');
    await page.goto('/test-data');
    await page.getByLabel('Type PURGE to confirm').fill('PURGE');
    await page.getByRole('button', { name: 'Purge test data' }).click();
    await page.getByRole('heading', { name: 'Test data purged' }).waitFor();
    const result = await page.locator('.purge-result').innerText();
    for (const service of ['sessions', 'evidence', 'webhook-delivery', 'id-scan', 'screening', 'applicants']) assert.ok(result.includes(service), service);
    await shot(page, 'purge');

    await page.goto('/verifications');
    await page.getByText('No test verifications yet').waitFor();
    assert.equal((await api('GET', `/v1/sessions/${sessionId}`)).status, 404);
    const purged = (await activity()).find((a) => a.action === 'console.test_data.purged');
    assert.ok(purged, 'console.test_data.purged recorded');
    assert.equal(purged.details.complete, true);
    assert.ok(Number(purged.details['sessions.sessions']) >= 1, JSON.stringify(purged.details));
  });
});
