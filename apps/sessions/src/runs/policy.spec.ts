import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Applicant, CheckVerdict, IdvDocument, IdvHolder } from '@verity/contracts';
import { sessionChecks } from '../sessions/checks.js';
import { compareApplicant, judgeDocument, NO_POLICY, policyOf, type DocumentPolicy } from './policy.js';
import { liveContext, verifyRequest } from './live-run.js';

const DAY = '2026-06-15';
const document: IdvDocument = { type: 'passport', issuing_country: 'FI', number: 'XP1234567', expiry_date: '2031-01-01' };
const holder: IdvHolder = { family_name: 'LEHTINEN', given_names: ['AINO', 'KAARINA'], date_of_birth: '1990-04-01', nationality: 'FI' };
const pass: CheckVerdict = { outcome: 'pass', reasons: [], score: null };
const aino = { family_name: 'Lehtinen', given_names: ['Aino'], date_of_birth: '1990-04-01' };
const ada = { family_name: 'Lovelace', given_names: ['Ada'], date_of_birth: null };

function judge(policy: Partial<DocumentPolicy>, verdict: CheckVerdict = pass, applicant: Parameters<typeof compareApplicant>[0] = aino, read = { document, holder }) {
  return judgeDocument(verdict, read, read.holder ? compareApplicant(applicant, read.holder) : null, { ...NO_POLICY, ...policy }, DAY);
}

describe('compareApplicant', () => {
  it('the same person, part by part', () => {
    assert.deepEqual(compareApplicant(aino, holder), { family_name: true, given_names: true, date_of_birth: true, match: true });
    assert.deepEqual(compareApplicant({ ...aino, given_names: [], date_of_birth: null }, holder), { family_name: true, given_names: null, date_of_birth: null, match: true });
  });

  it('another person, or another date of birth, does not match', () => {
    assert.deepEqual(compareApplicant(ada, holder), { family_name: false, given_names: false, date_of_birth: null, match: false });
    assert.deepEqual(compareApplicant({ ...aino, date_of_birth: '1990-04-02' }, holder), { family_name: true, given_names: true, date_of_birth: false, match: false });
  });

  it('an erased applicant holds nothing to compare', () => {
    assert.equal(compareApplicant({ family_name: null, given_names: null, date_of_birth: null }, holder), null);
  });
});

describe('judgeDocument: the document policy of a template', () => {
  it('leaves a read with nothing against it alone', () => {
    assert.deepEqual(judge({ minimum_age: 18, accepted_document_types: ['passport'], accepted_issuing_countries: ['FI'] }), pass);
  });

  it('an applicant who is not the holder: review by default, fail when the template says so', () => {
    assert.deepEqual(judge({}, pass, ada), { outcome: 'review', reasons: ['applicant_mismatch'], score: null });
    assert.deepEqual(judge({ applicant_mismatch: 'fail' }, pass, ada), { outcome: 'fail', reasons: ['applicant_mismatch'], score: null });
  });

  it('a younger holder than the minimum age fails with underage, counted on the day of the run', () => {
    const young = { ...holder, date_of_birth: '2008-06-16' };
    assert.deepEqual(judge({ minimum_age: 18 }, pass, { ...aino, date_of_birth: null }, { document, holder: young }), { outcome: 'fail', reasons: ['underage'], score: null });
    const birthday = { ...holder, date_of_birth: '2008-06-15' };
    assert.deepEqual(judge({ minimum_age: 18 }, pass, { ...aino, date_of_birth: null }, { document, holder: birthday }), pass);
  });

  it('a type or issuer the template does not accept fails; an issuer that is no country is not accepted', () => {
    assert.deepEqual(judge({ accepted_document_types: ['identity_card', 'driver_license'] }), { outcome: 'fail', reasons: ['document_type_not_accepted'], score: null });
    assert.deepEqual(judge({ accepted_issuing_countries: ['NL', 'DE'] }), { outcome: 'fail', reasons: ['issuer_not_accepted'], score: null });
    const stateless = { ...document, issuing_country: null };
    assert.deepEqual(judge({ accepted_issuing_countries: ['FI'] }, pass, aino, { document: stateless, holder }), { outcome: 'fail', reasons: ['issuer_not_accepted'], score: null });
  });

  it('keeps the reader\'s reasons, most serious first, and never softens its outcome', () => {
    const expired: CheckVerdict = { outcome: 'fail', reasons: ['expired'], score: null };
    assert.deepEqual(judge({}, expired, ada), { outcome: 'fail', reasons: ['expired', 'applicant_mismatch'], score: null });
    const doubtful: CheckVerdict = { outcome: 'review', reasons: ['unknown_nationality'], score: null };
    assert.deepEqual(judge({ minimum_age: 40 }, doubtful, ada), { outcome: 'fail', reasons: ['underage', 'unknown_nationality', 'applicant_mismatch'], score: null });
    assert.deepEqual(
      judge({ minimum_age: 40, accepted_document_types: ['identity_card'], accepted_issuing_countries: ['SE'], applicant_mismatch: 'fail' }, pass, ada),
      { outcome: 'fail', reasons: ['document_type_not_accepted', 'issuer_not_accepted', 'underage', 'applicant_mismatch'], score: null },
    );
  });

  it('a document that was not read is left to the reader: there is nothing to judge', () => {
    const unread: CheckVerdict = { outcome: 'review', reasons: ['unreadable'], score: null };
    assert.deepEqual(judgeDocument(unread, { document: null, holder: null }, null, { ...NO_POLICY, minimum_age: 18, accepted_document_types: ['passport'] }, DAY), unread);
  });

  it('an erased applicant adds no mismatch', () => {
    assert.deepEqual(judgeDocument(pass, { document, holder }, null, NO_POLICY, DAY), pass);
  });

  it('a template version from before policies reads as none', () => {
    assert.deepEqual(policyOf({}), NO_POLICY);
    assert.deepEqual(policyOf({ minimum_age: 21, applicant_mismatch: 'fail' }), { ...NO_POLICY, minimum_age: 21, applicant_mismatch: 'fail' });
  });
});

describe('what a live run hands on', () => {
  it('asks the reader with the template\'s thresholds only when it has some', () => {
    assert.deepEqual(verifyRequest({ id: 'ses_x', capture_acquisition: null }, { thresholds: {} }), { session_id: 'ses_x', acquisition: 'camera', challenge: [] });
    assert.deepEqual(verifyRequest({ id: 'ses_x', capture_acquisition: 'upload' }, { thresholds: { faceMatchPass: 0.7, faceMatchReview: 0.5 } }, ['turn_right', 'turn_left']), {
      session_id: 'ses_x',
      acquisition: 'upload',
      challenge: ['turn_right', 'turn_left'],
      thresholds: { faceMatchPass: 0.7, faceMatchReview: 0.5 },
    });
  });

  it('screening sees the document beside the applicant: contract names as applicant.*, the holder as document.*', () => {
    const applicant: Applicant = { id: 'app_x', object: 'applicant', mode: 'live', family_name: 'Lovelace', given_names: ['Ada'], name_suffix: null, email: 'ada@example.com', phone: null, date_of_birth: '1815-12-10', address: null, external_id: null, erased: false, created_at: '' };
    const read = { document, holder, checks: { document: pass, face_match: pass, liveness: pass }, available_images: [], selfie_fingerprint: null };
    const checks = [{ type: 'document' as const, outcome: 'review' as const, reasons: ['applicant_mismatch'], score: null }];
    const ctx = liveContext(applicant, read, checks, null, compareApplicant(applicant, holder));
    assert.deepEqual(ctx.applicant.familyName, 'LEHTINEN');
    assert.deepEqual(ctx.document, { type: 'passport', familyName: 'LEHTINEN', givenNames: ['AINO', 'KAARINA'], dateOfBirth: '1990-04-01', issuingCountry: 'FI', nationality: 'FI', applicantMatch: false });
    assert.deepEqual(ctx.checks, { document: 'review' });
    // the applicant record itself is never touched
    assert.equal(applicant.family_name, 'Lovelace');
    assert.equal(liveContext(applicant, null, checks, null).document, undefined);
  });
});

describe('sessionChecks: the read of stored checks', () => {
  it('fills what rows written before reasons and scores lack, and drops what is not a check', () => {
    assert.deepEqual(sessionChecks([{ type: 'document', outcome: 'pass' }, { type: 'face_match', outcome: null }]), [
      { type: 'document', outcome: 'pass', reasons: [], score: null },
      { type: 'face_match', outcome: null, reasons: [], score: null },
    ]);
    assert.deepEqual(sessionChecks([{ type: 'liveness', outcome: 'review', reasons: ['spoof_suspected', 7], score: 0.5 }, { type: 'nope' }, null, 'x']), [
      { type: 'liveness', outcome: 'review', reasons: ['spoof_suspected'], score: 0.5 },
    ]);
    assert.deepEqual(sessionChecks([{ type: 'face_match', outcome: 'pass', reasons: [], score: 1.5 }])[0]!.score, null);
    assert.deepEqual(sessionChecks(null), []);
  });
});
