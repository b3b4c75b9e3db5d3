/**
 * Faces with the real engines (Human on WebAssembly, Tesseract for the document): the portrait, the face match
 * with its quality gates, the selfie that is the document's own picture, liveness from the challenge's frames,
 * and one image checked on its own. One engine load for the file.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { catalogueSpecimen, challengeFrames, documentPortrait, photograph, renderSpecimen, selfie, twoPeopleSelfie, type Person } from '@verity/specimens';
import { checkDocumentImage, checkSelfieImage, closeReaders, DEFAULT_THRESHOLDS, FaceEngine, hammingDistance, startReaders, verify, type Readers, type Verification } from '../src/index.js';

const TODAY = '2026-11-25';
const T = DEFAULT_THRESHOLDS;
let readers: Readers;
let faces: FaceEngine;
const passports = new Map<Person, Buffer>();

before(async () => {
  [readers, faces] = await Promise.all([startReaders(), FaceEngine.start()]);
  for (const [i, person] of [[0, 'collins'], [1, 'hopper']] as const) {
    const s = catalogueSpecimen('td3', i, TODAY);
    assert.equal(s.holder.person, person);
    passports.set(person, await photograph((await renderSpecimen(s)).front, { rotation: 9, blur: 0.8, seed: i + 3, width: 2400, height: 1800 }));
  }
});
after(async () => {
  await closeReaders(readers);
});

const run = (person: Person, selfieImage: Buffer | null, more: { frames?: { image: Buffer; offsetMs: number }[]; challenge?: ('turn_left' | 'turn_right')[] } = {}) =>
  verify(readers, faces, { front: passports.get(person)!, back: null, selfie: selfieImage, ...more }, T, TODAY);

describe('the face match', () => {
  it('passes the holder in another pose; the portrait is the face cropped from the document as a JPEG; the score is the similarity', async () => {
    for (const person of ['collins', 'hopper'] as const) {
      const v = await run(person, await selfie(person));
      assert.deepEqual([v.checks.face_match?.outcome, v.checks.face_match?.reasons], ['pass', []], `${person}: ${JSON.stringify(v.findings)}`);
      assert.equal(v.checks.face_match?.score, v.findings.similarity);
      assert.ok(v.findings.pictureSimilarity! < T.documentCopyReview, `${person}: ${v.findings.pictureSimilarity}`);
      assert.ok(v.document.readable);
      const meta = await sharp(v.portrait!).metadata();
      assert.equal(meta.format, 'jpeg');
      assert.ok(meta.width < 700 && meta.height < 700 && meta.height > 150, `${meta.width}×${meta.height}`);
      assert.equal((await faces.faces(v.portrait!)).faces.length, 1);
    }
  });

  it('fails another person under the review band', async () => {
    const v = await run('collins', await selfie('hopper'));
    assert.ok(v.findings.similarity! < T.faceMatchReview, String(v.findings.similarity));
    assert.deepEqual(v.checks.face_match, { outcome: 'fail', reasons: ['similarity_low'], score: v.findings.similarity });
  });

  it('never passes the document’s own picture as the selfie, cropped, mirrored, brightened, re-encoded or photographed off the print', async () => {
    const crop = await sharp(await documentPortrait('hopper', 350, 450)).flop().modulate({ brightness: 1.2 }).jpeg({ quality: 70 }).toBuffer();
    const print = await sharp(passports.get('collins')!).resize({ width: 1200 }).jpeg({ quality: 75 }).toBuffer();
    for (const [person, image] of [['hopper', crop], ['collins', print], ['collins', await selfie('collins', { yaw: 0 })]] as const) {
      const v = await run(person, image);
      assert.ok(v.findings.similarity! >= T.faceMatchPass, `the people match: ${v.findings.similarity}`);
      assert.notEqual(v.checks.face_match?.outcome, 'pass', `${person}: ${v.findings.pictureSimilarity}`);
      assert.deepEqual(v.checks.face_match?.reasons, ['selfie_is_document_copy'], `${person}: ${v.findings.pictureSimilarity}`);
    }
  });

  it('names a missing face, several faces, and each quality gate a selfie fails', async () => {
    const two = await run('hopper', await twoPeopleSelfie());
    assert.deepEqual(two.checks.face_match, { outcome: 'review', reasons: ['multiple_faces'], score: null });
    const blank = (await renderSpecimen(catalogueSpecimen('td3', 2, TODAY), { portrait: false })).front;
    const none = await verify(readers, faces, { front: blank, back: null, selfie: await selfie('collins') }, T, TODAY);
    assert.equal(none.portrait, null);
    assert.deepEqual(none.checks.face_match, { outcome: 'review', reasons: ['no_face'], score: null });

    const own = await selfie('hopper');
    const blurred = await sharp(own).blur(7).jpeg().toBuffer();
    const small = await sharp({ create: { width: 2400, height: 1800, channels: 3, background: '#6b7f8e' } })
      .composite([{ input: await sharp(own).resize({ height: 300 }).toBuffer(), left: 1000, top: 700 }])
      .jpeg()
      .toBuffer();
    assert.deepEqual((await checkSelfieImage(faces, blurred, T)).reasons, ['blurred']);
    assert.deepEqual(await checkSelfieImage(faces, small, T), { usable: false, reasons: ['face_too_small'] });
    assert.deepEqual(await checkSelfieImage(faces, own, T), { usable: true, reasons: [] });
    // the gates are the thresholds': a stricter angle turns the same selfie away
    assert.deepEqual(await checkSelfieImage(faces, await selfie('collins', { yaw: 25 }), { ...T, faceMaxAngle: 3 }), { usable: false, reasons: ['face_not_frontal'] });
    // in a run, a selfie that fails a gate is not passed, whatever its similarity
    const v = await run('hopper', blurred);
    assert.notEqual(v.checks.face_match?.outcome, 'pass');
    assert.ok(v.checks.face_match?.reasons.includes('blurred'));
  });
});

describe('liveness', () => {
  let own: Buffer;
  let done: Verification;
  before(async () => {
    own = await selfie('hopper');
    done = await run('hopper', own, { frames: await challengeFrames('hopper', ['turn_left', 'turn_right']), challenge: ['turn_left', 'turn_right'] });
  });

  it('a still selfie never passes', async () => {
    const v = await run('hopper', own);
    assert.deepEqual([v.checks.liveness?.outcome, v.checks.liveness?.reasons], ['review', ['still_image']]);
  });

  it('passes the challenge done as asked: the head turns in order, the same person as the selfie, scored live', () => {
    assert.deepEqual(done.liveness.frames.map((f) => f.faces), [1, 1, 1, 1, 1]);
    assert.deepEqual([done.checks.liveness?.outcome, done.checks.liveness?.reasons], ['pass', []], JSON.stringify(done.liveness));
    assert.ok(done.checks.liveness!.score! >= T.livenessPass);
  });

  it('does not pass the frames of another challenge, or of another person', async () => {
    const reversed = await run('hopper', own, { frames: await challengeFrames('hopper', ['turn_right', 'turn_left']), challenge: ['turn_left', 'turn_right'] });
    assert.deepEqual([reversed.checks.liveness?.outcome, reversed.checks.liveness?.reasons], ['review', ['challenge_failed']]);
    const other = await run('hopper', own, { frames: await challengeFrames('collins', ['turn_left', 'turn_right']), challenge: ['turn_left', 'turn_right'] });
    assert.deepEqual([other.checks.liveness?.outcome, other.checks.liveness?.reasons], ['fail', ['challenge_failed']]);
  });

  it('keeps embeddings and face pictures in memory only; the selfie’s fingerprint survives re-encoding and the mirror, and differs for another photograph', async () => {
    const json = JSON.stringify({ ...done, portrait: null });
    assert.ok(!/embedding|aligned|mesh/.test(json));
    assert.deepEqual(Object.keys(done.findings).sort(), ['documentFaces', 'pictureSimilarity', 'selfie', 'selfieFaces', 'similarity']);
    const again = await run('hopper', await sharp(own).flop().resize({ width: 600 }).jpeg({ quality: 60 }).toBuffer());
    assert.ok(hammingDistance(done.selfieFingerprint!, again.selfieFingerprint!) <= 6, `${done.selfieFingerprint} ${again.selfieFingerprint}`);
    const another = await run('hopper', await selfie('collins'));
    assert.ok(hammingDistance(done.selfieFingerprint!, another.selfieFingerprint!) > 16, `${done.selfieFingerprint} ${another.selfieFingerprint}`);
  });
});

describe('an image checked on its own', () => {
  it('a readable passport is usable; the same page blurred is not, with the reason the run would give', async () => {
    assert.deepEqual(await checkDocumentImage(readers, faces, passports.get('hopper')!, 'front', 'passport', T, TODAY), { usable: true, reasons: [] });
    const blurred = await sharp(passports.get('hopper')!).blur(6).jpeg().toBuffer();
    assert.deepEqual(await checkDocumentImage(readers, faces, blurred, 'front', 'passport', T, TODAY), { usable: false, reasons: ['unreadable'] });
  });
});
