import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aamvaPayload } from '@verity/specimens';
import { DEFAULT_THRESHOLDS, documentCheck, faceMatchCheck, parseLicence, selfieGates, type DocumentRead, type FaceFindings, type FaceMeasures } from './index.js';

const READ: DocumentRead = {
  document: { type: 'passport', format: 'TD3', issuing_country: 'NL', number: 'SPECI2014', expiry_date: '2034-03-09' },
  holder: { family_name: 'DE BRUIJN', given_names: ['WILLEKE'], name_suffix: null, date_of_birth: '1965-03-10', nationality: 'NL', sex: 'F' },
  reasons: [],
};

describe('the document check', () => {
  const outcome = (reasons: DocumentRead['reasons']) => ({ readable: true as const, source: 'mrz' as const, side: 'front' as const, read: { ...READ, reasons }, printed: null });

  it('passes a clean read, fails an expired document, sends the rest to review', () => {
    assert.deepEqual(documentCheck(outcome([])), { outcome: 'pass', reasons: [], score: null });
    assert.deepEqual(documentCheck(outcome(['unknown_issuing_state', 'expired'])), { outcome: 'fail', reasons: ['expired', 'unknown_issuing_state'], score: null });
    assert.deepEqual(documentCheck(outcome(['unknown_nationality'])), { outcome: 'review', reasons: ['unknown_nationality'], score: null });
    assert.deepEqual(documentCheck({ readable: false, reason: 'check_digit_mismatch' }), { outcome: 'review', reasons: ['check_digit_mismatch'], score: null });
    assert.deepEqual(documentCheck({ readable: false, reason: 'unreadable' }), { outcome: 'review', reasons: ['unreadable'], score: null });
  });

  it('never passes a read with no document around it, or whose printed data disagrees or was not read', () => {
    assert.deepEqual(documentCheck(outcome(['document_not_found'])), { outcome: 'fail', reasons: ['document_not_found'], score: null });
    assert.deepEqual(documentCheck(outcome(['data_mismatch'])), { outcome: 'review', reasons: ['data_mismatch'], score: null });
    assert.deepEqual(documentCheck(outcome(['printed_data_unreadable'])), { outcome: 'review', reasons: ['printed_data_unreadable'], score: null });
    assert.deepEqual(documentCheck(outcome(['data_mismatch', 'expired'])), { outcome: 'fail', reasons: ['expired', 'data_mismatch'], score: null });
  });
});

describe('the face match', () => {
  const good: FaceMeasures = { size: 0.4, yaw: 2, pitch: -3, eyesOpen: 0.3, sharpness: 120 };
  const one: FaceFindings = { documentFaces: 1, selfieFaces: 1, selfie: good, similarity: 0.9, pictureSimilarity: 0.2 };
  const t = DEFAULT_THRESHOLDS;

  it('bands the similarity: pass at the match threshold, review in the band below, fail under the review threshold; the score is the similarity', () => {
    assert.deepEqual(faceMatchCheck({ ...one, similarity: t.faceMatchPass }), { outcome: 'pass', reasons: [], score: t.faceMatchPass });
    assert.deepEqual(faceMatchCheck({ ...one, similarity: t.faceMatchPass - 0.01 }), { outcome: 'review', reasons: ['similarity_low'], score: t.faceMatchPass - 0.01 });
    assert.deepEqual(faceMatchCheck({ ...one, similarity: t.faceMatchReview }), { outcome: 'review', reasons: ['similarity_low'], score: t.faceMatchReview });
    assert.deepEqual(faceMatchCheck({ ...one, similarity: t.faceMatchReview - 0.01 }), { outcome: 'fail', reasons: ['similarity_low'], score: t.faceMatchReview - 0.01 });
    assert.deepEqual(faceMatchCheck({ ...one, similarity: 0.7 }, { ...t, faceMatchPass: 0.8 }), { outcome: 'review', reasons: ['similarity_low'], score: 0.7 });
  });

  it('says which face was missing or too many, with no score', () => {
    assert.deepEqual(faceMatchCheck({ ...one, documentFaces: 0, similarity: null, pictureSimilarity: null }), { outcome: 'review', reasons: ['no_face'], score: null });
    assert.deepEqual(faceMatchCheck({ ...one, selfieFaces: 0, selfie: null, similarity: null, pictureSimilarity: null }), { outcome: 'review', reasons: ['no_face'], score: null });
    assert.deepEqual(faceMatchCheck({ ...one, selfieFaces: 2, selfie: null, similarity: null, pictureSimilarity: null }), { outcome: 'review', reasons: ['multiple_faces'], score: null });
  });

  it('fails a selfie that is the document’s picture, however alike the people are; sends one that may be to a person', () => {
    assert.deepEqual(faceMatchCheck({ ...one, similarity: 0.99, pictureSimilarity: t.documentCopy }), { outcome: 'fail', reasons: ['selfie_is_document_copy'], score: 0.99 });
    assert.deepEqual(faceMatchCheck({ ...one, similarity: 0.99, pictureSimilarity: t.documentCopyReview }), { outcome: 'review', reasons: ['selfie_is_document_copy'], score: 0.99 });
    assert.equal(faceMatchCheck({ ...one, pictureSimilarity: t.documentCopyReview - 0.01 }).outcome, 'pass');
  });

  it('sends a selfie that fails a quality gate to review, naming every gate', () => {
    const check = (m: Partial<FaceMeasures>) => faceMatchCheck({ ...one, selfie: { ...good, ...m } });
    assert.deepEqual(check({ size: t.faceMinSize - 0.01 }).reasons, ['face_too_small']);
    assert.deepEqual(check({ yaw: -(t.faceMaxAngle + 1) }).reasons, ['face_not_frontal']);
    assert.deepEqual(check({ pitch: t.faceMaxAngle + 1 }).reasons, ['face_not_frontal']);
    assert.deepEqual(check({ eyesOpen: t.eyesOpen - 0.01 }).reasons, ['eyes_closed']);
    assert.deepEqual(check({ sharpness: t.sharpness - 1, eyesOpen: 0 }), { outcome: 'review', reasons: ['eyes_closed', 'blurred'], score: 0.9 });
    assert.deepEqual(check({ size: t.faceMinSize, yaw: t.faceMaxAngle, eyesOpen: t.eyesOpen, sharpness: t.sharpness }).outcome, 'pass');
    assert.deepEqual(selfieGates({ ...good, sharpness: 1 }), ['blurred']);
  });
});

describe('AAMVA barcode text to fields', () => {
  const base = { familyName: 'Ramírez García', givenNames: ['José', 'Luis', 'Miguel'], dateOfBirth: '1990-11-30', sex: 'M' as const, number: 'D1234567', issueDate: '2024-01-02', expiryDate: '2032-11-30' };

  it('reads a US licence: names from their elements, MMDDCCYY dates, the suffix verbatim', () => {
    const r = parseLicence(aamvaPayload({ ...base, jurisdiction: 'CA', nameSuffix: 'Jr' }), '2026-11-25');
    assert.deepEqual(r, {
      document: { type: 'driver_license', format: 'AAMVA', issuing_country: 'US', number: 'D1234567', expiry_date: '2032-11-30' },
      holder: { family_name: 'RAMIREZ GARCIA', given_names: ['JOSE', 'LUIS', 'MIGUEL'], name_suffix: 'JR', date_of_birth: '1990-11-30', nationality: null, sex: 'M' },
      reasons: [],
    });
  });

  it('reads a Canadian licence with CCYYMMDD dates; no middle name is NONE; an expired licence says so', () => {
    const r = parseLicence(aamvaPayload({ ...base, givenNames: ['José'], jurisdiction: 'ON', expiryDate: '2025-01-01' }), '2026-11-25');
    assert.equal(r?.document.issuing_country, 'CA');
    assert.equal(r?.holder.date_of_birth, '1990-11-30');
    assert.deepEqual(r?.holder.given_names, ['JOSE']);
    assert.deepEqual(r?.reasons, ['expired']);
  });

  it('refuses text that is not an AAMVA licence', () => {
    assert.equal(parseLicence('HELLO WORLD', '2026-11-25'), null);
  });
});
