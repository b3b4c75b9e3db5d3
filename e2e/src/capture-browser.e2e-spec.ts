/**
 * The live capture flow in a real browser, end to end (docs/capture.md):
 * headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core) opens a live session's link on the
 * real us stack, walks the hosted page as a person would, feeds a photographed passport and a selfie through
 * Chromium's fake camera (or the page's file picker), submits, and the test then sees through the API what the
 * region decided: the status and outcome, the document's names, the acquisition, the three images served, and
 * the signed webhook at an HTTPS receiver on loopback (certificate trusted by the services through
 * NODE_EXTRA_CA_CERTS; the stack runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true).
 *
 * The fake camera plays an MJPEG file (concatenated JPEG frames) that Chromium opens anew at each getUserMedia
 * once the previous track is stopped: the passport goes in before the document step, the face once the passport
 * photo is taken and before it is accepted (accepting it starts the selfie's camera).
 *
 * The workflows here compare faces without `liveness`: the liveness challenge, walked with a video camera, is
 * capture-challenge-browser.e2e-spec.ts.
 *
 * Screenshots of each step land in e2e-screenshots/capture-flow/ (ignored by git).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { SUBJECTS, type Session, type SessionEventData, type WebhookSubscriptionWithSecret } from '@verity/contracts';
import { selfie as selfieOf } from '@verity/specimens';
import { REPO_ROOT } from '@verity/stack';
import { imageCorrelation, launchChromium, startWebhookReceiver, testTls, waitFor, type ReceivedWebhook, type WebhookReceiver } from '@verity/testing';
import { passportOf } from './capture-support.js';
import { account, createSession, newApplicant, newTemplate, waitStatus, type Client } from './sessions-support.js';
import { clientIp, closeOperators, E2E, operator } from './support.js';

const SHOTS = path.join(REPO_ROOT, 'e2e-screenshots', 'capture-flow');
/** A phone held upright; the document viewfinder is 4:3, so a 4:3 camera frame fills it exactly. */
const PHONE = { width: 390, height: 844 };
/** The camera frame of the document steps: what the page asks for (width 1920), at 4:3. */
const FRAME = { width: 1920, height: 1440 };
/** A live run reaches its resting status within seconds; one reader thread per region here, shared with other files. */
const RUN_MS = 30_000;
const EVENTS = ['kyc.session.completed', 'kyc.session.manual_review_requested'];
const OPERATOR = { principal: null, requestId: 'req_e2e_capture_browser' };

let browser: Browser;
let rx: WebhookReceiver;
let tmp: string;
let cameraFile: string;

before(async () => {
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'verity-capture-flow-'));
  // Chromium tells MJPEG from Y4M by the extension
  cameraFile = path.join(tmp, 'camera.mjpeg');
  writeFileSync(cameraFile, await sharp({ create: { width: FRAME.width, height: FRAME.height, channels: 3, background: '#404040' } }).jpeg().toBuffer());
  rx = await startWebhookReceiver({ tls: testTls() });
  browser = await launchChromium(cameraFile);
});

after(async () => {
  await browser?.close();
  await rx?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  await closeOperators();
});

// ---------------------------------------------------------------------------------------------------------------
// Set-up through the API

interface Live {
  c: Client;
  key: string;
  session: Session;
  subscription: WebhookSubscriptionWithSecret;
}

/**
 * A live organization with a key and a wallet, a webhook subscription of its live mode at the receiver, an
 * applicant, a template of `template` and one live session: what a business does before sending the link.
 */
async function liveSession(template: Record<string, unknown>): Promise<Live> {
  const { org, key, c } = await account('us', 'live');
  const rpc = await operator('us');
  // live routes may require a wallet balance; funding it before the key's first call leaves no stale cache
  await rpc.call(SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: 1_000_000 }, OPERATOR);
  const subscription = await rpc.call(SUBJECTS.webhookSubscriptionCreate, { org_id: org.id, mode: 'live', url: `${rx.url}/capture-flow/${org.id}`, event_types: EVENTS }, OPERATOR);
  const applicantId = await newApplicant(c);
  const templateId = await newTemplate(c, template);
  const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId });
  assert.equal(res.status, 201, res.text);
  const session = res.body.data;
  assert.match(session.url ?? '', /\/verify\/vcs_[A-Za-z0-9]{43}$/);
  assert.equal(new URL(session.url!).origin, new URL(E2E.url.us).origin, 'the link points at the region that made it');
  return { c, key, session, subscription };
}

// ---------------------------------------------------------------------------------------------------------------
// The fake camera and the images

/** What the fake camera shows from the next getUserMedia on: a few frames of one photo, swapped in atomically. */
function camera(mjpeg: Buffer): void {
  writeFileSync(`${cameraFile}.tmp`, mjpeg);
  renameSync(`${cameraFile}.tmp`, cameraFile);
}

/** An MJPEG stream of one still: the photo scaled to `size` (even sides, as the video path wants), three frames. */
async function mjpegOf(jpeg: Buffer, size?: { width: number; height: number }): Promise<Buffer> {
  const m = await sharp(jpeg).metadata();
  const { width, height } = size ?? { width: m.width - (m.width % 2), height: m.height - (m.height % 2) };
  const frame = await sharp(jpeg).resize(width, height, { fit: 'fill' }).jpeg({ quality: 92 }).toBuffer();
  return Buffer.concat([frame, frame, frame]);
}

// ---------------------------------------------------------------------------------------------------------------
// The page, as a person uses it

interface Visit {
  page: Page;
  /** CSP violations and script errors seen by the page. */
  problems: string[];
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Opens the link in a fresh browser profile (its own cookies, its own client address behind the trusted proxy). */
async function visit(url: string, run: string): Promise<Visit> {
  const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, reducedMotion: 'reduce', extraHTTPHeaders: { 'x-forwarded-for': clientIp() } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  const res = await page.goto(url);
  assert.equal(res?.status(), 200, `the link answers 200 (got ${res?.status()})`);
  return {
    page,
    problems,
    shot: (name) => page.screenshot({ path: path.join(SHOTS, `${run}-${name}.png`), fullPage: true }).then(() => undefined),
    close: () => context.close(),
  };
}

/** Waits until the visible screen's heading reads `text` (hidden screens have no role). */
async function heading(page: Page, text: string, timeout = 15_000): Promise<void> {
  await page.getByRole('heading', { level: 1, name: text, exact: true }).waitFor({ timeout });
}

async function cameraReady(page: Page): Promise<void> {
  await page.locator('#shoot-button:not([disabled])').waitFor({ state: 'visible', timeout: 15_000 });
}

/** Takes the photo and answers what the page's instant check said about it. */
async function takePhoto(page: Page): Promise<string> {
  await cameraReady(page);
  await page.getByRole('button', { name: 'Take photo' }).click();
  await heading(page, 'Check your photo');
  return (await page.locator('#review-feedback').textContent()) ?? '';
}

async function chooseFile(page: Page, jpeg: Buffer, name: string): Promise<string> {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Choose a photo instead' }).click()]);
  await chooser.setFiles({ name, mimeType: 'image/jpeg', buffer: jpeg });
  await heading(page, 'Check your photo');
  return (await page.locator('#review-feedback').textContent()) ?? '';
}

const DOCUMENT_OK = 'Make sure all the text is sharp and easy to read.';
const FACE_OK = 'Make sure your whole face is clear and easy to see.';

/**
 * Consent, passport, the photo page, the selfie, send, done; each photo by camera or chosen from files. The
 * camera shows `document` until the passport photo is taken, then `face`.
 */
async function walk(v: Visit, how: { document: 'camera' | Buffer; face: 'camera' | Buffer }, mjpeg: { document: Buffer; face: Buffer }): Promise<void> {
  const { page } = v;
  camera(mjpeg.document);
  await heading(page, 'Let’s check your identity');
  await v.shot('01-consent');
  await page.getByRole('button', { name: 'I agree, start' }).click();

  await heading(page, 'Which document will you use?');
  await v.shot('02-document-type');
  await page.getByRole('button', { name: 'Passport' }).click();

  await heading(page, 'Photo page of your passport');
  await cameraReady(page);
  assert.equal(await page.locator('#progress').textContent(), 'Photo 1 of 2');
  await v.shot('03-passport-camera');
  const documentFeedback = how.document === 'camera' ? await takePhoto(page) : await chooseFile(page, how.document, 'passport.jpg');
  await v.shot('04-passport-review');
  // a sharp, lit passport filling the guide: no warning
  assert.equal(documentFeedback, DOCUMENT_OK);
  // the passport's track is stopped; accepting the photo starts the selfie's camera, which reads the new file
  camera(mjpeg.face);
  await page.getByRole('button', { name: 'Use this photo' }).click();

  await heading(page, 'Photo of your face');
  assert.equal(await page.locator('#progress').textContent(), 'Photo 2 of 2');
  // the face guide enables the shutter once the face is inside the oval; a chosen photo does not wait for it (the
  // upload run's camera shows Collins's specimen selfie, whose face sits high in the oval and is on the small side)
  if (how.face === 'camera') await cameraReady(page);
  else {
    await page.locator('#face-guidance', { hasText: /^(Move your face into the oval|Move closer)$/ }).waitFor({ timeout: 20_000 });
    assert.equal(await page.locator('#shoot-button').isDisabled(), true);
  }
  await v.shot('05-selfie-camera');
  const faceFeedback = how.face === 'camera' ? await takePhoto(page) : await chooseFile(page, how.face, 'me.jpg');
  await v.shot('06-selfie-review');
  assert.equal(faceFeedback, FACE_OK);
  await page.getByRole('button', { name: 'Use this photo' }).click();

  await heading(page, 'You’re ready to send');
  await v.shot('07-ready-to-send');
  await page.getByRole('button', { name: 'Send my photos' }).click();
  await heading(page, 'Thank you, you’re done');
  await v.shot('08-done');
  assert.deepEqual(v.problems, [], 'no CSP violation, no script error');
}

// ---------------------------------------------------------------------------------------------------------------
// What the business sees

/** The session once it rests, polled through the API. */
function rested(live: Live): Promise<Session> {
  return waitStatus(live.c, live.session.id, ['completed', 'manual_review', 'errored'], RUN_MS);
}

/** The images of the session as `GET /v1/sessions/{id}/idv-image/{artifact}` serves them: JPEG, each. */
async function served(live: Live): Promise<Record<'portrait' | 'front' | 'selfie', Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const artifact of ['portrait', 'front', 'selfie']) {
    const res = await fetch(`${E2E.url.us}/v1/sessions/${live.session.id}/idv-image/${artifact}`, { headers: { authorization: `Bearer ${live.key}`, 'x-forwarded-for': clientIp() } });
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(res.status, 200, `${artifact}: ${bytes.toString('utf8', 0, 200)}`);
    assert.equal(res.headers.get('content-type'), 'image/jpeg', artifact);
    assert.equal((await sharp(bytes).metadata()).format, 'jpeg', artifact);
    out[artifact] = bytes;
  }
  return out as Record<'portrait' | 'front' | 'selfie', Buffer>;
}

/** The session's webhook, delivered to the receiver and verified with the subscription's secret (Standard Webhooks). */
async function webhookOf(live: Live): Promise<{ type: string; data: SessionEventData; request: ReceivedWebhook }> {
  const request = await waitFor(async () => rx.received.find((r) => r.path === `/capture-flow/${live.subscription.org_id}` && r.body.includes(live.session.id)), 10_000);
  const body = new Webhook(live.subscription.secret).verify(request.body, request.headers) as { type: string; data: SessionEventData };
  assert.equal(body.data.sessionId, live.session.id);
  assert.match(request.headers['webhook-id'] ?? '', /^evt_/);
  return { ...body, request };
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * A live session approved on a passport and its holder's selfie: every check passed, the document's names and
 * fields read, the acquisition recorded, the three images available, and the link gone with the status.
 */
function assertApproved(done: Session, photos: { expected: { holder: unknown; document: unknown } }, acquisition: 'camera' | 'upload'): void {
  assert.deepEqual([done.status, done.outcome], ['completed', 'approved'], JSON.stringify(done));
  assert.deepEqual(
    done.checks.map((c) => [c.type, c.outcome, c.reasons]),
    [
      ['document', 'pass', []],
      ['face_match', 'pass', []],
    ],
  );
  assert.deepEqual(done.idv?.holder, photos.expected.holder);
  assert.deepEqual(done.idv?.document, photos.expected.document);
  assert.equal(done.idv?.capture_acquisition, acquisition);
  assert.deepEqual(done.idv?.available_images, ['portrait', 'front', 'selfie']);
  assert.deepEqual([done.url, done.client_secret, done.expires_at], [null, null, null]);
}

describe('the live capture flow in Chromium, against the real stack', () => {
  it('camera: a passport and its holder’s selfie through the fake camera → completed/approved with the document’s names, camera, three images, the signed webhook', async (t) => {
    const t0 = Date.now();
    const live = await liveSession({ checks: ['document', 'face_match'] });
    const { photos, selfie } = await passportOf(1);
    const mjpeg = { document: await mjpegOf(photos.front, FRAME), face: await mjpegOf(selfie) };
    const v = await visit(live.session.url!, 'camera');
    await walk(v, { document: 'camera', face: 'camera' }, mjpeg);
    const walked = Date.now();

    const done = await rested(live);
    const decided = Date.now();
    assertApproved(done, photos, 'camera');

    const images = await served(live);
    // the camera's full frame reached the region, and each step photographed what the camera showed for it
    const front = await sharp(images.front).metadata();
    assert.deepEqual([front.width, front.height], [FRAME.width, FRAME.height]);
    const likeness = { front: await imageCorrelation(images.front, photos.front), selfie: await imageCorrelation(images.selfie, selfie), swapped: await imageCorrelation(images.selfie, photos.front) };
    assert.ok(likeness.front > 0.9, `the front is the passport: ${likeness.front}`);
    assert.ok(likeness.selfie > 0.9, `the selfie is the face: ${likeness.selfie}`);
    assert.ok(likeness.swapped < 0.5, `the selfie is not the passport: ${likeness.swapped}`);

    const hook = await webhookOf(live);
    assert.equal(hook.type, 'kyc.session.completed');
    assert.deepEqual(hook.data, { sessionId: done.id, status: 'completed', outcome: 'approved', occurredAt: done.updated_at, checks: done.checks });

    // the link is used: opening it again says so
    const page = await v.page.goto(live.session.url!);
    assert.equal(page?.status(), 410);
    await heading(v.page, 'This verification is already done');
    await v.shot('09-link-used');
    await v.close();
    t.diagnostic(`camera run: walk ${walked - t0} ms, decision ${decided - walked} ms, total ${Date.now() - t0} ms; likeness ${JSON.stringify(likeness)}`);
  });

  it('upload: the passport and the selfie chosen from files → completed/approved, acquisition upload', async (t) => {
    const t0 = Date.now();
    const live = await liveSession({ checks: ['document', 'face_match'], photo_upload: true });
    const { photos, selfie } = await passportOf(4);
    // the camera still starts on each step; the applicant picks files instead
    const mjpeg = { document: await mjpegOf(photos.front, FRAME), face: await mjpegOf(selfie) };
    const v = await visit(live.session.url!, 'upload');
    await walk(v, { document: photos.front, face: selfie }, mjpeg);
    await v.close();
    const walked = Date.now();

    const done = await rested(live);
    const decided = Date.now();
    assertApproved(done, photos, 'upload');
    const images = await served(live);
    // the chosen 2400 × 1800 photo, scaled by the page to 2048 px a side
    const front = await sharp(images.front).metadata();
    assert.deepEqual([front.width, front.height], [2048, 1536]);
    const likeness = await imageCorrelation(images.selfie, selfie);
    assert.ok(likeness > 0.9, `the selfie is the chosen face: ${likeness}`);

    const hook = await webhookOf(live);
    assert.equal(hook.type, 'kyc.session.completed');
    assert.deepEqual(hook.data, { sessionId: done.id, status: 'completed', outcome: 'approved', occurredAt: done.updated_at, checks: done.checks });
    t.diagnostic(`upload run: walk ${walked - t0} ms, decision ${decided - walked} ms, total ${Date.now() - t0} ms`);
  });

  it('another person’s selfie: the face match does not hold → declined (or manual review), with its webhook', async (t) => {
    const t0 = Date.now();
    const live = await liveSession({ checks: ['document', 'face_match'] });
    const { photos, selfie: own } = await passportOf(2, 'collins');
    const other = await selfieOf('hopper');
    const mjpeg = { document: await mjpegOf(photos.front, FRAME), face: await mjpegOf(other) };
    const v = await visit(live.session.url!, 'other-person');
    await walk(v, { document: 'camera', face: 'camera' }, mjpeg);
    await v.close();
    const walked = Date.now();

    const done = await rested(live);
    const decided = Date.now();
    assert.ok(
      (done.status === 'completed' && done.outcome === 'declined') || (done.status === 'manual_review' && done.outcome === null),
      `declined or manual review, got ${done.status}/${done.outcome}`,
    );
    const checks = Object.fromEntries(done.checks.map((c) => [c.type, c.outcome]));
    assert.equal(checks.document, 'pass');
    assert.ok(checks.face_match === 'fail' || checks.face_match === 'review', `face_match ${checks.face_match}`);
    // with the default thresholds (0.6 / 0.45; the stack inherits this process's environment) two different
    // people score far below review (docs/reading.md, "Thresholds"): declined
    if (process.env.FACE_MATCH_THRESHOLD === undefined && process.env.FACE_MATCH_REVIEW_THRESHOLD === undefined) {
      assert.deepEqual([done.status, done.outcome, checks.face_match], ['completed', 'declined', 'fail']);
    }
    assert.deepEqual(done.idv?.holder, photos.expected.holder);
    assert.equal(done.idv?.capture_acquisition, 'camera');
    const images = await served(live);
    const likeness = { shown: await imageCorrelation(images.selfie, other), holder: await imageCorrelation(images.selfie, own) };
    assert.ok(likeness.shown > 0.9 && likeness.shown > likeness.holder, `the selfie stored is the one the camera showed, not the holder’s: ${JSON.stringify(likeness)}`);

    const hook = await webhookOf(live);
    assert.equal(hook.type, done.status === 'completed' ? 'kyc.session.completed' : 'kyc.session.manual_review_requested');
    assert.deepEqual(hook.data, { sessionId: done.id, status: done.status, outcome: done.outcome, occurredAt: done.updated_at, checks: done.checks });
    t.diagnostic(`other-person run: walk ${walked - t0} ms, decision ${decided - walked} ms, total ${Date.now() - t0} ms; likeness ${JSON.stringify(likeness)}`);
  });
});
