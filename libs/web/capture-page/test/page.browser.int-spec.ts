/**
 * The page's own behaviour in a real browser: headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core) with a fake camera, against a small local server that serves this library's HTML and assets
 * exactly as the gateway does (same bytes, same headers, so the CSP is enforced) and answers the capture API
 * of docs/capture.md from memory. It checks what the page sends, not the platform: the end-to-end test against
 * the real stack is another test.
 *
 * The fake camera plays an MJPEG file (concatenated JPEG frames) that Chromium opens anew at each getUserMedia
 * once the previous track is stopped: the test writes a document photo before the document steps and a face
 * before the selfie step.
 *
 * Screenshots of each step land in e2e-screenshots/capture/ (ignored by git).
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { catalogueSpecimen, photograph, renderSpecimen, selfie } from '@verity/specimens';
import { accessibilityProblems, imageCorrelation, launchChromium } from '@verity/testing';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import sharp from 'sharp';
import { ASSET_CACHE_CONTROL, PAGE_CACHE_CONTROL, SECURITY_HEADERS, assetVariant, capturePage, errorPage } from '../src/index.js';
import { isCaptureSecret } from '@verity/keys';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const SHOTS = path.join(ROOT, 'e2e-screenshots', 'capture');
const PHONE = { width: 360, height: 780 };
const SMALL_PHONE = { width: 390, height: 667 };
const LAPTOP = { width: 1280, height: 820 };

type Artifact = 'front' | 'back' | 'selfie';
type Step = 'document_front' | 'document_back' | 'selfie';

interface Received {
  images: Map<Artifact, { body: Buffer; contentType: string | undefined }>;
  puts: Artifact[];
  submits: Array<Record<string, unknown>>;
  skips: Array<Record<string, unknown>>;
}

interface Fake {
  secret: string;
  capture: {
    object: 'capture';
    session_id: string;
    status: string;
    steps: Step[];
    photo_upload: boolean;
    device_intelligence: boolean;
    expires_at: string;
    images: Record<Artifact, { width: number; height: number } | null>;
    submitted_at: string | null;
  };
  received: Received;
  /** Refusals to answer once, in order, to the first request that matches. */
  refuse: Array<{ method: string; path: RegExp; status: number; code: string; param?: string }>;
}

const fakes = new Map<string, Fake>();
/** The assets the browser asked for, in order, and how each was encoded. */
const assetRequests: { name: string; encoding: string | null }[] = [];
/** Assets answered 404, as a network that loses them would. */
const refusedAssets = new Set<string>();
/** Requests to the capture API without the bearer secret of a capture. */
let unauthorized = 0;

function newSecret(): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = 'vcs_';
  for (let i = 0; i < 43; i++) s += chars[randomInt(chars.length)];
  return s;
}

function newFake(o: { steps?: Step[]; photo_upload?: boolean; device_intelligence?: boolean; images?: Partial<Fake['capture']['images']> } = {}): Fake {
  const secret = newSecret();
  const fake: Fake = {
    secret,
    capture: {
      object: 'capture',
      session_id: `ses_${secret.slice(4, 20)}`,
      status: 'pending',
      steps: o.steps ?? ['document_front', 'document_back', 'selfie'],
      photo_upload: o.photo_upload ?? false,
      device_intelligence: o.device_intelligence ?? true,
      expires_at: new Date(Date.now() + 48 * 3600_000).toISOString(),
      images: { front: null, back: null, selfie: null, ...o.images },
      submitted_at: null,
    },
    received: { images: new Map(), puts: [], submits: [], skips: [] },
    refuse: [],
  };
  fakes.set(secret, fake);
  return fake;
}

function send(res: http.ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer): void {
  res.writeHead(status, headers);
  res.end(body);
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  send(res, status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }, JSON.stringify(body));
}

function envelope(res: http.ServerResponse, status: number, code: string, param?: string): void {
  json(res, status, { error: { code, message: `refused: ${code}`, type: 'invalid_request_error', request_id: 'req_test', ...(param ? { param } : {}) } });
}

async function body(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The page and its assets as the gateway serves them, and the capture API in memory. */
async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  const asset = /^\/verify\/assets\/([^/]+)$/.exec(url.pathname);
  if (asset) {
    // gzip as the gateway sends it: the face guide's model and WebAssembly reach the page compressed
    const a = refusedAssets.has(asset[1]!) ? undefined : await assetVariant(asset[1]!, req.headers['accept-encoding']);
    if (!a) return send(res, 404, { ...SECURITY_HEADERS, 'content-type': 'text/plain' }, 'not found');
    assetRequests.push({ name: asset[1]!, encoding: a.headers['content-encoding'] ?? null });
    return send(res, 200, { ...SECURITY_HEADERS, ...a.headers, 'cache-control': ASSET_CACHE_CONTROL }, a.body);
  }
  const page = /^\/verify\/([^/]+)$/.exec(url.pathname);
  if (page) {
    const headers = { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': PAGE_CACHE_CONTROL };
    if (!isCaptureSecret(page[1]!)) {
      const p = errorPage('unknown');
      return send(res, p.status, headers, p.html);
    }
    return send(res, 200, headers, capturePage(page[1]!));
  }
  if (!url.pathname.startsWith('/v1/capture')) return envelope(res, 404, 'route_not_found');

  const auth = req.headers.authorization ?? '';
  const fake = fakes.get(auth.replace(/^Bearer /, ''));
  if (!fake) {
    unauthorized++;
    return envelope(res, 401, 'invalid_capture_token');
  }
  const sub = url.pathname.slice('/v1/capture'.length);
  const refusal = fake.refuse.findIndex((r) => r.method === req.method && r.path.test(sub));
  if (refusal >= 0) {
    const [r] = fake.refuse.splice(refusal, 1);
    await body(req);
    return envelope(res, r!.status, r!.code, r!.param);
  }
  const c = fake.capture;
  if (req.method === 'GET' && sub === '') return json(res, 200, { data: c });
  const img = /^\/images\/([a-z]+)$/.exec(sub);
  if (req.method === 'PUT' && img) {
    const artifact = img[1] as Artifact;
    if (!['front', 'back', 'selfie'].includes(artifact)) return envelope(res, 404, 'resource_not_found');
    const bytes = await body(req);
    const meta = await sharp(bytes).metadata();
    fake.received.images.set(artifact, { body: bytes, contentType: req.headers['content-type'] });
    fake.received.puts.push(artifact);
    c.images[artifact] = { width: meta.width, height: meta.height };
    c.status = 'in_progress';
    return json(res, 200, { data: { object: 'capture_image', artifact, width: meta.width, height: meta.height } });
  }
  if (req.method === 'POST' && sub === '/submit') {
    const b = JSON.parse((await body(req)).toString('utf8')) as Record<string, unknown>;
    fake.received.submits.push(b);
    for (const [step, artifact] of [['document_front', 'front'], ['selfie', 'selfie']] as const) {
      if (c.steps.includes(step) && !c.images[artifact]) return envelope(res, 422, 'validation_error', artifact);
    }
    c.submitted_at = new Date().toISOString();
    return json(res, 202, { data: c });
  }
  if (req.method === 'POST' && sub === '/skip') {
    fake.received.skips.push(JSON.parse((await body(req)).toString('utf8')) as Record<string, unknown>);
    c.status = 'skipped';
    return json(res, 200, { data: c });
  }
  return envelope(res, 404, 'route_not_found');
}

let server: http.Server;
let base: string;
let browser: Browser;
let tmp: string;
let cameraFile: string;
const images: Record<'front' | 'back' | 'selfie' | 'faceAbove' | 'passport' | 'dark' | 'empty', Buffer> = {} as never;

/** What the fake camera shows from the next getUserMedia on: a few frames of one photo, swapped in atomically. */
function camera(jpeg: Buffer): void {
  writeFileSync(`${cameraFile}.tmp`, Buffer.concat([jpeg, jpeg, jpeg]));
  renameSync(`${cameraFile}.tmp`, cameraFile);
}

interface Session {
  context: BrowserContext;
  page: Page;
  /** CSP violations and script errors seen by the page. */
  problems: string[];
}

async function open(fake: Fake | string, viewport = PHONE): Promise<Session> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 2, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${base}/verify/${typeof fake === 'string' ? fake : fake.secret}`);
  return { context, page, problems };
}

async function close(s: Session): Promise<void> {
  assert.deepEqual(s.problems, [], 'no CSP violation and no script error');
  await s.context.close();
}

/** Waits until the visible screen's heading reads `text` (hidden screens have no role). */
async function expectHeading(page: Page, text: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: text, exact: true }).waitFor({ timeout: 15_000 });
}

/** Waits until the status region (read out by screen readers) says something matching `re`. */
async function expectAnnounced(page: Page, re: RegExp): Promise<void> {
  await page.locator('#status', { hasText: re }).waitFor({ state: 'attached', timeout: 5_000 });
}

// Functions run in the page see its globals; this project compiles for Node, without DOM types.
interface PageGlobals {
  document: {
    documentElement: { scrollWidth: number; clientWidth: number };
    activeElement: { tagName: string; textContent: string | null } | null;
  };
  getComputedStyle(e: unknown): { outlineStyle: string; outlineWidth: string };
}

/** axe-core's serious and critical findings on every step photographed, checked at the end (see the last test). */
const axeProblems: string[] = [];
let axeChecked = 0;

async function shot(page: Page, name: string): Promise<void> {
  // no horizontal scrolling at any width
  const overflow = await page.evaluate(() => {
    const d = (globalThis as unknown as PageGlobals).document.documentElement;
    return d.scrollWidth - d.clientWidth;
  });
  assert.ok(overflow <= 0, `${name}: the page scrolls sideways by ${overflow}px`);
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  for (const p of await accessibilityProblems(page)) axeProblems.push(`${name}: ${p}`);
  axeChecked += 1;
}

async function cameraReady(page: Page): Promise<void> {
  await page.locator('#shoot-button:not([disabled])').waitFor({ state: 'visible', timeout: 15_000 });
}

async function takePhoto(page: Page): Promise<void> {
  await cameraReady(page);
  await page.getByRole('button', { name: 'Take photo' }).click();
  await expectHeading(page, 'Check your photo');
}

async function chooseFile(page: Page, jpeg: Buffer, name = 'photo.jpg'): Promise<void> {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: /Choose (a|another) photo/ }).click()]);
  await chooser.setFiles({ name, mimeType: 'image/jpeg', buffer: jpeg });
  await expectHeading(page, 'Check your photo');
}

/** Whether `jpeg` shows `like` rather than `unlike` (the video path shifts levels and re-encodes). */
async function looksLike(jpeg: Buffer, like: Buffer, unlike: Buffer): Promise<boolean> {
  const [a, b] = await Promise.all([imageCorrelation(jpeg, like, 96, 54), imageCorrelation(jpeg, unlike, 96, 54)]);
  return a > 0.95 && a - b > 0.1;
}

async function size(jpeg: Buffer): Promise<{ width: number; height: number; format: string }> {
  const m = await sharp(jpeg).metadata();
  return { width: m.width, height: m.height, format: m.format };
}

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'verity-capture-page-'));
  cameraFile = path.join(tmp, 'camera.mjpeg');

  const card = await renderSpecimen(catalogueSpecimen('td1', 2, '2026-01-01'));
  const passport = await renderSpecimen(catalogueSpecimen('td3', 2, '2026-01-01'));
  const phone = { width: 1920, height: 1080, coverage: 0.62, seed: 3 };
  images.front = await photograph(card.front, phone);
  images.back = await photograph(card.back!, phone);
  images.passport = await photograph(passport.front, phone);
  images.selfie = await selfie('hopper', { size: 960, mirror: false });
  // the same face 220 px higher (of 960): whole in the picture, its centre well above the oval's
  // (two pipelines: sharp extracts before it extends within one)
  const extended = await sharp(images.selfie).extend({ bottom: 220, background: '#8a8f96' }).png().toBuffer();
  images.faceAbove = await sharp(extended).extract({ left: 0, top: 220, width: 720, height: 960 }).jpeg({ quality: 92 }).toBuffer();
  images.dark = await sharp(images.front).modulate({ brightness: 0.15 }).jpeg({ quality: 90 }).toBuffer();
  images.empty = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#7d6e5e' } }).jpeg().toBuffer();
  camera(images.front);

  server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      res.statusCode = 500;
      res.end(String(e));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium(cameraFile);
});

after(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the capture page in Chromium', () => {
  it('camera flow: consent, identity card front and back, selfie, submit, done', async () => {
    const fake = newFake({ device_intelligence: true, photo_upload: false });
    camera(images.front);
    const s = await open(fake);
    const { page } = s;

    await expectHeading(page, 'Let’s check your identity');
    // the applicant is not offered a file when the workflow wants the camera only
    await shot(page, '01-consent');
    await page.getByRole('button', { name: 'I agree, start' }).click();

    await expectHeading(page, 'Which document will you use?');
    await shot(page, '02-document-type');
    await page.getByRole('button', { name: 'Identity card' }).click();

    await expectHeading(page, 'Front of your identity card');
    await cameraReady(page);
    assert.equal(await page.locator('#progress').textContent(), 'Photo 1 of 3');
    assert.equal(await page.getByRole('button', { name: 'Choose a photo instead' }).isVisible(), false);
    await shot(page, '03-document-camera');
    // the face guide's files are not fetched before the selfie step
    const faceFiles = ['face.js', 'oval.js', 'human.esm.js', 'blazeface.json', 'blazeface.bin', 'tfjs-backend-wasm-simd.wasm'];
    assert.deepEqual(assetRequests.filter((r) => faceFiles.includes(r.name) || r.name.endsWith('.wasm')), []);
    await takePhoto(page);
    // a sharp, lit specimen inside the guide: no warning, the photo can be used at once
    assert.match((await page.locator('#review-feedback').textContent()) ?? '', /Make sure all the text is sharp/);
    assert.equal(await page.locator('#review-image').getAttribute('alt'), 'Your photo: front of your identity card');
    await shot(page, '04-document-review');
    // the page stopped the front's track; the back's getUserMedia, on accepting this photo, reads the new file
    camera(images.back);
    await page.getByRole('button', { name: 'Use this photo' }).click();

    await expectHeading(page, 'Back of your identity card');
    assert.deepEqual(fake.received.puts, ['front']);
    await takePhoto(page);
    // the next step asks for its camera as soon as this photo is accepted: the face goes in first, above the oval
    camera(images.faceAbove);
    await page.getByRole('button', { name: 'Use this photo' }).click();

    await expectHeading(page, 'Photo of your face');
    assert.equal(await page.locator('#progress').textContent(), 'Photo 3 of 3');
    assert.equal(await page.locator('#viewfinder').getAttribute('data-shape'), 'face');
    // the face guide (loaded now) finds the face above the oval: it says so, and the shutter stays off
    await page.locator('#face-guidance', { hasText: 'Move your face into the oval' }).waitFor({ timeout: 20_000 });
    await expectAnnounced(page, /^Move your face into the oval$/);
    await page.waitForTimeout(1000);
    assert.equal(await page.locator('#face-guidance').textContent(), 'Move your face into the oval');
    assert.equal(await page.locator('#shoot-button').isDisabled(), true, 'the shutter waits for the face');
    assert.equal(await page.locator('#shoot-button').getAttribute('aria-describedby'), 'face-guidance');
    await shot(page, '05-selfie-face-above-oval');
    // now they were, once each, the large ones gzip-compressed; Chromium has SIMD: the plain WebAssembly is not needed
    assert.deepEqual(
      assetRequests.filter((r) => faceFiles.includes(r.name) || r.name.endsWith('.wasm')).sort((a, b) => a.name.localeCompare(b.name)),
      faceFiles.map((name) => ({ name, encoding: 'gzip' })).sort((a, b) => a.name.localeCompare(b.name)),
    );
    // the person moves into the oval (the camera, started again, shows the face centred): the shutter turns on
    camera(images.selfie);
    await page.getByRole('button', { name: 'I can’t do this now' }).click();
    await page.getByRole('button', { name: 'No, go back' }).click();
    await expectHeading(page, 'Photo of your face');
    await cameraReady(page);
    assert.equal(await page.locator('#viewfinder').getAttribute('data-fit'), 'ready');
    assert.equal(await page.locator('#face-guidance').textContent(), 'Hold still and take the photo');
    await expectAnnounced(page, /^Hold still and take the photo$/);
    await shot(page, '05-selfie-camera');
    // on a small phone (390×667) the way out stays on screen without scrolling, below the shutter
    await page.setViewportSize(SMALL_PHONE);
    const skip = await page.getByRole('button', { name: 'I can’t do this now' }).boundingBox();
    const shutter = await page.getByRole('button', { name: 'Take photo' }).boundingBox();
    assert.ok(skip && shutter && skip.y + skip.height <= SMALL_PHONE.height && skip.y >= shutter.y + shutter.height, `the skip link at ${JSON.stringify(skip)}, the shutter at ${JSON.stringify(shutter)}`);
    await shot(page, '05-selfie-camera-small');
    await page.setViewportSize(PHONE);
    await takePhoto(page);
    assert.match((await page.locator('#review-feedback').textContent()) ?? '', /whole face is clear/);
    await shot(page, '06-selfie-review');
    await page.getByRole('button', { name: 'Use this photo' }).click();

    await expectHeading(page, 'You’re ready to send');
    await shot(page, '07-submit');
    await page.getByRole('button', { name: 'Send my photos' }).click();
    await expectHeading(page, 'Thank you, you’re done');
    // a screen reader hears that the photos went, not the "sending" said before
    await expectAnnounced(page, /^Your photos were sent\./);
    await shot(page, '08-done');

    // what the API received
    const r = fake.received;
    assert.equal(unauthorized, 0);
    assert.deepEqual(r.puts, ['front', 'back', 'selfie']);
    const front = r.images.get('front')!;
    assert.equal(front.contentType, 'image/jpeg');
    assert.deepEqual(await size(front.body), { width: 1920, height: 1080, format: 'jpeg' });
    assert.deepEqual(await size(r.images.get('back')!.body), { width: 1920, height: 1080, format: 'jpeg' });
    // the selfie step got the face file: its own size, not the document's
    assert.deepEqual(await size(r.images.get('selfie')!.body), { width: 720, height: 960, format: 'jpeg' });
    const [front0, back0] = [front.body, r.images.get('back')!.body].map((b) => b.subarray(0, 2).toString('hex'));
    assert.equal(front0, 'ffd8');
    assert.equal(back0, 'ffd8');
    // each step photographed what the fake camera showed for it
    assert.ok(await looksLike(front.body, images.front, images.back), 'the front is the front');
    assert.ok(await looksLike(r.images.get('back')!.body, images.back, images.front), 'the back is the back');

    assert.equal(r.submits.length, 1);
    const submitted = r.submits[0]!;
    assert.deepEqual(Object.keys(submitted).sort(), ['acquisition', 'signals']);
    assert.equal(submitted.acquisition, 'camera');
    const signals = submitted.signals as Record<string, unknown>;
    assert.deepEqual(Object.keys(signals).sort(), ['form_factor', 'headless', 'paste_count', 'step_seconds', 'time_zone', 'touch_points', 'webdriver']);
    assert.equal(signals.paste_count, 0);
    assert.equal(typeof signals.webdriver, 'boolean');
    assert.equal(typeof signals.headless, 'boolean');
    assert.equal(signals.touch_points, 0);
    assert.equal(signals.form_factor, 'desktop');
    assert.equal(signals.time_zone, Intl.DateTimeFormat().resolvedOptions().timeZone);
    const seconds = signals.step_seconds as Record<string, number>;
    assert.deepEqual(Object.keys(seconds).sort(), ['consent', 'document_back', 'document_front', 'document_type', 'selfie', 'submit']);
    for (const v of Object.values(seconds)) assert.ok(typeof v === 'number' && v >= 0);
    await close(s);
  });

  it('upload flow: a passport (no back) and a selfie chosen from files are submitted as "upload", without signals; without the face guide the selfie shutter works', async (t) => {
    const fake = newFake({ photo_upload: true, device_intelligence: false });
    camera(images.passport);
    refusedAssets.add('human.esm.js');
    t.after(() => refusedAssets.clear());
    const s = await open(fake);
    const { page } = s;
    await page.getByRole('button', { name: 'I agree, start' }).click();
    await page.getByRole('button', { name: 'Passport' }).click();
    await expectHeading(page, 'Photo page of your passport');
    await cameraReady(page);
    assert.equal(await page.locator('#progress').textContent(), 'Photo 1 of 2');
    await shot(page, '09-passport-camera-with-upload');
    await chooseFile(page, images.passport, 'passport.jpg');
    assert.equal(await page.getByRole('button', { name: 'Choose another photo' }).isVisible(), true);
    await page.getByRole('button', { name: 'Use this photo' }).click();

    await expectHeading(page, 'Photo of your face');
    // the face guide cannot load here (its library is refused): the shutter works without it, whatever the camera shows
    await cameraReady(page);
    assert.equal(await page.locator('#face-guidance').isHidden(), true);
    assert.equal(await page.locator('#viewfinder').getAttribute('data-fit'), null);
    await chooseFile(page, images.selfie, 'me.jpg');
    await page.getByRole('button', { name: 'Use this photo' }).click();
    await expectHeading(page, 'You’re ready to send');
    await page.getByRole('button', { name: 'Send my photos' }).click();
    await expectHeading(page, 'Thank you, you’re done');

    const r = fake.received;
    assert.deepEqual(r.puts, ['front', 'selfie']);
    assert.deepEqual(await size(r.images.get('front')!.body), { width: 1920, height: 1080, format: 'jpeg' });
    assert.deepEqual(r.submits, [{ acquisition: 'upload' }]);
    await close(s);
  });

  it('a large photo is scaled to 2048 px a side before it is sent', async () => {
    const fake = newFake({ photo_upload: true, steps: ['document_front', 'document_back'] });
    const big = await photograph((await renderSpecimen(catalogueSpecimen('td1', 3, '2026-01-01'))).front, { width: 4000, height: 3000, seed: 5 });
    const s = await open(fake);
    const { page } = s;
    await page.getByRole('button', { name: 'I agree, start' }).click();
    await page.getByRole('button', { name: 'Driving licence' }).click();
    await expectHeading(page, 'Front of your driving licence');
    await chooseFile(page, big, 'big.jpg');
    await page.getByRole('button', { name: 'Use this photo' }).click();
    await expectHeading(page, 'Back of your driving licence');
    assert.deepEqual(await size(fake.received.images.get('front')!.body), { width: 2048, height: 1536, format: 'jpeg' });
    await close(s);
  });

  it('instant feedback: a dark photo and an empty one are flagged, with a retake and a way to send anyway', async () => {
    const fake = newFake({ photo_upload: true });
    const s = await open(fake);
    const { page } = s;
    await page.getByRole('button', { name: 'I agree, start' }).click();
    await page.getByRole('button', { name: 'Identity card' }).click();
    await expectHeading(page, 'Front of your identity card');

    // a file the browser cannot open, and one of a type the API does not take, are refused on the spot
    for (const [name, mimeType, buffer] of [
      ['broken.jpg', 'image/jpeg', Buffer.from('not a photo at all')],
      ['anim.gif', 'image/gif', Buffer.from('GIF89a')],
    ] as const) {
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Choose a photo instead' }).click()]);
      await chooser.setFiles({ name, mimeType, buffer });
      const expected = mimeType === 'image/gif' ? 'We can’t use this type of file. Please choose a JPEG, PNG or WebP photo.' : 'We can’t open this file. Please choose a photo in JPEG, PNG or WebP.';
      await page.locator('#camera-problem', { hasText: expected }).waitFor();
    }
    assert.deepEqual(fake.received.puts, []);

    await chooseFile(page, images.dark, 'dark.jpg');
    assert.equal(await page.locator('#review-feedback').textContent(), 'This photo is too dark. Move closer to a light, then take it again.');
    // the retake is suggested first; sending anyway stays possible
    const actions = await page.locator('#screen-review .actions button').allTextContents();
    assert.deepEqual(actions, ['Choose another photo', 'Use this photo anyway']);
    await expectAnnounced(page, /Photo taken\. This photo is too dark/);
    await shot(page, '10-feedback-dark');

    await chooseFile(page, images.empty, 'table.jpg');
    await page
      .locator('#review-feedback', { hasText: 'We can’t see your document. Fit the whole document inside the frame, then take it again.' })
      .waitFor();
    await page.getByRole('button', { name: 'Use this photo anyway' }).click();
    await expectHeading(page, 'Back of your identity card');
    assert.deepEqual(fake.received.puts, ['front']);
    await close(s);
  });

  it('a refused image: a plain message and a retry that works', async () => {
    const fake = newFake({ photo_upload: true });
    fake.refuse.push({ method: 'PUT', path: /^\/images\/front$/, status: 415, code: 'unsupported_file_type' });
    fake.refuse.push({ method: 'PUT', path: /^\/images\/front$/, status: 503, code: 'service_unavailable' });
    camera(images.front);
    const s = await open(fake);
    const { page } = s;
    await page.getByRole('button', { name: 'I agree, start' }).click();
    await page.getByRole('button', { name: 'Identity card' }).click();
    await takePhoto(page);
    await page.getByRole('button', { name: 'Use this photo' }).click();
    await page.getByRole('button', { name: 'Try again' }).waitFor();
    assert.equal(await page.locator('#review-feedback').textContent(), 'We can’t use this type of file. Please choose a JPEG, PNG or WebP photo.');
    await shot(page, '11-upload-refused');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('#review-feedback', { hasText: 'Something went wrong on our side. Please try again in a minute.' }).waitFor();
    await page.getByRole('button', { name: 'Try again' }).click();
    await expectHeading(page, 'Back of your identity card');
    assert.deepEqual(fake.received.puts, ['front']);
    await close(s);
  });

  it('a link that became unusable midway (409) or expired (410) says so and offers nothing more', async () => {
    const fake = newFake();
    fake.refuse.push({ method: 'PUT', path: /^\/images\/front$/, status: 409, code: 'invalid_state_transition' });
    camera(images.front);
    const s = await open(fake);
    const { page } = s;
    await page.getByRole('button', { name: 'I agree, start' }).click();
    await page.getByRole('button', { name: 'Passport' }).click();
    await takePhoto(page);
    await page.getByRole('button', { name: 'Use this photo' }).click();
    await expectHeading(page, 'This verification is already done');
    assert.equal(await page.locator('#screen-link button:visible').count(), 0);
    await close(s);

    const expired = newFake();
    expired.refuse.push({ method: 'GET', path: /^$/, status: 410, code: 'capture_expired' });
    const e = await open(expired);
    await expectHeading(e.page, 'This link has expired');
    assert.match((await e.page.locator('#screen-link [data-link="expired"] p').textContent()) ?? '', /ask the business that sent it for a new link/);
    await shot(e.page, '12-link-expired');
    await close(e);

    // a capture already submitted (the API still answers GET) is a used link
    const used = newFake();
    used.capture.submitted_at = new Date().toISOString();
    const u = await open(used);
    await expectHeading(u.page, 'This verification is already done');
    await close(u);

    // the gateway's own page for a link of the wrong shape
    const bad = await open('vcs_short');
    await expectHeading(bad.page, 'This link does not work');
    await shot(bad.page, '13-error-page-unknown');
    await close(bad);
  });

  it('a load that fails (server down) offers a retry', async () => {
    const fake = newFake();
    fake.refuse.push({ method: 'GET', path: /^$/, status: 503, code: 'service_unavailable' });
    const s = await open(fake);
    await expectHeading(s.page, 'We can’t load this page');
    await s.page.getByRole('button', { name: 'Try again' }).click();
    await expectHeading(s.page, 'Let’s check your identity');
    await close(s);
  });

  it('skip: asks first, then tells the API which step the applicant gave up at', async () => {
    const fake = newFake();
    camera(images.front);
    const s = await open(fake);
    const { page } = s;
    await page.getByRole('button', { name: 'I agree, start' }).click();
    await page.getByRole('button', { name: 'Identity card' }).click();
    await takePhoto(page);
    await page.getByRole('button', { name: 'Use this photo' }).click();
    await expectHeading(page, 'Back of your identity card');
    await page.getByRole('button', { name: 'I can’t do this now' }).click();
    await expectHeading(page, 'Stop the identity check?');
    await shot(page, '14-skip-confirm');
    // going back restarts the camera on the same step
    await page.getByRole('button', { name: 'No, go back' }).click();
    await expectHeading(page, 'Back of your identity card');
    await cameraReady(page);
    await page.getByRole('button', { name: 'I can’t do this now' }).click();
    await page.getByRole('button', { name: 'Yes, stop' }).click();
    await expectHeading(page, 'You stopped the identity check');
    assert.deepEqual(fake.received.skips, [{ step: 'document_back' }]);
    assert.equal(fake.received.submits.length, 0);
    await close(s);
  });

  it('resumes where the applicant left off', async () => {
    const fake = newFake({ images: { front: { width: 1920, height: 1080 } } });
    fake.capture.status = 'in_progress';
    camera(images.back);
    const s = await open(fake);
    const { page } = s;
    await expectHeading(page, 'Let’s check your identity');
    assert.equal(await page.locator('#consent-lead').textContent(), 'Welcome back. You can go on where you stopped.');
    await page.getByRole('button', { name: 'Continue' }).click();
    // the type decides whether a back is still missing
    await page.getByRole('button', { name: 'Identity card' }).click();
    await expectHeading(page, 'Back of your identity card');
    assert.equal(await page.locator('#progress').textContent(), 'Photo 2 of 3');
    await close(s);
  });

  it('works with the keyboard alone, with a visible focus', async () => {
    const fake = newFake({ steps: ['document_front', 'document_back', 'selfie'] });
    camera(images.passport);
    const s = await open(fake);
    const { page } = s;
    const focused = () =>
      page.evaluate(() => {
        const g = globalThis as unknown as PageGlobals;
        const e = g.document.activeElement!;
        const st = g.getComputedStyle(e);
        return { tag: e.tagName, text: e.textContent?.trim() ?? '', outline: `${st.outlineStyle} ${st.outlineWidth}` };
      });
    const tabTo = async (text: string) => {
      await page.keyboard.press('Tab');
      const f = await focused();
      assert.equal(f.tag, 'BUTTON');
      assert.equal(f.text, text);
      assert.equal(f.outline, 'solid 3px', `focus of “${text}” is visible`);
    };

    await expectHeading(page, 'Let’s check your identity');
    // each screen puts the focus on its heading, so a screen reader reads it first
    assert.deepEqual(await focused().then((f) => [f.tag, f.text]), ['H1', 'Let’s check your identity']);
    await tabTo('I agree, start');
    await shot(page, '15-keyboard-focus');
    await page.keyboard.press('Enter');
    await expectHeading(page, 'Which document will you use?');
    await tabTo('Passport');
    await page.keyboard.press('Enter');
    await expectHeading(page, 'Photo page of your passport');
    await cameraReady(page);
    await tabTo('Take photo');
    await page.keyboard.press('Enter');
    await expectHeading(page, 'Check your photo');
    await tabTo('Use this photo');
    camera(images.selfie);
    await page.keyboard.press('Enter');
    await expectHeading(page, 'Photo of your face');
    await cameraReady(page);
    await tabTo('Take photo');
    await page.keyboard.press(' ');
    await expectHeading(page, 'Check your photo');
    await tabTo('Use this photo');
    await page.keyboard.press('Enter');
    await expectHeading(page, 'You’re ready to send');
    await tabTo('Send my photos');
    await page.keyboard.press('Enter');
    await expectHeading(page, 'Thank you, you’re done');
    assert.deepEqual(fake.received.puts, ['front', 'selfie']);
    assert.equal(fake.received.submits[0]!.acquisition, 'camera');
    await close(s);
  });

  it('looks right on a laptop too', async () => {
    const fake = newFake({ photo_upload: true });
    camera(images.front);
    const s = await open(fake, LAPTOP);
    const { page } = s;
    await expectHeading(page, 'Let’s check your identity');
    await shot(page, '16-laptop-consent');
    await page.getByRole('button', { name: 'I agree, start' }).click();
    await page.getByRole('button', { name: 'Identity card' }).click();
    await cameraReady(page);
    await shot(page, '17-laptop-camera');
    await takePhoto(page);
    await shot(page, '18-laptop-review');
    await close(s);
  });

  it('no serious or critical axe-core violation (WCAG 2.1 A and AA) on any step photographed above', () => {
    assert.ok(axeChecked >= 15, `${axeChecked} steps checked`);
    assert.deepEqual(axeProblems, []);
  });
});
