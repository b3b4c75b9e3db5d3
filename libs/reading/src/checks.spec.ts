import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aamvaPayload } from '@verity/specimens';
import { DEFAULT_THRESHOLDS, documentCheck, faceMatchCheck, livenessCheck, parseLicence, type DocumentRead, type FaceFindings } from './index.js';

const READ: DocumentRead = {
  document: { type: 'passport', format: 'TD3', issuing_country: 'NL', number: 'SPECI2014', expiry_date: '2034-03-09' },
  holder: { family_name: 'DE BRUIJN', given_names: ['WILLEKE'], name_suffix: null, date_of_birth: '1965-03-10', nationality: 'NL', sex: 'F' },
  reasons: [],
};

describe('the document check', () => {
  it('passes a clean read, fails an expired document, sends the rest to review', () => {
    assert.deepEqual(documentCheck({ readable: true, source: 'mrz', side: 'front', read: READ }), { outcome: 'pass', reasons: [] });
    assert.deepEqual(documentCheck({ readable: true, source: 'mrz', side: 'front', read: { ...READ, reasons: ['unknown_issuing_state', 'document_expired'] } }), {
      outcome: 'fail',
      reasons: ['document_expired', 'unknown_issuing_state'],
    });
    assert.deepEqual(documentCheck({ readable: true, source: 'mrz', side: 'front', read: { ...READ, reasons: ['unknown_nationality'] } }), { outcome: 'review', reasons: ['unknown_nationality'] });
    assert.deepEqual(documentCheck({ readable: false, reason: 'check_digit_mismatch' }), { outcome: 'review', reasons: ['check_digit_mismatch'] });
    assert.deepEqual(documentCheck({ readable: false, reason: 'no_machine_readable_data' }), { outcome: 'review', reasons: ['no_machine_readable_data'] });
  });
});

describe('the face checks', () => {
  const one: FaceFindings = { documentFaces: 1, selfieFaces: 1, similarity: 0.9, real: 0.8 };
  const t = DEFAULT_THRESHOLDS;

  it('band the similarity: pass at the match threshold, review in the doubtful band, fail below', () => {
    assert.deepEqual(faceMatchCheck({ ...one, similarity: t.faceMatchPass }), { outcome: 'pass', reasons: [] });
    assert.deepEqual(faceMatchCheck({ ...one, similarity: t.faceMatchPass - 0.01 }), { outcome: 'review', reasons: ['similarity_doubtful'] });
    assert.deepEqual(faceMatchCheck({ ...one, similarity: t.faceMatchReview }), { outcome: 'review', reasons: ['similarity_doubtful'] });
    assert.deepEqual(faceMatchCheck({ ...one, similarity: t.faceMatchReview - 0.01 }), { outcome: 'fail', reasons: ['similarity_low'] });
    assert.deepEqual(faceMatchCheck({ ...one, similarity: 0.7 }, { ...t, faceMatchPass: 0.8 }), { outcome: 'review', reasons: ['similarity_doubtful'] });
  });

  it('say which face was missing or too many', () => {
    assert.deepEqual(faceMatchCheck({ ...one, documentFaces: 0, similarity: null }), { outcome: 'review', reasons: ['no_face_on_document'] });
    assert.deepEqual(faceMatchCheck({ ...one, selfieFaces: 2, similarity: null }), { outcome: 'review', reasons: ['several_faces_in_selfie'] });
    assert.deepEqual(faceMatchCheck({ documentFaces: 0, selfieFaces: 0, similarity: null, real: null }), { outcome: 'review', reasons: ['no_face_on_document', 'no_face_in_selfie'] });
    assert.deepEqual(livenessCheck({ ...one, selfieFaces: 3, real: null }), { outcome: 'review', reasons: ['several_faces_in_selfie'] });
  });

  it('band the anti-spoofing score for liveness', () => {
    assert.deepEqual(livenessCheck(one), { outcome: 'pass', reasons: [] });
    assert.deepEqual(livenessCheck({ ...one, real: 0.6 }), { outcome: 'review', reasons: ['presentation_attack_suspected'] });
    assert.deepEqual(livenessCheck({ ...one, real: 0.3 }), { outcome: 'fail', reasons: ['presentation_attack_detected'] });
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
    assert.deepEqual(r?.reasons, ['document_expired']);
  });

  it('refuses text that is not an AAMVA licence', () => {
    assert.equal(parseLicence('HELLO WORLD', '2026-11-25'), null);
  });
});
