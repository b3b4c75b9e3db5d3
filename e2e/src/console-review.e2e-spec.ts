/**
 * The console's verification work (docs/console.md: Verifications, Review queue, Test data), in headless Chromium
 * against the us stack: an admin makes a test verification with the Expected outcome "Needs review"; a reviewer
 * finds it in the review queue, reads its screening, evidence images and timeline, adds a note and approves it
 * with a reason, and the organization's receiver gets `kyc.session.completed`; roles see what they may; another
 * organization's verification is a 404; a live verification's watchlist hits are shown beside the document's data and
 * each is cleared or confirmed with a reason; the purge empties test mode.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS, type ConsoleActivityEntry } from '@verity/contracts';
import { REPO_ROOT } from '@verity/stack';
import { startWebhookReceiver, testTls, waitFor, type ReceivedWebhook, type WebhookReceiver } from '@verity/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { accessibilityProblems, browser as launchBrowser, CONSOLE, LAPTOP, LAYOUT_PROBLEMS, PHONE, shot, signedIn, switchMode, team, type Team } from './console-support.js';
import { captureClient, ok, passportOf } from './capture-support.js';
import { client, closeOperators, createKey, operator, rows } from './support.js';
import { account, createSession, LIVE_WALLET, newApplicant, newTemplate, waitStatus, type Client } from './sessions-support.js';

const op = { principal: null, requestId: 'req_e2e_console_review' };
/** The layout test's screenshots of every page at both widths (not committed). */
const LAYOUT_SHOTS = path.join(REPO_ROOT, 'e2e-screenshots', 'console-layout');

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
    // the applicant by name, family name first, with their id
    assert.match((await row.locator('.applicant-cell').innerText()).replace(/\s+/g, ' '), /King-Lovelace, Ada Augusta app_/);
    // found by a word of the name (in any case, a hyphenated family name's second half too); another name finds nothing
    await page.getByLabel('Name').fill('lovelace');
    await page.getByRole('button', { name: 'Filter' }).click();
    await row.waitFor();
    assert.equal(new URL(page.url()).searchParams.get('q'), 'lovelace');
    await page.goto('/review?q=Lehtinen');
    await page.getByText('Nothing waiting matches these filters').waitFor();
    await page.goto('/review');
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

  it('a live verification with watchlist hits: each hit beside the document, a reason missing refused, one cleared and one confirmed with reasons; stored, shown, logged', async () => {
    // a live verification of the organization (document and watchlist), read from a photographed passport of Jane Doe;
    // the region's shared stack has no list loaded (other tests rely on that), so its run ends the check error and the
    // hits a run against a loaded list would store are then written into the run's findings as a live run writes them
    // (apps/sessions/src/runs/live-run.ts watchlistFindings; the screening itself is tested in apps/screening and apps/sessions)
    const key = await createKey('us', t.org.id, { mode: 'live' });
    await (await operator('us')).call(SUBJECTS.accountsBillingSet, { org_id: t.org.id, wallet_balance: LIVE_WALLET }, op);
    const live = client('us', key.key);
    const created = await createSession(live, { applicant_id: await newApplicant(live), workflow_template_id: await newTemplate(live, { checks: ['document', 'watchlist'], photo_upload: true }) });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const capture = captureClient('us', created.body.data.client_secret!);
    ok(await capture.put('front', (await passportOf(7)).photos.front));
    ok(await capture.submit({ acquisition: 'upload' }), 202);
    const done = await waitStatus(live, id, ['manual_review'], 30_000);
    const holder = done.idv!.holder!;
    const exact = { name: 1, pairs: [{ query: 'JANE', listed: 'JANE', how: 'exact', similarity: 1 }, { query: 'DOE', listed: 'DOE', how: 'exact', similarity: 1 }], unpaired: { query: 0, listed: 0 }, reordered: true, date_of_birth: 'exact', nationality: 'match' };
    const near = { name: 0.87, pairs: [{ query: 'JANE', listed: 'DZHEIN', how: 'phonetic', similarity: 0.88 }, { query: 'DOE', listed: 'DOU', how: 'spelling', similarity: 0.82 }], unpaired: { query: 0, listed: 1 }, reordered: false, date_of_birth: 'year', nationality: 'unknown' };
    const findings = [
      { id: `fnd_${id.slice(4)}_l1`, subjectType: 'sanction', severity: 'medium', sourceAuthority: 'ofac-sdn', findingType: 'watchlist_match', evidence: { matchScore: 1, listId: 'ofac-sdn', entityId: '36117', matchedName: 'DOE, Jane', features: exact } },
      { id: `fnd_${id.slice(4)}_l2`, subjectType: 'sanction', severity: 'medium', sourceAuthority: 'un-sc', findingType: 'watchlist_match', evidence: { matchScore: 0.842, listId: 'un-sc', entityId: '6908555', matchedName: 'Джейн Доу Петровна', features: near } },
    ];
    await rows('us', 'UPDATE sessions.runs SET findings = $2::jsonb WHERE id = (SELECT max(id) FROM sessions.runs WHERE session_id = $1)', [id, JSON.stringify(findings)]);
    await rows(
      'us',
      `UPDATE sessions.sessions SET checks = (SELECT jsonb_agg(CASE WHEN c->>'type' = 'watchlist' THEN c || '{"outcome": "review", "reasons": ["watchlist_hit"]}'::jsonb ELSE c END ORDER BY i)
         FROM jsonb_array_elements(checks) WITH ORDINALITY AS e(c, i)) WHERE id = $1`,
      [id],
    );
    const decisions = () => rows<{ finding_id: string; outcome: string; reason: string; decided_by: string; decided_by_email: string }>('us', 'SELECT * FROM sessions.watchlist_decisions WHERE session_id = $1 ORDER BY finding_id', [id]);

    const page = await person('reviewer');
    await switchMode(page, 'live');
    await page.goto(`/review`);
    await page.getByRole('link', { name: `Review ${id}` }).click();
    const panel = page.locator('#watchlist');
    await panel.getByRole('heading', { name: 'Watchlist hits' }).waitFor();
    // each hit: list, listed name, entity id, score and the features, beside the document's names, date of birth and nationality
    const first = panel.locator('#hit-1');
    const firstText = (await first.innerText()).replace(/\s+/g, ' ');
    for (const x of ['ofac-sdn', '36117', 'DOE, Jane', '1.000', 'in another order', 'JANE ↔ JANE', 'exact', 'the same day', 'one of the listed', holder.family_name, holder.date_of_birth]) {
      assert.ok(firstText.includes(x), `hit 1 shows "${x}": ${firstText}`);
    }
    const secondText = (await panel.locator('#hit-2').innerText()).replace(/\s+/g, ' ');
    for (const x of ['un-sc', '6908555', 'Джейн Доу Петровна', '0.842', 'JANE ↔ DZHEIN', 'phonetic', 'DOE ↔ DOU', 'spelling', 'the same year', '0 of the person\'s and 1 of the listed words unpaired']) {
      assert.ok(secondText.includes(x), `hit 2 shows "${x}": ${secondText}`);
    }
    assert.match(await first.locator('tr', { hasText: 'Date of birth' }).innerText(), new RegExp(holder.date_of_birth));
    assert.match(await panel.locator('.hit-tally').innerText(), /2\s+open · 0\s+cleared · 0\s+confirmed/);
    await page.locator('#decision').getByText('Watchlist: 2 hits, 2 open').waitFor();

    // a reason missing: the form's error, nothing stored
    await page.getByLabel('Reason for hit 2').fill('   ');
    const refused = page.waitForResponse((r) => r.url().includes(`/review/${id}/watchlist/`));
    await page.getByRole('button', { name: 'Clear hit 2: not this person' }).click();
    assert.equal((await refused).status(), 422);
    await panel.locator('#hit-2 .notice.error').getByText('Write the reason for your decision on this hit').waitFor();
    assert.deepEqual(await decisions(), []);

    // cleared with a reason: stored, shown (who, when, why), in the timeline and the activity log
    await page.getByLabel('Reason for hit 2').fill('Born 1990 like the listed person, but the listed patronymic and the photo on file are another woman.');
    await page.getByRole('button', { name: 'Clear hit 2: not this person' }).click();
    await page.waitForURL((u) => u.searchParams.get('hit') === 'cleared');
    await panel.getByText('You cleared the hit.').waitFor();
    const hit2 = panel.locator('#hit-2');
    await hit2.getByText('Cleared: not this person').waitFor();
    assert.match(await hit2.innerText(), new RegExp(`by ${t.people.reviewer.user.email.replace(/\./g, '\\.')}[\\s\\S]*UTC[\\s\\S]*Reason: Born 1990 like the listed person`));
    assert.equal(await hit2.locator('form').count(), 0, 'a decided hit has no form');
    assert.match(await page.locator('#timeline').innerText(), /Watchlist hit cleared\s+Джейн Доу Петровна · un-sc 6908555 · by \S+\s+Born 1990 like the listed person/);

    // confirmed: the decision panel says so; the verification's own decision is still to be made
    await page.getByLabel('Reason for hit 1').fill('Same names, date of birth and nationality as the SDN entry; the document photo matches the listing.');
    await page.getByRole('button', { name: 'Confirm hit 1: this person' }).click();
    await page.waitForURL((u) => u.searchParams.get('hit') === 'confirmed');
    await panel.locator('#hit-1').getByText('Confirmed: this person').waitFor();
    assert.match(await panel.locator('.hit-tally').innerText(), /0\s+open · 1\s+cleared · 1\s+confirmed/);
    await page.locator('#decision').getByText('a confirmed hit is a listed person').waitFor();
    assert.equal(await page.locator('#decision textarea').inputValue(), '', 'nothing is pre-filled or pre-selected');
    await page.locator('#watchlist').scrollIntoViewIfNeeded();
    await shot(page, 'watchlist-hits');

    const stored = await decisions();
    assert.deepEqual(
      stored.map((d) => [d.finding_id, d.outcome, d.decided_by, d.decided_by_email]),
      [
        [`fnd_${id.slice(4)}_l1`, 'confirmed', t.people.reviewer.user.id, t.people.reviewer.user.email],
        [`fnd_${id.slice(4)}_l2`, 'cleared', t.people.reviewer.user.id, t.people.reviewer.user.email],
      ],
    );
    // a hit is decided once: the same post again changes nothing
    const again = await page.request.post(`/review/${id}/watchlist/fnd_${id.slice(4)}_l2`, {
      form: { _csrf: (await page.locator('input[name="_csrf"]').first().getAttribute('value'))!, outcome: 'confirmed', reason: 'changed my mind' },
      headers: { origin: CONSOLE.us },
    });
    assert.equal(again.status(), 409);
    assert.deepEqual(await decisions(), stored);
    assert.equal((await live<{ data: { status: string } }>('GET', `/v1/sessions/${id}`)).body.data.status, 'manual_review', 'a decision on a hit leaves the verification to the review');

    const logged = (await activity()).filter((a) => a.target_id === id && a.action.startsWith('console.watchlist_hit.'));
    assert.deepEqual(
      logged.map((a) => [a.action, a.actor_email, a.mode, a.details.list, a.details.entity_id]).sort(),
      [
        ['console.watchlist_hit.cleared', t.people.reviewer.user.email, 'live', 'un-sc', '6908555'],
        ['console.watchlist_hit.confirmed', t.people.reviewer.user.email, 'live', 'ofac-sdn', '36117'],
      ],
    );

    // a developer sees the hits and the decisions, and no form
    const developer = await person('developer');
    await switchMode(developer, 'live');
    await developer.goto(`/verifications/${id}`);
    await developer.locator('#hit-1').getByText('Confirmed: this person').waitFor();
    assert.equal(await developer.locator('#watchlist form').count(), 0);
  });

  it('a link to a live verification opened in test mode says so and offers the switch, which opens it; the live lists show the applicant and the document holder', async () => {
    // a live run whose applicant is not the person on the passport (Jane Doe): it waits for review
    const key = await createKey('us', t.org.id, { mode: 'live' });
    const live = client('us', key.key);
    const applicant = await newApplicant(live, { family_name: 'Lehtinen', given_names: ['Aino', 'Maria'], email: 'aino@example.com' });
    const created = await createSession(live, { applicant_id: applicant, workflow_template_id: await newTemplate(live, { checks: ['document'], photo_upload: true }) });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const capture = captureClient('us', created.body.data.client_secret!);
    ok(await capture.put('front', (await passportOf(7)).photos.front));
    ok(await capture.submit({ acquisition: 'upload' }), 202);
    await waitStatus(live, id, ['manual_review'], 30_000);

    const page = await person('reviewer');
    await switchMode(page, 'test');
    const res = await page.goto(`/verifications/${id}`);
    assert.equal(res?.status(), 409);
    await page.getByText('This verification is in live mode').waitFor();
    assert.equal((await page.content()).includes('Lehtinen'), false, 'nothing of the verification before the switch');
    await shot(page, 'verification-other-mode');
    await page.getByRole('button', { name: 'Switch to live mode and open it' }).click();
    await page.waitForURL((u) => u.pathname === `/verifications/${id}`);
    await page.waitForSelector('.mode-badge[data-mode="live"]');
    await page.getByText('Applicant and document').first().waitFor();

    // the live queue: the applicant's name and the name the document gave; a search by the document's name finds
    // nothing (names are searched among applicants), by the applicant's it does
    await page.goto('/review');
    const row = page.locator('tr', { hasText: id });
    const cell = (await row.locator('.applicant-cell').innerText()).replace(/\s+/g, ' ');
    assert.match(cell, /Lehtinen, Aino Maria app_\S+ Document: DOE, JANE/i);
    await page.goto('/review?q=aino%20lehtinen');
    await row.waitFor();
    await page.goto('/review?q=doe');
    assert.equal(await row.count(), 0);
    await page.goto('/verifications?q=lehtinen&check=document');
    await row.waitFor();
    await shot(page, 'verifications-live');
  });

  it('Billing: the wallet with its currency and minor units, the price per check and per live workflow, the live spend per day, a low balance said', async () => {
    // two live verifications so far: document and watchlist (150 + 100), and document alone (150), of LIVE_WALLET
    const page = await person('owner');
    await page.goto('/billing');
    const text = () => page.locator('main').innerText().then((t) => t.replace(/\s+/g, ' '));
    const balance = LIVE_WALLET - 400;
    assert.equal((await page.getByTestId('balance').innerText()).replace(/\s+/g, ' '), `USD ${(balance / 100).toLocaleString('en', { minimumFractionDigits: 2 })} ${balance.toLocaleString('en')} minor units`);
    const shown = await text();
    for (const s of ['Amounts are in USD', '100 minor units make one USD', 'Document USD 1.50 150 minor units', 'Face match USD 1.00 100 minor units', 'Liveness USD 1.00 100 minor units']) assert.ok(shown.includes(s), `"${s}" in ${shown}`);
    const today = new Date().toISOString().slice(0, 10);
    assert.ok(shown.includes(`${today} 2 USD 4.00 400 minor units`), shown);
    assert.ok(shown.includes('2 verifications, USD 4.00'), shown);
    assert.equal(await page.locator('.notice').count(), 0, 'no warning with a full wallet');
    await shot(page, 'billing');

    // low: fewer than ten of the dearest live workflow (250); then short of the cheapest (150): refused, and said so
    const ops = await operator('us');
    await ops.call(SUBJECTS.accountsBillingSet, { org_id: t.org.id, wallet_balance: 2_000 }, op);
    await page.reload();
    await page.getByText('Low balance').waitFor();
    assert.match(await text(), /it covers 8 more verifications of .+ \(USD 2\.50 250 minor units each\)/);
    await ops.call(SUBJECTS.accountsBillingSet, { org_id: t.org.id, wallet_balance: 100 }, op);
    await page.reload();
    await page.getByText('The balance does not cover a live verification').waitFor();
    await ops.call(SUBJECTS.accountsBillingSet, { org_id: t.org.id, wallet_balance: LIVE_WALLET }, op);

    // the operator reads the same figures with their unit
    const org = await ops.call(SUBJECTS.accountsOrgGet, { org_id: t.org.id }, op);
    assert.deepEqual([org.pricing.currency, org.pricing.minor_unit_digits, org.pricing.check_prices.document], ['USD', 2, 150]);
    // not a reviewer's or a developer's
    for (const role of ['reviewer', 'developer'] as const) assert.equal((await (await person(role)).goto('/billing'))?.status(), 403, role);
  });

  it('the verifications list filters by name, status, check, result, day and applicant', async () => {
    const page = await person('admin');
    await page.goto('/verifications');
    await page.locator('tr', { hasText: sessionId }).getByText('Approved').waitFor();
    const today = new Date().toISOString().slice(0, 10);
    const filtered = async (query: string, shown: boolean) => {
      await page.goto(`/verifications?${query}`);
      if (shown) await page.locator('tr', { hasText: sessionId }).waitFor();
      else await page.getByText('No verifications match these filters').waitFor();
    };
    await filtered('q=ada+king', true);
    await filtered('q=augustus', false);
    await filtered('check=document', true);
    await filtered('check=credit_history', false);
    await filtered(`from=${today}&to=${today}`, true);
    await filtered('from=2020-01-01&to=2020-01-31', false);
    const bad = await page.goto('/verifications?from=2020-02-31');
    assert.equal(bad?.status(), 422);
    await page.getByText('From is a day (YYYY-MM-DD).').waitFor();
    await page.goto('/verifications');
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

  it('every page at 390 px and 1280 px wide: nothing wider than the window, no two boxes of text or controls over each other (measured in the page), no serious or critical axe-core violation', async () => {
    const owner = await person('owner');
    const reviewer = await person('reviewer');
    const anonymous = await b.newContext({ baseURL: CONSOLE.us });
    open.push(anonymous);
    const signedOut = await anonymous.newPage();
    const pages: Array<[Page, string, string]> = [
      [signedOut, '/login', 'login'],
      [owner, '/verifications', 'verifications'],
      [owner, `/verifications/${sessionId}`, 'verification'],
      [owner, '/review', 'review'],
      [owner, '/keys', 'keys'],
      [owner, '/webhooks', 'webhooks'],
      [owner, '/webhooks/deliveries', 'deliveries'],
      [owner, '/test-data', 'test-data'],
      [owner, '/logs', 'logs'],
      [owner, '/usage', 'usage'],
      [owner, '/billing', 'billing'],
      [owner, '/users', 'team'],
      [owner, '/account', 'account'],
      [owner, '/account/two-factor', 'two-factor'],
      [owner, '/verifications/ses_0000000000000000000000', 'not-found'],
      [owner, '/no-such-page', 'no-such-page'],
      [reviewer, '/keys', 'forbidden'],
    ];
    const problems: string[] = [];
    mkdirSync(LAYOUT_SHOTS, { recursive: true });
    for (const viewport of [PHONE, LAPTOP]) {
      for (const [page, url, name] of pages) {
        await page.setViewportSize(viewport);
        await page.goto(url);
        for (const p of await page.evaluate<string[]>(LAYOUT_PROBLEMS)) problems.push(`${viewport.width} ${name}: ${p}`);
        // and axe-core's accessibility rules, once per page (the wide window)
        if (viewport === LAPTOP) for (const p of await accessibilityProblems(page)) problems.push(`axe ${name}: ${p}`);
        // looked at by people, not compared: kept out of the repository (e2e-screenshots/console-layout/)
        await page.screenshot({ path: path.join(LAYOUT_SHOTS, `${name}-${viewport.width}.png`), fullPage: true });
      }
    }
    assert.deepEqual(problems, []);
    // every page names the console's icon, and the address a browser asks for by itself answers too
    assert.equal(await owner.locator('link[rel="icon"]').getAttribute('href'), '/assets/favicon.svg');
    for (const icon of ['/assets/favicon.svg', '/favicon.ico']) {
      const res = await owner.request.get(icon);
      assert.deepEqual([res.status(), res.headers()['content-type']], [200, 'image/svg+xml'], icon);
    }
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
