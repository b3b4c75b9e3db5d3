import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError, type Issue } from '@verity/errors';
import { validateCreateBody, validateDecisionBody, validateNoteBody, validateReasonBody } from './session.validation.js';

function refusal(fn: () => unknown): { param?: string; issues: Issue[] } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof DomainError);
    assert.equal(e.code, 'validation_error');
    return { param: e.param, issues: (e.details as { issues: Issue[] }).issues };
  }
  assert.fail('expected a validation error');
}

const ids = { applicant_id: 'app_x', workflow_template_id: 'wft_x' };

describe('POST /v1/sessions body', () => {
  it('defaults expected_outcome to pass in test mode and keeps the four values', () => {
    assert.equal(validateCreateBody(ids, 'test').expected_outcome, 'pass');
    for (const v of ['pass', 'review', 'fail', 'doc_quality']) {
      assert.equal(validateCreateBody({ ...ids, expected_outcome: v }, 'test').expected_outcome, v);
    }
  });

  it('refuses any other expected_outcome in test mode, null and other cases included', () => {
    for (const v of ['PASS', 'approve', '', null, 1, ['pass'], 'doc-quality']) {
      const r = refusal(() => validateCreateBody({ ...ids, expected_outcome: v }, 'test'));
      assert.equal(r.param, 'expected_outcome');
      assert.deepEqual(r.issues[0]!.path, ['expected_outcome']);
    }
  });

  it('drops expected_outcome silently in live mode, whatever it holds', () => {
    for (const v of ['fail', 'nonsense', null, undefined]) {
      assert.equal(validateCreateBody({ ...ids, expected_outcome: v }, 'live').expected_outcome, null);
    }
  });

  it('refuses unknown fields before anything else', () => {
    const r = refusal(() => validateCreateBody({ ...ids, colour: 'red', metadata: { notes: 'x' }, expected_outcome: 'nope' }, 'test'));
    assert.deepEqual(r.issues, [{ code: 'unrecognized_keys', message: 'unknown field: colour', path: ['colour'] }]);
    assert.equal(r.param, 'colour');
  });

  it('checks metadata before expected_outcome, reporting every metadata issue with param metadata', () => {
    const r = refusal(() => validateCreateBody({ ...ids, metadata: { amount: '100', notes: 'x' }, expected_outcome: 'nope' }, 'test'));
    assert.equal(r.param, 'metadata');
    assert.deepEqual(
      r.issues.map((i) => i.path),
      [
        ['metadata', 'notes'],
        ['metadata', 'amount'],
        ['metadata', 'currency'],
      ],
    );
  });

  it('stores metadata as sent except location, which is trimmed', () => {
    const metadata = { location: '  Berlin  ', custom: { nested: [1, 'a'] }, currency: 'usd' };
    assert.deepEqual(validateCreateBody({ ...ids, metadata }, 'test').metadata, { location: 'Berlin', custom: { nested: [1, 'a'] }, currency: 'usd' });
  });

  it('leaves the ids to the service (404 after the body checks)', () => {
    const v = validateCreateBody({ applicant_id: 42 }, 'test');
    assert.equal(v.applicant_id, 42);
    assert.equal(v.workflow_template_id, undefined);
  });

  it('refuses a body that is not an object', () => {
    for (const b of [null, [], 'x', 3, undefined]) assert.equal(refusal(() => validateCreateBody(b, 'test')).issues.length, 1);
  });
});

describe('action bodies', () => {
  it('note: required, not blank, at most 2000 characters, nothing else', () => {
    assert.deepEqual(validateNoteBody({ note: 'called the applicant' }), { note: 'called the applicant' });
    assert.equal(validateNoteBody({ note: '🙂'.repeat(2000) }).note.length, 4000);
    assert.equal(validateNoteBody({ note: 'line one\nline two' }).note, 'line one\nline two');
    for (const b of [{}, { note: '' }, { note: '  ' }, { note: 3 }, { note: 'x'.repeat(2001) }, { note: 'x', extra: 1 }, null, { note: 'a\u0000b' }, { note: 'a\ud800' }]) {
      refusal(() => validateNoteBody(b));
    }
  });

  it('cancel and review: reason optional, no body accepted', () => {
    assert.deepEqual(validateReasonBody(undefined), {});
    assert.deepEqual(validateReasonBody(null), {});
    assert.deepEqual(validateReasonBody({}), {});
    assert.deepEqual(validateReasonBody({ reason: 'duplicate' }), { reason: 'duplicate' });
    for (const b of [{ reason: '' }, { reason: null }, { reason: 'x'.repeat(501) }, { why: 'x' }, 'reason']) refusal(() => validateReasonBody(b));
  });

  it('decision: outcome approved or declined, reason optional', () => {
    assert.deepEqual(validateDecisionBody({ outcome: 'approved' }), { outcome: 'approved' });
    assert.deepEqual(validateDecisionBody({ outcome: 'declined', reason: 'forged' }), { outcome: 'declined', reason: 'forged' });
    for (const b of [{}, { outcome: 'pass' }, { outcome: null }, { outcome: 'approved', extra: true }, undefined]) {
      refusal(() => validateDecisionBody(b));
    }
    assert.equal(refusal(() => validateDecisionBody({ outcome: 'maybe' })).param, 'outcome');
  });
});
