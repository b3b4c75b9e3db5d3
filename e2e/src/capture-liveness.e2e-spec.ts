/**
 * The selfie is a live person, and the same one (docs/capture.md, "The liveness challenge", "Checking an image";
 * contract §20): the capture API of a live session takes the challenge's frames and checks one image at once; a
 * run passes liveness only with the challenge done, never on a still selfie, and never passes the document's own
 * picture as the selfie. Every refusal changes nothing.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { challengeFrames, documentPortrait } from '@verity/specimens';
import { doChallenge, evidenceReply, liveSession, ok, passportOf } from './capture-support.js';
import { closeStreams, waitStatus } from './sessions-support.js';
import { closeOperators, errorOf, rows } from './support.js';

after(async () => {
  await closeOperators();
  await closeStreams();
});

const RUN_MS = 60_000;
const LIVENESS = { checks: ['document', 'face_match', 'liveness'] };

const uploads = (id: string) => rows<{ artifact: string; offset_ms: number | null }>('us', 'SELECT artifact, offset_ms FROM evidence.uploads WHERE session_id = $1 ORDER BY artifact', [id]);

describe('the liveness challenge through the capture API', () => {
  it('GET /v1/capture describes it for a workflow with liveness only; frames are stored with their time, counted, replaced by index', async () => {
    const { capture, session } = await liveSession('us', LIVENESS);
    const cap = ok(await capture.get()).data;
    assert.equal(cap.challenge?.object, 'capture_challenge');
    assert.ok(cap.challenge!.steps.length >= 2 && cap.challenge!.steps.every((s) => s === 'turn_left' || s === 'turn_right'));
    assert.deepEqual([cap.challenge!.frames, cap.challenge!.frames_received], [{ min: 3, max: 8, max_bytes: 2 * 1024 * 1024 }, 0]);
    // the same challenge on every read
    assert.deepEqual(ok(await capture.get()).data.challenge!.steps, cap.challenge!.steps);

    const frames = await challengeFrames('hopper', cap.challenge!.steps);
    const first = ok(await capture.frame(0, frames[0]!.image, 0)).data;
    assert.deepEqual({ ...first, width: 0, height: 0 }, { object: 'capture_frame', index: 0, offset_ms: 0, width: 0, height: 0 });
    ok(await capture.frame(1, frames[1]!.image, 250));
    ok(await capture.frame(1, frames[1]!.image, 300));
    assert.equal(ok(await capture.get()).data.challenge!.frames_received, 2);
    assert.deepEqual(await uploads(session.id), [
      { artifact: 'frame_0', offset_ms: 0 },
      { artifact: 'frame_1', offset_ms: 300 },
    ]);

    const { capture: noLiveness } = await liveSession('us', { checks: ['document', 'face_match'] });
    assert.equal(ok(await noLiveness.get()).data.challenge, null);
    const refused = await noLiveness.frame(0, frames[0]!.image, 0);
    assert.deepEqual([refused.status, errorOf(refused).code], [404, 'resource_not_found']);
  });

  it('refusals change nothing: a non-image 415, over 2 MiB 413, an index past 7 404, no offset_ms 422, after submit 409', async () => {
    const { capture, session } = await liveSession('us', LIVENESS);
    const photo = (await challengeFrames('hopper', ['turn_left'])).at(0)!.image;
    // a JPEG's start, then more than the 2 MiB a frame may have
    const big = Buffer.concat([photo, Buffer.alloc(2 * 1024 * 1024)]);
    const cases: [ReturnType<typeof capture.frame>, number, string][] = [
      [capture.frame(0, Buffer.from('GIF89a not a photo'), 0), 415, 'unsupported_file_type'],
      [capture.frame(0, big, 0), 413, 'file_too_large'],
      [capture.frame(8, photo, 0), 404, 'resource_not_found'],
      [capture.frame('x', photo, 0), 404, 'resource_not_found'],
      [capture.frame(0, photo, null), 422, 'validation_error'],
    ];
    for (const [res, status, code] of cases) {
      const r = await res;
      assert.deepEqual([r.status, errorOf(r).code], [status, code], r.text);
    }
    assert.deepEqual(await uploads(session.id), []);
    assert.equal(ok(await capture.get()).data.challenge!.frames_received, 0);

    const { photos, selfie: own } = await passportOf(5, 'hopper');
    ok(await capture.put('front', photos.front));
    ok(await capture.put('selfie', own));
    ok(await capture.submit(), 202);
    const late = await capture.frame(0, photo, 0);
    assert.deepEqual([late.status, errorOf(late).code], [409, 'invalid_state_transition']);
    assert.deepEqual(await uploads(session.id), [
      { artifact: 'front', offset_ms: null },
      { artifact: 'selfie', offset_ms: null },
    ]);
  });
});

describe('an image checked before submit', () => {
  it('a readable passport and a good selfie are usable; a blurred document and a blurred selfie get a retake in plain words; nothing changes', async () => {
    const { capture } = await liveSession('us', LIVENESS);
    const { photos, selfie: own } = await passportOf(6, 'hopper');
    ok(await capture.put('front', photos.front));
    ok(await capture.put('selfie', own));
    assert.deepEqual(ok(await capture.check('front', { document_type: 'passport' })).data, { object: 'capture_image_check', artifact: 'front', usable: true, reasons: [], message: null });
    assert.deepEqual(ok(await capture.check('selfie')).data, { object: 'capture_image_check', artifact: 'selfie', usable: true, reasons: [], message: null });

    ok(await capture.put('front', await sharp(photos.front).blur(8).jpeg().toBuffer()));
    const doc = ok(await capture.check('front', { document_type: 'passport' })).data;
    assert.equal(doc.usable, false);
    assert.ok(doc.reasons.length > 0);
    assert.match(doc.message!, /could not read your document/);
    ok(await capture.put('selfie', await sharp(own).blur(7).jpeg().toBuffer()));
    const face = ok(await capture.check('selfie')).data;
    assert.deepEqual([face.usable, face.reasons.includes('blurred')], [false, true], JSON.stringify(face));
    assert.match(face.message!, /blurry|could not see a face/);

    const cap = ok(await capture.get()).data;
    assert.deepEqual([cap.status, cap.submitted_at], ['in_progress', null]);
  });

  it('refusals: an image not uploaded 404, an unknown artifact 404, a bad document_type 422', async () => {
    const { capture } = await liveSession('us', LIVENESS);
    const missing = await capture.check('back');
    assert.deepEqual([missing.status, errorOf(missing).code], [404, 'resource_not_found']);
    const unknown = await capture.check('portrait');
    assert.deepEqual([unknown.status, errorOf(unknown).code], [404, 'resource_not_found']);
    ok(await capture.put('front', (await passportOf(7, 'hopper')).photos.front));
    const bad = await capture.check('front', { document_type: 'boarding_pass' });
    assert.deepEqual([bad.status, errorOf(bad).code], [422, 'validation_error']);
  });
});

describe('a live run decides liveness from the challenge, and never passes a copy of the portrait', () => {
  it('the challenge done by the selfie’s person: document, face match and liveness pass with scores; approved', async () => {
    const { capture, c, session, org } = await liveSession('us', LIVENESS);
    const { photos, selfie: own } = await passportOf(8, 'hopper');
    ok(await capture.put('front', photos.front));
    ok(await capture.put('selfie', own));
    await doChallenge(capture, 'hopper');
    const cap = ok(await capture.submit(), 202).data;
    const done = await waitStatus(c, session.id, ['completed', 'manual_review', 'errored'], RUN_MS);
    const reply = await evidenceReply('us', org.id, session, cap.challenge);
    assert.deepEqual([reply.checks.face_match.outcome, reply.checks.liveness.outcome], ['pass', 'pass'], JSON.stringify(reply.checks));
    assert.ok(reply.checks.face_match.score! >= 0.6 && reply.checks.liveness.score! >= 0.65, JSON.stringify(reply.checks));
    assert.match(reply.selfie_fingerprint!, /^[0-9a-f]{16}$/);
    assert.deepEqual([done.status, done.outcome], ['completed', 'approved']);
  });

  it('a still selfie without the challenge’s frames: liveness does not pass (still_image), never approved', async () => {
    const { capture, c, session, org } = await liveSession('us', LIVENESS);
    const { photos, selfie: own } = await passportOf(9, 'hopper');
    ok(await capture.put('front', photos.front));
    ok(await capture.put('selfie', own));
    const cap = ok(await capture.submit(), 202).data;
    const done = await waitStatus(c, session.id, ['completed', 'manual_review', 'errored'], RUN_MS);
    const reply = await evidenceReply('us', org.id, session, cap.challenge);
    assert.deepEqual([reply.checks.liveness.outcome, reply.checks.liveness.reasons], ['review', ['still_image']]);
    assert.equal(reply.checks.face_match.outcome, 'pass');
    assert.notEqual(done.outcome, 'approved');
    assert.equal(done.status, 'manual_review');
  });

  it('the document’s portrait, cropped, mirrored and re-encoded, as the selfie: face_match does not pass (selfie_is_document_copy), never approved', async () => {
    const { capture, c, session, org } = await liveSession('us', { checks: ['document', 'face_match'] });
    const { photos } = await passportOf(10, 'hopper');
    ok(await capture.put('front', photos.front));
    ok(await capture.put('selfie', await sharp(await documentPortrait('hopper', 350, 450)).flop().jpeg({ quality: 80 }).toBuffer()));
    const cap = ok(await capture.submit(), 202).data;
    const done = await waitStatus(c, session.id, ['completed', 'manual_review', 'errored'], RUN_MS);
    const reply = await evidenceReply('us', org.id, session, cap.challenge);
    assert.notEqual(reply.checks.face_match.outcome, 'pass', JSON.stringify(reply.checks.face_match));
    assert.deepEqual(reply.checks.face_match.reasons, ['selfie_is_document_copy'], JSON.stringify(reply.checks.face_match));
    assert.ok(reply.checks.face_match.score! >= 0.6, 'the same person: only the picture tells');
    assert.notEqual(done.outcome, 'approved');
  });
});
