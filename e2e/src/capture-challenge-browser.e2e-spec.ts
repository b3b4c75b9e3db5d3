/**
 * The liveness challenge and the retake prompt in a real browser, against the real us stack (docs/capture.md):
 * headless Chromium with a fake camera that plays a `.y4m` video made here (a header, then raw I420 frames). The
 * applicant photographs a blurred passport and is asked, in plain words, to take it again before anything is
 * submitted; takes it again, takes a selfie, then does the challenge the server chose: the video shows the holder
 * looking ahead, turning to each side in the challenge's order on the page's timeline, and back. The run then
 * passes document, face match and liveness.
 *
 * The faces of the video are one public-domain photograph turned in 3D from its face mesh (libs/testing/specimens,
 * `posedFace`): frames of a person turning, but not a person (docs/reading.md says what that shows).
 *
 * Screenshots land in e2e-screenshots/capture-challenge/ (ignored by git).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';
import { SUBJECTS } from '@verity/contracts';
import { CHALLENGE_PACE, challengeSchedule, type ChallengeStep } from '@verity/capture-page';
import { posedFace } from '@verity/specimens';
import { REPO_ROOT } from '@verity/stack';
import { accessibilityProblems, launchChromium } from '@verity/testing';
import { captureClient, evidenceReply, ok, passportOf } from './capture-support.js';
import { account, createSession, newApplicant, newTemplate, waitStatus } from './sessions-support.js';
import { clientIp, closeOperators, operator } from './support.js';

const SHOTS = path.join(REPO_ROOT, 'e2e-screenshots', 'capture-challenge');
const PHONE = { width: 390, height: 844 };
/** The document's camera frame (4:3) and the front camera's (3:4, as a phone held upright). */
const DOCUMENT_FRAME = { width: 1600, height: 1200 };
const FACE_FRAME = { width: 480, height: 640 };
/** Frames a second of the challenge's video. */
const FPS = 10;
const RUN_MS = 60_000;

let browser: Browser;
let tmp: string;
let cameraFile: string;

// ---------------------------------------------------------------------------------------------------------------
// A .y4m video: `YUV4MPEG2` header, then each frame as `FRAME` and its I420 planes (Y at full size, U and V at half)

async function i420(jpeg: Buffer, size: { width: number; height: number }): Promise<Buffer> {
  const { data } = await sharp(jpeg).resize(size.width, size.height, { fit: 'cover' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h } = size;
  const y = Buffer.alloc(w * h);
  const u = Buffer.alloc((w / 2) * (h / 2));
  const v = Buffer.alloc((w / 2) * (h / 2));
  const clamp = (x: number) => Math.max(0, Math.min(255, Math.round(x)));
  for (let j = 0; j < h; j++) {
    for (let i = 0; i < w; i++) {
      const k = (j * w + i) * 3;
      y[j * w + i] = clamp(0.299 * data[k]! + 0.587 * data[k + 1]! + 0.114 * data[k + 2]!);
    }
  }
  // full-range (JPEG) chroma of each 2 × 2 block
  for (let j = 0; j < h / 2; j++) {
    for (let i = 0; i < w / 2; i++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) {
        const k = ((2 * j + dy) * w + 2 * i + dx) * 3;
        r += data[k]!;
        g += data[k + 1]!;
        b += data[k + 2]!;
      }
      [r, g, b] = [r / 4, g / 4, b / 4];
      u[j * (w / 2) + i] = clamp(128 - 0.168736 * r - 0.331264 * g + 0.5 * b);
      v[j * (w / 2) + i] = clamp(128 + 0.5 * r - 0.418688 * g - 0.081312 * b);
    }
  }
  return Buffer.concat([y, u, v]);
}

/** A video of `frames` (each an I420 picture shown for `count` frames) at `FPS`. */
function y4m(size: { width: number; height: number }, frames: { picture: Buffer; count: number }[]): Buffer {
  const header = Buffer.from(`YUV4MPEG2 W${size.width} H${size.height} F${FPS}:1 Ip A1:1 C420jpeg\n`);
  const parts: Buffer[] = [header];
  const mark = Buffer.from('FRAME\n');
  for (const f of frames) for (let n = 0; n < f.count; n++) parts.push(mark, f.picture);
  return Buffer.concat(parts);
}

/** What the fake camera shows from the next getUserMedia on (Chromium opens the file anew each time). */
function camera(video: Buffer): void {
  writeFileSync(`${cameraFile}.tmp`, video);
  renameSync(`${cameraFile}.tmp`, cameraFile);
}

/**
 * The challenge's video, on the page's timeline from the first picture (libs/web/capture-page `challengeSchedule`):
 * the head follows each prompt 0.3 s late, as a person would, and stays until the next; 5 s of looking ahead at
 * the end. A turn to the person's left turns the nose to the camera's right: `posedFace`'s positive yaw.
 */
async function challengeVideo(steps: ChallengeStep[]): Promise<Buffer> {
  const pose = async (yaw: number) => i420(await posedFace('hopper', { yaw, size: FACE_FRAME.height }), FACE_FRAME);
  const pictures = { ahead: await pose(0), turn_left: await pose(30), turn_right: await pose(-30) };
  const { prompts, endMs } = challengeSchedule(steps);
  const lagMs = 300;
  const frames: { picture: Buffer; count: number }[] = [];
  for (const [i, p] of prompts.entries()) {
    const from = i === 0 ? 0 : p.atMs + lagMs;
    const to = i + 1 < prompts.length ? prompts[i + 1]!.atMs + lagMs : endMs + 5000;
    frames.push({ picture: pictures[p.prompt], count: Math.round(((to - from) / 1000) * FPS) });
  }
  return y4m(FACE_FRAME, frames);
}

before(async () => {
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'verity-capture-challenge-'));
  // Chromium tells Y4M from MJPEG by the extension
  cameraFile = path.join(tmp, 'camera.y4m');
  camera(y4m(FACE_FRAME, [{ picture: await i420(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#404040' } }).jpeg().toBuffer(), FACE_FRAME), count: 1 }]));
  browser = await launchChromium(cameraFile);
});

after(async () => {
  await browser?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  await closeOperators();
});

async function heading(page: Page, text: string, timeout = 20_000): Promise<void> {
  await page.getByRole('heading', { level: 1, name: text, exact: true }).waitFor({ timeout });
}

async function takePhoto(page: Page): Promise<void> {
  await page.locator('#shoot-button:not([disabled])').waitFor({ state: 'visible', timeout: 20_000 });
  await page.getByRole('button', { name: 'Take photo' }).click();
  await heading(page, 'Check your photo');
}

describe('the liveness challenge and the retake prompt in Chromium, against the real stack', () => {
  it('a blurred passport is sent back before submit in plain words; the challenge done with the camera; document, face match and liveness pass', async (t) => {
    const { org, c } = await account('us', 'live');
    await (await operator('us')).call(SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: 1_000_000 }, { principal: null, requestId: 'req_e2e_challenge' });
    const templateId = await newTemplate(c, { checks: ['document', 'face_match', 'liveness'] });
    const created = await createSession(c, { applicant_id: await newApplicant(c), workflow_template_id: templateId });
    assert.equal(created.status, 201, created.text);
    const session = created.body.data;
    const steps = ok(await captureClient('us', session.client_secret!).get()).data.challenge!.steps;

    const { photos, selfie } = await passportOf(11, 'hopper');
    const blurred = await sharp(photos.front).blur(9).jpeg().toBuffer();
    const still = async (jpeg: Buffer, size: { width: number; height: number }) => y4m(size, [{ picture: await i420(jpeg, size), count: 2 }]);

    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, reducedMotion: 'reduce', extraHTTPHeaders: { 'x-forwarded-for': clientIp() } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    // each step photographed is checked with axe-core too, but the challenge under way (its timing is measured)
    const axe: string[] = [];
    const shot = async (name: string, checkAccessibility = true) => {
      await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
      if (checkAccessibility) for (const p of await accessibilityProblems(page)) axe.push(`${name}: ${p}`);
    };
    assert.equal((await page.goto(session.url!))?.status(), 200);

    await heading(page, 'Let’s check your identity');
    await page.getByRole('button', { name: 'I agree, start' }).click();
    await heading(page, 'Which document will you use?');
    // the blurred passport, in the camera before the page opens it: whatever the page's own hint says, the region's
    // reader asks for a retake
    camera(await still(blurred, DOCUMENT_FRAME));
    await page.getByRole('button', { name: 'Passport' }).click();
    await heading(page, 'Photo page of your passport');
    await takePhoto(page);
    await page.locator('#accept-button').click();
    await page.locator('#review-feedback', { hasText: 'We could not read your document.' }).waitFor({ timeout: 30_000 });
    await shot('01-blurred-passport-retake');
    assert.equal(await page.locator('#retake-button').textContent(), 'Take a new photo');
    assert.equal(await page.locator('#accept-button').textContent(), 'Use this photo anyway');
    // nothing was submitted: the capture is still open, the applicant still on the page
    assert.equal(ok(await captureClient('us', session.client_secret!).get()).data.submitted_at, null);

    camera(await still(photos.front, DOCUMENT_FRAME));
    await page.getByRole('button', { name: 'Take a new photo' }).click();
    await heading(page, 'Photo page of your passport');
    await takePhoto(page);
    await shot('02-passport-review');
    camera(await still(selfie, FACE_FRAME));
    await page.locator('#accept-button').click();

    await heading(page, 'Photo of your face', 30_000);
    await takePhoto(page);
    await shot('03-selfie-review');
    camera(await challengeVideo(steps));
    await page.locator('#accept-button').click();

    await heading(page, 'Show us you’re here', 30_000);
    await shot('04-challenge');
    await page.getByRole('button', { name: 'Start' }).click();
    // mid-challenge: the first turn's prompt, on the page's timeline
    await page.waitForTimeout(CHALLENGE_PACE.settleMs + CHALLENGE_PACE.turnMs / 2);
    await shot('05-challenge-turn', false);
    await heading(page, 'You’re ready to send', challengeSchedule(steps).endMs + 30_000);
    await shot('06-ready-to-send');
    await page.getByRole('button', { name: 'Send my photos' }).click();
    await heading(page, 'Thank you, you’re done');
    assert.deepEqual(problems, [], 'no CSP violation, no script error');
    assert.deepEqual(axe, [], 'no serious or critical axe-core violation on the retake, challenge and send steps');
    await context.close();

    const done = await waitStatus(c, session.id, ['completed', 'manual_review', 'errored'], RUN_MS);
    const reply = await evidenceReply('us', org.id, session, { object: 'capture_challenge', steps, frames: { min: 3, max: 8, max_bytes: 0 }, frames_received: 0 });
    t.diagnostic(`steps ${steps.join(',')}; checks ${JSON.stringify(reply.checks)}`);
    assert.deepEqual(
      [reply.checks.document.outcome, reply.checks.face_match.outcome, reply.checks.liveness.outcome, reply.checks.liveness.reasons],
      ['pass', 'pass', 'pass', []],
      JSON.stringify(reply.checks),
    );
    assert.deepEqual([done.status, done.outcome], ['completed', 'approved']);
  });
});
