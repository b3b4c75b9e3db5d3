import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { catalogueSpecimen, photograph, renderSpecimen, selfie, twoPeopleSelfie, type Person } from '@verity/specimens';
import { DEFAULT_THRESHOLDS, FaceEngine, MrzOcr, verify } from './index.js';

const TODAY = '2026-11-25';
let ocr: MrzOcr;
let faces: FaceEngine;
const passports = new Map<Person, Buffer>();

before(async () => {
  [ocr, faces] = await Promise.all([MrzOcr.start(), FaceEngine.start()]);
  for (const [i, person] of [[0, 'collins'], [1, 'hopper']] as const) {
    const s = catalogueSpecimen('td3', i, TODAY);
    assert.equal(s.holder.person, person);
    passports.set(person, await photograph((await renderSpecimen(s)).front, { rotation: 9, blur: 0.8, seed: i + 3, width: 2400, height: 1800 }));
  }
});
after(async () => {
  await ocr.close();
});

describe('faces: the portrait, the face match and liveness', () => {
  it('the same person passes the face match; the portrait is the face cropped from the document as a JPEG', async () => {
    for (const person of ['collins', 'hopper'] as const) {
      const v = await verify(ocr, faces, { front: passports.get(person)!, back: null, selfie: await selfie(person) }, DEFAULT_THRESHOLDS, TODAY);
      assert.ok(v.findings.similarity! >= DEFAULT_THRESHOLDS.faceMatchPass, `${person}: ${v.findings.similarity}`);
      assert.deepEqual(v.checks.face_match, { outcome: 'pass', reasons: [] });
      assert.ok(v.document.readable);
      const meta = await sharp(v.portrait!).metadata();
      assert.equal(meta.format, 'jpeg');
      assert.ok(meta.width < 700 && meta.height < 700 && meta.height > 150, `${meta.width}×${meta.height}`);
      // the portrait shows one face, and it is the holder's
      const again = await faces.faces(v.portrait!);
      assert.equal(again.faces.length, 1);
      const self = await faces.faces(await selfie(person));
      assert.ok(faces.similarity(again.faces[0], self.faces[0]) >= DEFAULT_THRESHOLDS.faceMatchPass);
    }
  });

  it('another person fails the face match, below the review band', async () => {
    const v = await verify(ocr, faces, { front: passports.get('collins')!, back: null, selfie: await selfie('hopper') }, DEFAULT_THRESHOLDS, TODAY);
    assert.ok(v.findings.similarity! < DEFAULT_THRESHOLDS.faceMatchReview, String(v.findings.similarity));
    assert.deepEqual(v.checks.face_match, { outcome: 'fail', reasons: ['similarity_low'] });
  });

  it('two faces in the selfie, and no face on the document, are reasons of their own', async () => {
    const two = await verify(ocr, faces, { front: passports.get('hopper')!, back: null, selfie: await twoPeopleSelfie() }, DEFAULT_THRESHOLDS, TODAY);
    assert.equal(two.findings.selfieFaces, 2);
    assert.deepEqual(two.checks.face_match, { outcome: 'review', reasons: ['several_faces_in_selfie'] });
    assert.deepEqual(two.checks.liveness, { outcome: 'review', reasons: ['several_faces_in_selfie'] });

    const blank = (await renderSpecimen(catalogueSpecimen('td3', 2, TODAY), { portrait: false })).front;
    const none = await verify(ocr, faces, { front: blank, back: null, selfie: await selfie('collins') }, DEFAULT_THRESHOLDS, TODAY);
    assert.equal(none.portrait, null);
    assert.deepEqual(none.checks.face_match, { outcome: 'review', reasons: ['no_face_on_document'] });
    assert.ok(none.document.readable);
  });

  it('scores the selfie for presentation attacks: a photo of the printed document scores below a selfie', async () => {
    const live = await verify(ocr, faces, { front: passports.get('collins')!, back: null, selfie: await selfie('collins') }, DEFAULT_THRESHOLDS, TODAY);
    const printed = await sharp(passports.get('collins')!).resize({ width: 960 }).jpeg({ quality: 80 }).toBuffer();
    const attack = await verify(ocr, faces, { front: passports.get('collins')!, back: null, selfie: printed }, DEFAULT_THRESHOLDS, TODAY);
    assert.equal(live.checks.liveness?.outcome, 'pass');
    assert.ok(attack.findings.real! < live.findings.real!, `${attack.findings.real} < ${live.findings.real}`);
    assert.notEqual(attack.checks.liveness?.outcome, 'pass');
  });

  it('keeps embeddings in memory only: nothing of them is in the result', async () => {
    const v = await verify(ocr, faces, { front: passports.get('collins')!, back: null, selfie: await selfie('collins') }, DEFAULT_THRESHOLDS, TODAY);
    const json = JSON.stringify({ ...v, portrait: null });
    assert.ok(!/embedding/.test(json));
    assert.deepEqual(Object.keys(v.findings).sort(), ['documentFaces', 'real', 'selfieFaces', 'similarity']);
  });
});
