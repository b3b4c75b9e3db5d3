/**
 * Contract §20, the document tried as an attacker would, through the capture API of a live session on the shared
 * stack: a machine-readable zone printed alone on plain paper (at its real size, and stretched over the sheet) and
 * the front of one identity card with the back of another are never `approved`, and the session read says why
 * (`document_not_found`, `data_mismatch`). The faces, liveness and the applicant's names have tests of their own
 * (trusted-selfies, live-checks); these workflows check the document and the face match only.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { catalogueSpecimen, mrzOnPaper, photograph, renderSpecimen, selfie, type Specimen } from '@verity/specimens';
import { DEFAULT_HOLDER, liveSession, ok } from './capture-support.js';
import { closeStreams, RESTING, waitStatus } from './sessions-support.js';
import { closeOperators } from './support.js';

const RUN_MS = 30_000;
/** A phone photo of a page: its frame, how it lies on the desk. */
const PHOTO = { width: 2400, height: 1800, rotation: 3, seed: 41 };

after(async () => {
  await closeOperators();
  await closeStreams();
});

/** A specimen of `kind` made out to the applicant `liveSession` creates, with a face of `person`. */
function applicantsDocument(kind: 'td1' | 'td3', i: number, person: 'collins' | 'hopper'): Specimen {
  const s = catalogueSpecimen(kind, i);
  return {
    holder: { ...s.holder, familyName: DEFAULT_HOLDER.familyName, givenNames: [...DEFAULT_HOLDER.givenNames], dateOfBirth: DEFAULT_HOLDER.dateOfBirth, person },
    document: { ...s.document, issuer: 'NLD' },
  };
}

/** A live session of a workflow checking the document and the face match, captured with these images and submitted; its read once it rests. */
async function capturedSession(images: { front: Buffer; back?: Buffer; selfie: Buffer }) {
  const { c, session, capture } = await liveSession('us', { checks: ['document', 'face_match'] });
  ok(await capture.put('front', images.front));
  if (images.back) ok(await capture.put('back', images.back));
  ok(await capture.put('selfie', images.selfie));
  ok(await capture.submit({ acquisition: 'camera' }), 202);
  return waitStatus(c, session.id, RESTING, RUN_MS);
}

describe('the document is one real document, read whole (contract §20)', () => {
  for (const size of ['real', 'fill'] as const) {
    it(`a machine-readable zone printed alone on plain paper (${size === 'real' ? 'at its real size' : 'stretched over the sheet'}), with a face beside it: document_not_found, never approved`, async () => {
      const s = applicantsDocument('td3', 2, 'collins');
      const paper = await photograph(await mrzOnPaper(s, { size, face: 'collins' }), { ...PHOTO, coverage: 0.85 });
      const done = await capturedSession({ front: paper, selfie: await selfie('collins') });
      assert.notEqual(done.outcome, 'approved', JSON.stringify(done.checks));
      const document = done.checks.find((c) => c.type === 'document')!;
      assert.notEqual(document.outcome, 'pass');
      assert.ok(document.reasons.includes('document_not_found'), JSON.stringify(document));
      assert.equal(document.score, null);
    });
  }

  it("the front of one card (its portrait and printed names) with the back of another (the applicant's zone): data_mismatch, never approved", async () => {
    // the back is the applicant's card; the front, portrait and printed names, is someone else's, whose selfie is sent
    const victim = applicantsDocument('td1', 1, 'hopper');
    const other = catalogueSpecimen('td1', 2);
    const attacker: Specimen = { holder: { ...other.holder, familyName: 'Mallory', givenNames: ['Eve'], dateOfBirth: '1984-02-29', person: 'collins' }, document: { ...other.document, issuer: 'NLD' } };
    const [front, back] = await Promise.all([renderSpecimen(attacker).then((r) => photograph(r.front, PHOTO)), renderSpecimen(victim).then((r) => photograph(r.back!, { ...PHOTO, seed: 42 }))]);
    const done = await capturedSession({ front, back, selfie: await selfie('collins') });
    assert.notEqual(done.outcome, 'approved', JSON.stringify(done.checks));
    const document = done.checks.find((c) => c.type === 'document')!;
    assert.notEqual(document.outcome, 'pass');
    assert.ok(document.reasons.includes('data_mismatch'), JSON.stringify(document));
    // what was read is the back's data: the reviewer sees whose zone it was
    assert.equal(done.idv?.holder?.family_name, 'DOE');
  });

  it('the genuine card, front and back, of the applicant passes the document check', async () => {
    const card = applicantsDocument('td1', 1, 'hopper');
    const r = await renderSpecimen(card);
    const [front, back] = await Promise.all([photograph(r.front, PHOTO), photograph(r.back!, { ...PHOTO, seed: 42 })]);
    const done = await capturedSession({ front, back, selfie: await selfie('hopper') });
    const document = done.checks.find((c) => c.type === 'document')!;
    assert.deepEqual([document.outcome, document.reasons], ['pass', []], JSON.stringify(done.checks));
    assert.deepEqual([done.status, done.outcome], ['completed', 'approved'], JSON.stringify(done.checks));
  });
});
