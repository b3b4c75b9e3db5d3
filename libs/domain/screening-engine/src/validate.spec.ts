import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  CHECK_TYPES,
  DECLINE_MESSAGES,
  FIXED_FIELDS,
  FRAUD_RULE_TYPES,
  RULE_TYPES,
  validateScreeningRules,
  type RuleIssue,
  type RulesValidation,
} from './index.js';

type Json = Record<string, unknown>;

const leaf = (field = 'applicant.email.domain', operator = 'eq', value: unknown = 'example.com'): Json =>
  value === undefined ? { kind: 'field', field, operator } : { kind: 'field', field, operator, value };

const rule = (over: Json = {}): Json => ({
  name: 'r',
  ruleType: 'custom',
  condition: leaf(),
  action: 'tag',
  ...over,
});

function issuesOf(v: RulesValidation): RuleIssue[] {
  assert.equal(v.ok, false, 'expected a refusal');
  if (v.ok || v.kind !== 'issues') assert.fail(`expected issues, got ${JSON.stringify(v)}`);
  return v.issues;
}

function onlyIssue(input: unknown): RuleIssue {
  const issues = issuesOf(validateScreeningRules(input));
  assert.equal(issues.length, 1, JSON.stringify(issues));
  return issues[0]!;
}

function accepts(input: unknown): void {
  const v = validateScreeningRules(input);
  assert.equal(v.ok, true, JSON.stringify(v));
}

describe('validateScreeningRules: shape and defaults', () => {
  it('accepts an empty array', () => {
    assert.deepEqual(validateScreeningRules([]), { ok: true, rules: [] });
  });

  it('applies the defaults priority 100 and isActive true', () => {
    const v = validateScreeningRules([rule()]);
    assert.deepEqual(v, {
      ok: true,
      rules: [{ name: 'r', ruleType: 'custom', condition: leaf(), action: 'tag', priority: 100, isActive: true }],
    });
  });

  it('keeps explicit priority, isActive and scoreAdjustment', () => {
    const v = validateScreeningRules([rule({ priority: 0, isActive: false, action: 'adjust_score', scoreAdjustment: -1 })]);
    assert.ok(v.ok);
    assert.deepEqual(v.rules[0], {
      name: 'r',
      ruleType: 'custom',
      condition: leaf(),
      action: 'adjust_score',
      priority: 0,
      isActive: false,
      scoreAdjustment: -1,
    });
  });

  it('copies the input: mutating it afterwards does not change the normalized rules', () => {
    const values = ['GB', 'US'];
    const input = [rule({ condition: leaf('applicant.address.country', 'in', values) })];
    const v = validateScreeningRules(input);
    assert.ok(v.ok);
    values.push('FR');
    (input[0]!.condition as Json).field = 'applicant.phone';
    assert.deepEqual(v.rules[0]!.condition, leaf('applicant.address.country', 'in', ['GB', 'US']));
  });

  it('accepts all 17 rule types and all 5 actions', () => {
    assert.equal(RULE_TYPES.length, 17);
    accepts(RULE_TYPES.map((ruleType) => rule({ ruleType })));
    accepts(['tag', 'review', 'approve'].map((action) => rule({ action })));
    accepts([rule({ action: 'adjust_score', scoreAdjustment: 0.25 })]);
    accepts([rule({ action: 'decline', ruleType: 'watchlist_hit' })]);
  });

  it('refuses a body that is not an array', () => {
    for (const input of [undefined, null, {}, 'x', 3]) {
      assert.deepEqual(onlyIssue(input), {
        code: 'invalid_type',
        message: 'screening_rules must be an array of rules.',
        path: ['screening_rules'],
      });
    }
  });

  it('holds at most 100 rules', () => {
    accepts(Array.from({ length: 100 }, () => rule()));
    const issue = onlyIssue(Array.from({ length: 101 }, () => rule()));
    assert.equal(issue.code, 'too_big');
    assert.deepEqual(issue.path, ['screening_rules']);
  });

  it('refuses a rule that is not an object', () => {
    for (const bad of [null, 'rule', 1, [rule()]]) {
      assert.deepEqual(onlyIssue([rule(), bad]).path, ['screening_rules', 1]);
    }
  });

  it('refuses unknown members of a rule, a field condition and a group, naming each', () => {
    const issues = issuesOf(
      validateScreeningRules([
        rule({
          extra: 1,
          condition: { kind: 'group', op: 'AND', children: [{ ...leaf(), note: 'x' }], label: 'g' },
        }),
      ]),
    );
    assert.deepEqual(
      issues.map((i) => [i.code, i.path]),
      [
        ['unrecognized_keys', ['screening_rules', 0, 'extra']],
        ['unrecognized_keys', ['screening_rules', 0, 'condition', 'label']],
        ['unrecognized_keys', ['screening_rules', 0, 'condition', 'children', 0, 'note']],
      ],
    );
  });

  it('refuses legacy or snake_case member names as unknown', () => {
    const issue = onlyIssue([{ name: 'r', rule_type: 'custom', ruleType: 'custom', condition: leaf(), action: 'tag' }]);
    assert.deepEqual(issue.path, ['screening_rules', 0, 'rule_type']);
  });

  it('requires name, ruleType, condition and action', () => {
    const issues = issuesOf(validateScreeningRules([{}]));
    assert.deepEqual(
      issues.map((i) => i.path),
      [
        ['screening_rules', 0, 'name'],
        ['screening_rules', 0, 'ruleType'],
        ['screening_rules', 0, 'action'],
        ['screening_rules', 0, 'condition'],
      ],
    );
    assert.ok(issues.every((i) => i.code === 'invalid_type'));
  });

  it('checks name: a string of 1 to 200 characters', () => {
    assert.equal(onlyIssue([rule({ name: 3 })]).code, 'invalid_type');
    assert.equal(onlyIssue([rule({ name: '' })]).code, 'too_small');
    assert.equal(onlyIssue([rule({ name: 'x'.repeat(201) })]).code, 'too_big');
    accepts([rule({ name: 'x'.repeat(200) })]);
  });

  it('checks ruleType and action against their lists', () => {
    assert.deepEqual(onlyIssue([rule({ ruleType: 'fraud' })]), {
      code: 'invalid_value',
      message: onlyIssue([rule({ ruleType: 'x' })]).message,
      path: ['screening_rules', 0, 'ruleType'],
    });
    assert.deepEqual(onlyIssue([rule({ action: 'block' })]).path, ['screening_rules', 0, 'action']);
    assert.equal(onlyIssue([rule({ action: 'TAG' })]).code, 'invalid_value');
  });

  it('checks priority: an integer from 0 to 10000', () => {
    accepts([rule({ priority: 0 }), rule({ priority: 10000 })]);
    assert.equal(onlyIssue([rule({ priority: -1 })]).code, 'too_small');
    assert.equal(onlyIssue([rule({ priority: 10001 })]).code, 'too_big');
    assert.equal(onlyIssue([rule({ priority: 1.5 })]).code, 'invalid_type');
    assert.equal(onlyIssue([rule({ priority: '5' })]).code, 'invalid_type');
    assert.equal(onlyIssue([rule({ priority: null })]).code, 'invalid_type');
    assert.deepEqual(onlyIssue([rule({ priority: 1.5 })]).path, ['screening_rules', 0, 'priority']);
  });

  it('checks isActive: a boolean', () => {
    assert.deepEqual(onlyIssue([rule({ isActive: 'true' })]).path, ['screening_rules', 0, 'isActive']);
    assert.equal(onlyIssue([rule({ isActive: 1 })]).code, 'invalid_type');
  });

  it('checks scoreAdjustment: a number from -1 to 1, required with adjust_score', () => {
    accepts([rule({ action: 'adjust_score', scoreAdjustment: 1 }), rule({ action: 'adjust_score', scoreAdjustment: -1 })]);
    accepts([rule({ action: 'tag', scoreAdjustment: 0.5 })]); // meaningful only with adjust_score, kept
    const path = ['screening_rules', 0, 'scoreAdjustment'];
    assert.deepEqual(onlyIssue([rule({ action: 'adjust_score' })]).path, path);
    assert.equal(onlyIssue([rule({ action: 'adjust_score', scoreAdjustment: 1.01 })]).code, 'too_big');
    assert.equal(onlyIssue([rule({ action: 'adjust_score', scoreAdjustment: -1.01 })]).code, 'too_small');
    assert.equal(onlyIssue([rule({ action: 'adjust_score', scoreAdjustment: '0.1' })]).code, 'invalid_type');
    assert.equal(onlyIssue([rule({ action: 'adjust_score', scoreAdjustment: Number.NaN })]).code, 'invalid_type');
  });

  it('reports every issue of every rule, each with its full path', () => {
    const issues = issuesOf(
      validateScreeningRules([
        rule({ priority: -5, action: 'nope' }),
        rule(),
        rule({ condition: { kind: 'group', op: 'XOR', children: [leaf('applicant.age', 'gt', [1])] } }),
      ]),
    );
    assert.deepEqual(
      issues.map((i) => i.path),
      [
        ['screening_rules', 0, 'action'],
        ['screening_rules', 0, 'priority'],
        ['screening_rules', 2, 'condition', 'op'],
        ['screening_rules', 2, 'condition', 'children', 0, 'value'],
      ],
    );
  });
});

describe('validateScreeningRules: conditions', () => {
  const at = (...rest: (string | number)[]) => ['screening_rules', 0, 'condition', ...rest];

  it('requires kind "field" or "group"', () => {
    assert.deepEqual(onlyIssue([rule({ condition: { field: 'applicant.age', operator: 'exists' } })]).path, at('kind'));
    assert.equal(onlyIssue([rule({ condition: { ...leaf(), kind: 'leaf' } })]).code, 'invalid_value');
    assert.deepEqual(onlyIssue([rule({ condition: 'applicant.age > 3' })]).path, at());
    assert.deepEqual(onlyIssue([rule({ condition: null })]).path, at());
  });

  it('checks field: a string of 1 to 120 characters', () => {
    assert.equal(onlyIssue([rule({ condition: leaf('') })]).code, 'too_small');
    assert.equal(onlyIssue([rule({ condition: leaf(`session.metadata.${'k'.repeat(104)}`) })]).code, 'too_big');
    accepts([rule({ condition: leaf(`session.metadata.${'k'.repeat(103)}`) })]); // exactly 120
    assert.deepEqual(onlyIssue([rule({ condition: { kind: 'field', operator: 'exists' } })]).path, at('field'));
    assert.equal(onlyIssue([rule({ condition: leaf(7 as unknown as string) })]).code, 'invalid_type');
  });

  it('checks operator against the list', () => {
    accepts(
      ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains'].map((op) => rule({ condition: leaf('applicant.age', op, 3) })),
    );
    accepts(['in', 'not_in'].map((op) => rule({ condition: leaf('applicant.age', op, [3]) })));
    accepts([rule({ condition: leaf('applicant.age', 'exists', undefined) })]);
    assert.deepEqual(onlyIssue([rule({ condition: leaf('applicant.age', 'equals', 3) })]).path, at('operator'));
    assert.equal(onlyIssue([rule({ condition: { kind: 'field', field: 'applicant.age' } })]).code, 'invalid_type');
  });

  it('checks value: string, number, boolean, array of strings or of numbers', () => {
    accepts([
      rule({ condition: leaf('applicant.phone', 'eq', '+1') }),
      rule({ condition: leaf('applicant.age', 'eq', 3.5) }),
      rule({ condition: leaf('fraud.ipIsTorExit', 'eq', false) }),
      rule({ condition: leaf('applicant.address.country', 'in', ['GB']) }),
      rule({ condition: leaf('applicant.age', 'in', [1, 2]) }),
      rule({ condition: leaf('applicant.age', 'in', []) }),
    ]);
    for (const bad of [null, { a: 1 }, [true], [['GB']], [null], Number.POSITIVE_INFINITY]) {
      const issue = onlyIssue([rule({ condition: leaf('applicant.address.country', 'eq', bad) })]);
      assert.equal(issue.code, 'invalid_type');
      assert.deepEqual(issue.path, at('value'));
    }
  });

  it('refuses a mixed array value', () => {
    const issue = onlyIssue([rule({ condition: leaf('applicant.address.country', 'in', ['GB', 1]) })]);
    assert.deepEqual(issue, {
      code: 'invalid_type',
      message: 'value must be an array of strings or an array of numbers, not mixed.',
      path: at('value'),
    });
  });

  it('refuses a sparse array value (a hole is not a string)', () => {
    const sparse: unknown[] = ['GB'];
    sparse[2] = 'US';
    assert.equal(onlyIssue([rule({ condition: leaf('applicant.address.country', 'in', sparse) })]).code, 'invalid_type');
  });

  it('holds at most 1000 array entries', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `C${i}`);
    accepts([rule({ condition: leaf('applicant.address.country', 'in', many(1000)) })]);
    const issue = onlyIssue([rule({ condition: leaf('applicant.address.country', 'in', many(1001)) })]);
    assert.equal(issue.code, 'too_big');
    assert.deepEqual(issue.path, at('value'));
  });

  it('fits the value to the operator', () => {
    const cases: [string, unknown][] = [
      ['eq', undefined], // value required except with exists
      ['in', 'GB'], // in / not_in take an array
      ['not_in', 3],
      ['gt', true], // ordering takes a number or a string
      ['lte', ['a']],
      ['contains', ['GB']], // contains takes one value
    ];
    for (const [op, value] of cases) {
      const condition: Json = { kind: 'field', field: 'applicant.address.country', operator: op };
      if (value !== undefined) condition.value = value;
      const issue = onlyIssue([rule({ condition })]);
      assert.equal(issue.code, 'invalid_type', op);
      assert.deepEqual(issue.path, at('value'));
    }
    // exists ignores any well-formed value; eq / neq take any well-formed value.
    accepts([
      rule({ condition: leaf('applicant.phone', 'exists', ['x']) }),
      rule({ condition: leaf('applicant.givenNames', 'eq', ['Ada']) }),
      rule({ condition: leaf('applicant.givenNames', 'neq', ['Ada']) }),
    ]);
  });

  it('checks groups: op AND or OR, 1 to 20 children', () => {
    const group = (op: unknown, n: number) => ({ kind: 'group', op, children: Array.from({ length: n }, () => leaf()) });
    accepts([rule({ condition: group('AND', 1) }), rule({ condition: group('OR', 20) })]);
    assert.deepEqual(onlyIssue([rule({ condition: group('and', 2) })]).path, at('op'));
    assert.deepEqual(onlyIssue([rule({ condition: group('AND', 0) })]), {
      code: 'too_small',
      message: 'A group needs at least 1 condition.',
      path: at('children'),
    });
    assert.equal(onlyIssue([rule({ condition: group('AND', 21) })]).code, 'too_big');
    assert.deepEqual(onlyIssue([rule({ condition: { kind: 'group', op: 'AND' } })]).path, at('children'));
    assert.equal(onlyIssue([rule({ condition: { kind: 'group', op: 'AND', children: leaf() } })]).code, 'invalid_type');
  });

  it('validates nested groups with full paths', () => {
    const condition = {
      kind: 'group',
      op: 'AND',
      children: [leaf(), { kind: 'group', op: 'OR', children: [leaf(), { kind: 'group', op: 'AND', children: [leaf('x', 'eq', null)] }] }],
    };
    const issue = onlyIssue([rule({ condition })]);
    assert.deepEqual(issue.path, at('children', 1, 'children', 1, 'children', 0, 'value'));
  });

  it('bounds nesting at 32 group levels', () => {
    const nest = (levels: number): Json => {
      let c: Json = leaf();
      for (let i = 0; i < levels; i++) c = { kind: 'group', op: i % 2 ? 'AND' : 'OR', children: [c] };
      return c;
    };
    accepts([rule({ condition: nest(32) })]);
    const issue = onlyIssue([rule({ condition: nest(33) })]);
    assert.equal(issue.code, 'too_big');
    assert.equal(issue.path.length, 3 + 32 * 2);
  });
});

describe('validateScreeningRules: resolvable fields', () => {
  const unresolvable = (input: unknown) => validateScreeningRules(input);

  it('accepts every fixed field', () => {
    accepts([...FIXED_FIELDS.keys()].map((field) => rule({ condition: leaf(field, 'exists', undefined) })));
    assert.equal(FIXED_FIELDS.size, 14 + 8 + 2 + 29);
  });

  it('accepts the pattern fields', () => {
    const fields = [
      ...CHECK_TYPES.map((t) => `check.${t}.outcome`),
      'any.finding.person.severity',
      'all.finding.person.listName',
      'count_where.finding.person.pep',
      'any.finding.organization.id',
      'all.finding.vessel.sourceAuthority',
      'count_where.finding.person_2.match_score',
      'session.metadata.riskTier',
      'session.metadata.tier_2',
      'session.metadata.amount', // reads the template's metadata, never the session's
    ];
    accepts(fields.map((field) => rule({ condition: leaf(field, 'exists', undefined) })));
  });

  it('answers an unresolvable field with exactly the field path', () => {
    for (const field of [
      'applicant.gender',
      'applicant.address.postalCode',
      'applicant.nameSuffix',
      'applicant',
      'check.selfie.outcome',
      'check.document.result',
      'check..outcome',
      'any.finding.person',
      'any.finding.person.evidence.score',
      'some.finding.person.id',
      'any.finding.per-son.id',
      'session.metadata.risk-tier',
      'session.metadata.',
      'session.metadata.a.b',
      'metadata.tier',
      'fraud.unknownSignal',
      'device.velocity',
      'Applicant.age',
      ' applicant.age',
      'finding.severity.critical.count',
    ]) {
      assert.deepEqual(unresolvable([rule({ condition: leaf(field, 'exists', undefined) })]), {
        ok: false,
        kind: 'unresolvable_field',
        field,
      });
    }
  });

  it('finds an unresolvable field inside nested groups, the first in document order', () => {
    const condition = {
      kind: 'group',
      op: 'AND',
      children: [
        leaf(),
        { kind: 'group', op: 'OR', children: [leaf('applicant.age', 'gt', 3), leaf('applicant.shoeSize', 'gt', 40)] },
        leaf('applicant.eyeColour', 'eq', 'x'),
      ],
    };
    assert.deepEqual(validateScreeningRules([rule(), rule({ condition })]), {
      ok: false,
      kind: 'unresolvable_field',
      field: 'applicant.shoeSize',
    });
  });

  it('never echoes the condition value', () => {
    const v = validateScreeningRules([rule({ condition: leaf('applicant.ssn', 'eq', '078-05-1120') })]);
    assert.equal(JSON.stringify(v).includes('078-05-1120'), false);
  });

  it('reports shape issues ahead of an unresolvable field', () => {
    const v = validateScreeningRules([rule({ condition: leaf('applicant.ssn', 'exists', undefined) }), rule({ priority: -1 })]);
    assert.equal(v.ok, false);
    assert.equal(!v.ok && v.kind, 'issues');
  });
});

describe('validateScreeningRules: decline refusals', () => {
  const actionPath = (i = 0) => ['screening_rules', i, 'action'];

  it('allows decline on the seven rule types of the "Yes" row', () => {
    const yes = ['country_block', 'score_threshold', 'age_restriction', 'geolocation_mismatch', 'watchlist_hit', 'adverse_media_hit', 'custom'];
    accepts(yes.map((ruleType) => rule({ ruleType, action: 'decline', condition: leaf('finding.severity.high.count', 'gte', 1) })));
  });

  it('refuses decline on credit_history: a credit report is a consumer report', () => {
    assert.deepEqual(onlyIssue([rule({ ruleType: 'credit_history', action: 'decline' })]), {
      code: 'custom',
      message: DECLINE_MESSAGES.creditHistory,
      path: actionPath(),
    });
    assert.match(DECLINE_MESSAGES.creditHistory, /consumer report/);
  });

  it('refuses decline on each fraud rule type: no automated decline of applicants', () => {
    assert.equal(FRAUD_RULE_TYPES.size, 9);
    for (const ruleType of FRAUD_RULE_TYPES) {
      assert.deepEqual(onlyIssue([rule(), rule({ ruleType, action: 'decline' })]), {
        code: 'custom',
        message: DECLINE_MESSAGES.fraud,
        path: actionPath(1),
      });
    }
    assert.match(DECLINE_MESSAGES.fraud, /no automated decline of applicants/);
  });

  it('allows the other actions on every rule type', () => {
    accepts(RULE_TYPES.flatMap((ruleType) => ['tag', 'review'].map((action) => rule({ ruleType, action }))));
  });

  it('refuses decline on a condition touching a sensitive attribute, at any depth', () => {
    const sensitive = [
      'applicant.age',
      'applicant.address.country',
      'applicant.legalName',
      'applicant.name',
      'applicant.familyName',
      'applicant.givenNames',
      'applicant.address.postalCode',
      'applicant.gender',
    ];
    for (const field of sensitive) {
      const deep = {
        kind: 'group',
        op: 'OR',
        children: [leaf(), { kind: 'group', op: 'AND', children: [leaf('finding.count', 'gt', 0), leaf(field, 'exists', undefined)] }],
      };
      for (const condition of [leaf(field, 'exists', undefined), deep]) {
        assert.deepEqual(onlyIssue([rule({ ruleType: 'country_block', action: 'decline', condition })]), {
          code: 'custom',
          message: DECLINE_MESSAGES.sensitive,
          path: actionPath(),
        });
      }
    }
  });

  it('lets the same sensitive fields carry review, tag or adjust_score', () => {
    accepts([
      rule({ ruleType: 'age_restriction', action: 'review', condition: leaf('applicant.age', 'lt', 18) }),
      rule({ ruleType: 'country_block', action: 'tag', condition: leaf('applicant.address.country', 'in', ['KP']) }),
      rule({ action: 'adjust_score', scoreAdjustment: 0.2, condition: leaf('applicant.name', 'contains', 'x') }),
    ]);
    // Not authorable whatever the action: unresolvable.
    assert.deepEqual(validateScreeningRules([rule({ action: 'review', condition: leaf('applicant.gender', 'eq', 'x') })]), {
      ok: false,
      kind: 'unresolvable_field',
      field: 'applicant.gender',
    });
  });

  it('reports both refusals when a fraud or credit rule also touches a sensitive attribute', () => {
    const issues = issuesOf(
      validateScreeningRules([
        rule({ ruleType: 'credit_history', action: 'decline', condition: leaf('applicant.age', 'lt', 21) }),
        rule({ ruleType: 'email_risk', action: 'decline', condition: leaf('applicant.name', 'contains', 'x') }),
      ]),
    );
    assert.deepEqual(
      issues.map((i) => [i.path, i.message]),
      [
        [actionPath(0), DECLINE_MESSAGES.creditHistory],
        [actionPath(0), DECLINE_MESSAGES.sensitive],
        [actionPath(1), DECLINE_MESSAGES.fraud],
        [actionPath(1), DECLINE_MESSAGES.sensitive],
      ],
    );
    assert.equal(new Set(Object.values(DECLINE_MESSAGES)).size, 3);
  });

  it('applies to inactive rules too (a write-time refusal)', () => {
    assert.equal(onlyIssue([rule({ ruleType: 'bot_signal', action: 'decline', isActive: false })]).code, 'custom');
  });
});
