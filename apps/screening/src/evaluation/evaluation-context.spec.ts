import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError, type Issue } from '@verity/errors';
import { compileRules, validateScreeningRules } from '@verity/screening-engine';
import { toEvaluationContext } from './evaluation-context.js';
import { toEvaluateReply } from './evaluation.service.js';

const wire = (over: Record<string, unknown> = {}) => ({
  applicant: { familyName: 'Doe', givenNames: ['Jane'], dateOfBirth: '2010-06-01' },
  findings: [],
  checks: { document: 'pass' },
  now: '2026-05-31T12:00:00.000Z',
  ...over,
});

function paths(fn: () => unknown): (string | number)[][] {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof DomainError);
    assert.equal(e.code, 'validation_error');
    return (e.details as { issues: Issue[] }).issues.map((i) => i.path);
  }
  assert.fail('expected a refusal');
}

describe('evaluation context from the wire', () => {
  it('turns now into a Date and keeps the members', () => {
    const ctx = toEvaluationContext(wire({ fraud: { botScore: 3 }, device: { velocity: { sessionCount: 2 } } }));
    assert.ok(ctx.now instanceof Date);
    assert.equal(ctx.now.toISOString(), '2026-05-31T12:00:00.000Z');
    assert.deepEqual(ctx.fraud, { botScore: 3 });
    assert.deepEqual(ctx.device, { velocity: { sessionCount: 2 } });
    assert.equal('fraud' in toEvaluationContext(wire()), false);
    assert.equal(toEvaluationContext(wire({ now: '2026-05-31T14:00:00+02:00' })).now.toISOString(), '2026-05-31T12:00:00.000Z');
  });

  it('refuses a now that is not an instant with an offset, and containers of the wrong kind', () => {
    for (const now of ['2026-05-31', '2026-05-31T12:00:00', 'yesterday', 1748692800000, '2026-02-30T00:00:00Z', undefined]) {
      assert.deepEqual(paths(() => toEvaluationContext(wire({ now }))), [['context', 'now']], String(now));
    }
    assert.deepEqual(paths(() => toEvaluationContext(wire({ applicant: null, findings: {}, checks: [], fraud: 'x' }))), [
      ['context', 'applicant'],
      ['context', 'checks'],
      ['context', 'fraud'],
      ['context', 'findings'],
    ]);
    assert.deepEqual(paths(() => toEvaluationContext('x')), [['context']]);
  });

  it('the age at `now` drives a rule, and the reply carries the decision and trace in wire names', () => {
    const v = validateScreeningRules([
      { name: 'minor', ruleType: 'age_restriction', condition: { kind: 'field', field: 'applicant.age', operator: 'lt', value: 18 }, action: 'review', priority: 5 },
      { name: 'watch', ruleType: 'custom', condition: { kind: 'field', field: 'check.document.outcome', operator: 'eq', value: 'pass' }, action: 'tag' },
    ]);
    assert.ok(v.ok);
    const rules = compileRules(v.rules, { deviceIntelligence: false, templateMetadata: {}, reviewThreshold: 0.5 });
    const of = { priorities: v.rules.map((r) => r.priority), reviewThreshold: 0.5 };
    const minor = toEvaluateReply(rules.evaluate(toEvaluationContext(wire())), of);
    assert.deepEqual(minor, {
      status: 'ok',
      decision: 'review',
      score: 0,
      review_threshold: 0.5,
      tags: ['watch'],
      decline_floored: false,
      fired: [
        { index: 0, name: 'minor', ruleType: 'age_restriction', action: 'review', priority: 5, fields: ['applicant.age'] },
        { index: 1, name: 'watch', ruleType: 'custom', action: 'tag', priority: 100, fields: ['check.document.outcome'] },
      ],
      trace: [
        { index: 0, name: 'minor', fired: true, fields: ['applicant.age'] },
        { index: 1, name: 'watch', fired: true, fields: ['check.document.outcome'] },
      ],
    });
    // the same applicant, evaluated ten years later, is an adult
    const adult = toEvaluateReply(rules.evaluate(toEvaluationContext(wire({ now: '2036-05-31T12:00:00Z' }))), of);
    assert.equal(adult.status === 'ok' && adult.decision, 'none');
  });

  it('passes an errored evaluation through', () => {
    assert.deepEqual(toEvaluateReply({ status: 'errored', reason: 'session_metadata_invalid', key: 'tier' }, { priorities: [], reviewThreshold: 0.5 }), {
      status: 'errored',
      reason: 'session_metadata_invalid',
      key: 'tier',
    });
  });
});
