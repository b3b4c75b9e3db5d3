import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '@verity/errors';
import { newId } from '@verity/keys';
import { loadConfig } from '@verity/platform';
import { retentionEnv } from '../config.js';
import { validatePrivacyRequest } from './privacy.service.js';

describe('data subject request steps', () => {
  it('take an applicant id and session ids (each once); anything else is validation_error', () => {
    const [a, s1, s2] = [newId('applicant'), newId('session'), newId('session')];
    assert.deepEqual(validatePrivacyRequest({ applicant_id: a, session_ids: [s1, s2, s1] }), { applicant_id: a, session_ids: [s1, s2] });
    assert.deepEqual(validatePrivacyRequest({ applicant_id: a, session_ids: [] }), { applicant_id: a, session_ids: [] });
    for (const bad of [undefined, null, {}, { applicant_id: a }, { applicant_id: 'app_x', session_ids: [] }, { applicant_id: a, session_ids: ['ses_x'] }, { applicant_id: a, session_ids: s1 }, { applicant_id: a, session_ids: [1] }]) {
      assert.throws(() => validatePrivacyRequest(bad), (e: unknown) => e instanceof DomainError && e.code === 'validation_error', JSON.stringify(bad));
    }
  });
});

describe('retention configuration', () => {
  it('defaults: 90 days, 100 rows a batch, every hour', () => {
    assert.deepEqual(loadConfig(retentionEnv, {}), { EVIDENCE_RETENTION_DAYS: 90, EVIDENCE_RETENTION_BATCH: 100, EVIDENCE_RETENTION_INTERVAL_MS: 3_600_000 });
    assert.equal(loadConfig(retentionEnv, { EVIDENCE_RETENTION_DAYS: '1' }).EVIDENCE_RETENTION_DAYS, 1);
  });

  it('refuses days below 1 or not whole, and a batch or interval out of range', () => {
    for (const env of [{ EVIDENCE_RETENTION_DAYS: '0' }, { EVIDENCE_RETENTION_DAYS: '1.5' }, { EVIDENCE_RETENTION_DAYS: 'ninety' }, { EVIDENCE_RETENTION_BATCH: '0' }, { EVIDENCE_RETENTION_INTERVAL_MS: '10' }]) {
      assert.throws(() => loadConfig(retentionEnv, env), JSON.stringify(env));
    }
  });
});
