import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { holds } from './operators.js';
import { and, baseContext, field, fires, or } from './test-support.js';
import type { Condition, EvaluationContext, Operator } from './types.js';

type Case = [Operator, unknown, boolean];

/** Runs every case through the compiled engines (both) and the reference `holds`. */
function matrix(path: string, resolved: unknown, ctx: EvaluationContext, cases: Case[], opts = {}): void {
  for (const [op, value, expected] of cases) {
    const label = `${path} ${op} ${JSON.stringify(value)}`;
    assert.equal(fires(field(path, op, value), ctx, opts), expected, label);
    assert.equal(holds(op, resolved, value), expected, `holds: ${label}`);
  }
}

const ON = { deviceIntelligence: true };

describe('operators on a string field (applicant.address.country = "GB")', () => {
  it('follows the spec, with no coercion and case-sensitive comparison', () => {
    matrix('applicant.address.country', 'GB', baseContext(), [
      ['eq', 'GB', true],
      ['eq', 'gb', false],
      ['eq', 'US', false],
      ['eq', 1, false],
      ['eq', true, false],
      ['neq', 'US', true],
      ['neq', 'GB', false],
      ['neq', 1, true], // a number never equals a string
      ['gt', 'GA', true], // strings order by code unit
      ['gt', 'GB', false],
      ['gte', 'GB', true],
      ['lt', 'GC', true],
      ['lt', 'GB', false],
      ['lte', 'GB', true],
      ['gt', 5, false], // type mismatch: does not hold
      ['lt', 5, false],
      ['in', ['US', 'GB'], true],
      ['in', ['US'], false],
      ['in', [], false],
      ['in', [1, 2], false],
      ['not_in', ['US'], true],
      ['not_in', ['GB', 'US'], false],
      ['not_in', [], true],
      ['contains', 'B', true], // substring
      ['contains', 'GB', true],
      ['contains', 'b', false], // case-sensitive
      ['contains', 1, false], // a number is not a substring
      ['exists', undefined, true],
    ]);
  });

  it('orders ISO dates chronologically (applicant.dateOfBirth = "1990-06-02")', () => {
    matrix('applicant.dateOfBirth', '1990-06-02', baseContext(), [
      ['lt', '2000-01-01', true],
      ['gt', '1990-06-01', true],
      ['gte', '1990-06-02', true],
      ['lte', '1990-06-01', false],
    ]);
  });
});

describe('operators on a number field (applicant.age = 34)', () => {
  it('follows the spec, with no coercion', () => {
    matrix('applicant.age', 34, baseContext(), [
      ['eq', 34, true],
      ['eq', '34', false],
      ['neq', 35, true],
      ['neq', 34, false],
      ['neq', '34', true],
      ['gt', 33, true],
      ['gt', 34, false],
      ['gte', 34, true],
      ['gte', 34.5, false],
      ['lt', 35, true],
      ['lt', 34, false],
      ['lte', 34, true],
      ['lt', '50', false], // type mismatch
      ['in', [18, 34], true],
      ['in', ['34'], false],
      ['not_in', [18], true],
      ['not_in', [34], false],
      ['contains', 3, false], // contains applies to strings and arrays only
      ['contains', '3', false],
      ['exists', undefined, true],
    ]);
  });
});

describe('operators on a boolean field (fraud.ipIsTorExit = true, device intelligence on)', () => {
  it('follows the spec', () => {
    const ctx = baseContext({ fraud: { ipIsTorExit: true } });
    matrix(
      'fraud.ipIsTorExit',
      true,
      ctx,
      [
        ['eq', true, true],
        ['eq', false, false],
        ['eq', 'true', false],
        ['eq', 1, false],
        ['neq', false, true],
        ['neq', true, false],
        ['gt', 0, false],
        ['in', ['true'], false],
        ['not_in', ['true'], true],
        ['contains', 'true', false],
        ['exists', undefined, true],
      ],
      ON,
    );
  });
});

describe('operators on the array field applicant.givenNames = ["Ada", "Augusta"]', () => {
  it('contains is exact membership of one element, not a substring', () => {
    matrix('applicant.givenNames', ['Ada', 'Augusta'], baseContext(), [
      ['contains', 'Ada', true],
      ['contains', 'Augusta', true],
      ['contains', 'Ad', false],
      ['contains', 'ada', false],
      ['contains', 'Ada Augusta', false],
    ]);
  });

  it('eq and in never hold (reference comparison); neq and not_in always hold', () => {
    matrix('applicant.givenNames', ['Ada', 'Augusta'], baseContext(), [
      ['eq', 'Ada', false],
      ['eq', ['Ada', 'Augusta'], false],
      ['in', ['Ada', 'Augusta'], false],
      ['neq', 'Ada', true],
      ['neq', ['Ada', 'Augusta'], true],
      ['not_in', ['Ada'], true],
      ['not_in', ['Ada', 'Augusta'], true],
      ['gt', 'A', false],
      ['exists', undefined, true],
    ]);
  });

  it('substring matching on a name goes through applicant.name', () => {
    assert.equal(fires(field('applicant.name', 'contains', 'Ada Aug')), true);
    assert.equal(fires(field('applicant.name', 'eq', 'Ada Augusta Lovelace')), true);
  });
});

describe('operators on an array of finding values (all.finding.person.<field>)', () => {
  const ctx = baseContext({
    findings: [
      { id: 'f1', subjectType: 'person', severity: 'high', sourceAuthority: 'OFAC', findingType: 'sanctions', evidence: { listName: 'SDN', score: 0.9 } },
      { id: 'f2', subjectType: 'person', severity: 'low', sourceAuthority: 'EU', findingType: 'sanctions', evidence: { listName: 'FSF', score: 0.4 } },
    ],
  });

  it('contains is membership; eq and in never hold; neq and not_in hold', () => {
    matrix('all.finding.person.listName', ['SDN', 'FSF'], ctx, [
      ['contains', 'SDN', true],
      ['contains', 'SD', false],
      ['eq', 'SDN', false],
      ['in', ['SDN'], false],
      ['neq', 'SDN', true],
      ['not_in', ['SDN', 'FSF'], true],
      ['exists', undefined, true],
    ]);
    matrix('all.finding.person.score', [0.9, 0.4], ctx, [
      ['contains', 0.9, true],
      ['contains', 0.5, false],
      ['contains', '0.9', false],
      ['gt', 0.1, false],
    ]);
  });
});

describe('a field that resolves to nothing', () => {
  it('makes every operator false, exists included', () => {
    const ops: Case[] = [
      ['eq', '+1', false],
      ['neq', '+1', false],
      ['gt', 1, false],
      ['gte', '', false],
      ['lt', 'z', false],
      ['lte', 1, false],
      ['in', ['+1'], false],
      ['not_in', ['+1'], false],
      ['contains', '+', false],
      ['exists', undefined, false],
    ];
    matrix('applicant.phone', undefined, baseContext(), ops); // not supplied
    matrix('check.document.outcome', undefined, baseContext(), ops); // check not run
    matrix('any.finding.person.severity', undefined, baseContext(), ops); // no finding of that subject
  });

  it('covers device and network fields while device intelligence is off, even when the signal was collected', () => {
    const ctx = baseContext({ fraud: { ipIsTorExit: true, botScore: 3 }, device: { behavior: { headless: true } } });
    for (const c of [
      field('fraud.ipIsTorExit', 'eq', true),
      field('fraud.ipIsTorExit', 'neq', false),
      field('fraud.ipIsTorExit', 'exists'),
      field('fraud.botScore', 'lt', 10),
      field('fraud.botScore', 'not_in', [1]),
      field('device.behavior.headless', 'exists'),
    ]) {
      assert.equal(fires(c, ctx, { deviceIntelligence: false }), false, JSON.stringify(c));
      assert.equal(fires(c, ctx, { deviceIntelligence: true }), true, JSON.stringify(c));
    }
  });
});

describe('groups', () => {
  const yes = field('applicant.address.country', 'eq', 'GB');
  const no = field('applicant.address.country', 'eq', 'US');

  it('AND holds when every child holds, OR when any does', () => {
    assert.equal(fires(and(yes, yes)), true);
    assert.equal(fires(and(yes, no)), false);
    assert.equal(fires(or(no, yes)), true);
    assert.equal(fires(or(no, no)), false);
    assert.equal(fires(and(yes)), true);
    assert.equal(fires(or(no)), false);
  });

  it('nests', () => {
    assert.equal(fires(and(yes, or(no, and(yes, or(no, yes))))), true);
    assert.equal(fires(and(yes, or(no, and(yes, or(no, no))))), false);
    assert.equal(fires(or(and(no, yes), and(yes, or(yes, no)))), true);
  });

  it('treats a child on a field that resolves to nothing as false, inside groups too', () => {
    const missing = field('applicant.phone', 'neq', 'x');
    assert.equal(fires(and(yes, missing)), false);
    assert.equal(fires(or(missing, yes)), true);
    assert.equal(fires(or(missing, field('applicant.phone', 'exists'))), false);
  });

  it('evaluates a 20-child group of mixed field kinds', () => {
    const children: Condition[] = Array.from({ length: 19 }, () => no);
    assert.equal(fires(or(...children, yes)), true);
    assert.equal(fires(and(...Array.from({ length: 20 }, () => yes))), true);
  });
});
