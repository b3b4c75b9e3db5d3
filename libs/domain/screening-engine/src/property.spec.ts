import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileRulesWith, InvalidScreeningRulesError } from './compile.js';
import { ACTIONS, CHECK_TYPES, FIXED_FIELDS, FRAUD_RULE_TYPES, OPERATORS, RULE_TYPES, SENSITIVE_FIELDS } from './fields.js';
import type { CompileOptions, EvaluationContext, EvaluationResult, Operator, ScreeningRule } from './types.js';
import { validateScreeningRules } from './validate.js';

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Generators of valid rule sets

const FIELD_POOL = [
  ...FIXED_FIELDS.keys(),
  ...CHECK_TYPES.map((t) => `check.${t}.outcome`),
  'any.finding.person.severity',
  'any.finding.person.score',
  'any.finding.person.listName',
  'any.finding.person.constructor',
  'all.finding.person.listName',
  'all.finding.person.score',
  'all.finding.media.id',
  'count_where.finding.person.pep',
  'count_where.finding.media.negative',
  'session.metadata.tier',
  'session.metadata.limit',
  'session.metadata.bins',
  'session.metadata.regions',
  'session.metadata.flag',
  'session.metadata.missing',
  'session.metadata.bad',
];

const str = fc.constantFrom('GB', 'US', 'KP', 'Ada', 'Lovelace', 'example.com', 'high', 'low', 'pass', 'fail', 'review', 'gold', '', 'a', 'SDN', '1990-01-01', '2000-06-30', 'eu');
const num = fc.oneof(fc.integer({ min: -5, max: 120 }), fc.constantFrom(0.5, 0.9, 411111));
const scalar = fc.oneof(str, num, fc.boolean());
const arr = fc.oneof(fc.array(str, { maxLength: 12 }), fc.array(num, { maxLength: 12 }));

function valueFor(op: Operator): fc.Arbitrary<unknown> {
  switch (op) {
    case 'exists':
      return fc.option(fc.oneof(scalar, arr), { nil: undefined });
    case 'in':
    case 'not_in':
      return arr;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return fc.oneof(str, num);
    case 'contains':
      return scalar;
    default:
      return fc.oneof(scalar, arr);
  }
}

const leafArb: fc.Arbitrary<Json> = fc
  .record({ field: fc.constantFrom(...FIELD_POOL), operator: fc.constantFrom(...OPERATORS) })
  .chain(({ field, operator }) =>
    valueFor(operator).map((value) => (value === undefined ? { kind: 'field', field, operator } : { kind: 'field', field, operator, value })),
  );

const { cond: conditionArb } = fc.letrec<{ cond: Json; group: Json }>((tie) => ({
  cond: fc.oneof({ maxDepth: 3, depthSize: 'small' }, leafArb, tie('group')),
  group: fc.record({
    kind: fc.constant('group'),
    op: fc.constantFrom('AND', 'OR'),
    children: fc.array(tie('cond'), { minLength: 1, maxLength: 4 }),
  }),
}));

function fieldsOf(c: Json, out: string[] = []): string[] {
  if (c.kind === 'field') out.push(c.field as string);
  else for (const child of c.children as Json[]) fieldsOf(child, out);
  return out;
}

const ruleArb: fc.Arbitrary<Json> = fc
  .record({
    name: fc.constantFrom('a', 'b', 'c', 'watch', 'x"y'),
    ruleType: fc.constantFrom(...RULE_TYPES),
    condition: conditionArb,
    action: fc.constantFrom(...ACTIONS),
    priority: fc.option(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 10000 })), { nil: undefined }),
    isActive: fc.option(fc.boolean(), { freq: 3, nil: undefined }),
    scoreAdjustment: fc.option(fc.double({ min: -1, max: 1, noNaN: true, noDefaultInfinity: true }), { nil: undefined }),
  })
  .map((r) => {
    const rule: Json = { name: r.name, ruleType: r.ruleType, condition: r.condition, action: r.action };
    // decline only where it is allowed
    if (r.action === 'decline') {
      const refused =
        r.ruleType === 'credit_history' ||
        FRAUD_RULE_TYPES.has(r.ruleType) ||
        fieldsOf(r.condition).some((f) => SENSITIVE_FIELDS.has(f));
      if (refused) rule.action = 'review';
    }
    if (r.priority !== undefined) rule.priority = r.priority;
    if (r.isActive !== undefined) rule.isActive = r.isActive;
    const score = r.scoreAdjustment === undefined ? undefined : Object.is(r.scoreAdjustment, -0) ? 0 : r.scoreAdjustment;
    if (rule.action === 'adjust_score') rule.scoreAdjustment = score ?? 0.25;
    else if (score !== undefined) rule.scoreAdjustment = score;
    return rule;
  });

const ruleSetArb = fc.array(ruleArb, { maxLength: 8 });

// ---------------------------------------------------------------------------------------------
// Generators of contexts and options

const findingArb = fc.record({
  id: fc.constantFrom('f1', 'f2', 'f3'),
  subjectType: fc.constantFrom('person', 'media', 'organization'),
  severity: fc.constantFrom('high' as const, 'medium' as const, 'low' as const),
  sourceAuthority: fc.constantFrom('OFAC', 'EU'),
  findingType: fc.constantFrom('sanctions', 'pep', 'adverse_media'),
  evidence: fc.record(
    { score: num, listName: str, pep: fc.oneof(fc.boolean(), num, fc.constant(null)), negative: fc.boolean(), constructor: str },
    { requiredKeys: [] },
  ),
});

const contextArb: fc.Arbitrary<EvaluationContext> = fc.record({
  applicant: fc.record(
    {
      legalName: str,
      familyName: str,
      givenNames: fc.array(str, { maxLength: 3 }),
      email: fc.constantFrom('ada@Example.COM', 'no-at', 'x@y.org', ''),
      dateOfBirth: fc.constantFrom('1990-06-02', '2008-02-29', '2030-01-01', 'bogus', '1990-02-30'),
      address: fc.record({ country: fc.constantFrom('GB', 'US', 'KP', '') }, { requiredKeys: [] }),
      phone: fc.constantFrom('+15550001111', ''),
    },
    { requiredKeys: [] },
  ),
  findings: fc.array(findingArb, { maxLength: 5 }),
  checks: fc.dictionary(fc.constantFrom(...CHECK_TYPES), fc.constantFrom('pass' as const, 'fail' as const, 'review' as const, 'error' as const)),
  fraud: fc.option(
    fc.record(
      {
        botScore: fc.oneof(num, str),
        threatScore: num,
        country: str,
        ipIsTorExit: fc.boolean(),
        asnIsDatacenter: fc.oneof(fc.boolean(), str),
        ringSize: num,
        verifiedBotCategory: str,
        captureAbsent: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  ),
  device: fc.option(
    fc.record(
      {
        velocity: fc.record({ sessionCount: num, distinctIps: num }, { requiredKeys: [] }),
        behavior: fc.record({ pasteCount: num, headless: fc.boolean(), minStepSeconds: num }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  ),
  now: fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2035-01-01T00:00:00Z'), noInvalidDate: true }),
});

const optionsArb: fc.Arbitrary<CompileOptions> = fc.record({
  deviceIntelligence: fc.boolean(),
  reviewThreshold: fc.constantFrom(0.5, 0, 0.25, 1, -0.5),
  templateMetadata: fc.record(
    {
      tier: str,
      limit: num,
      bins: fc.array(num, { maxLength: 4 }),
      regions: fc.array(str, { maxLength: 4 }),
      flag: fc.boolean(),
      bad: fc.oneof(fc.constant({ nested: 1 }), fc.constant(['a', 1]), str),
    },
    { requiredKeys: [] },
  ),
});

// ---------------------------------------------------------------------------------------------
// Invariants of one evaluation

function checkOutcome(rules: ScreeningRule[], res: EvaluationResult, opts: CompileOptions): void {
  if (res.status === 'errored') {
    assert.equal(res.reason, 'session_metadata_invalid');
    assert.ok(rules.some((r) => r.isActive && fieldsOf(r.condition as unknown as Json).includes(`session.metadata.${res.key}`)));
    return;
  }
  const active = rules.map((r, index) => ({ r, index })).filter((e) => e.r.isActive);
  const order = [...active].sort((a, b) => a.r.priority - b.r.priority || a.index - b.index).map((e) => e.index);
  assert.deepEqual(
    res.trace.map((t) => t.index),
    order,
  );
  assert.deepEqual(
    res.fired.map((f) => f.index),
    res.trace.filter((t) => t.fired).map((t) => t.index),
  );
  const firedRules = res.fired.map((f) => rules[f.index]!);
  const review = firedRules.some((r) => r.action === 'review' || r.action === 'decline');
  const adjusted = firedRules.filter((r) => r.action === 'adjust_score');
  const score = adjusted.reduce((s, r) => s + (r.scoreAdjustment ?? 0), 0);
  assert.ok(Math.abs(res.score - score) < 1e-9);
  const expected =
    review || (adjusted.length > 0 && res.score >= opts.reviewThreshold)
      ? 'review'
      : firedRules.some((r) => r.action === 'approve')
        ? 'approve'
        : 'none';
  assert.equal(res.decision, expected);
  assert.equal(res.declineFloored, firedRules.some((r) => r.action === 'decline'));
  assert.deepEqual(res.tags, [...new Set(firedRules.filter((r) => r.action === 'tag').map((r) => r.name))]);
}

// ---------------------------------------------------------------------------------------------
// Corruption of a valid rule set

type Mutation = { kind: string; rule: number; node: number; variant: number };

const MUTATIONS = [
  'name',
  'ruleType',
  'action',
  'priority',
  'priorityValid',
  'isActive',
  'scoreAdjustment',
  'deleteMember',
  'unknownMember',
  'decline',
  'notObject',
  'conditionField',
  'conditionOperator',
  'conditionValue',
  'conditionKind',
  'conditionUnknown',
  'groupOp',
  'groupChildren',
  'tooMany',
] as const;

function pick<T>(xs: readonly T[], n: number): T {
  return xs[n % xs.length]!;
}

function nodesOf(c: Json, out: Json[] = []): Json[] {
  out.push(c);
  if (c.kind === 'group' && Array.isArray(c.children)) {
    for (const child of c.children as unknown[]) {
      if (typeof child === 'object' && child !== null && !Array.isArray(child)) nodesOf(child as Json, out);
    }
  }
  return out;
}

function corrupt(rules: Json[], m: Mutation): unknown {
  const set = structuredClone(rules);
  if (m.kind === 'tooMany') return Array.from({ length: 101 }, (_, i) => set[i % Math.max(1, set.length)] ?? { name: 'r', ruleType: 'custom', action: 'tag', condition: { kind: 'field', field: 'finding.count', operator: 'exists' } });
  if (set.length === 0) return m.variant % 2 === 0 ? {} : [null];
  const i = m.rule % set.length;
  const r = set[i]!;
  const v = m.variant;
  if (typeof r !== 'object' || r === null || Array.isArray(r)) return set; // already corrupted
  const isNode = (c: unknown): c is Json => typeof c === 'object' && c !== null && !Array.isArray(c);
  const nodes = isNode(r.condition) ? nodesOf(r.condition) : [];
  const node: Json = nodes.length > 0 ? pick(nodes, m.node) : {};
  const leaves = nodes.filter((n) => n.kind === 'field');
  const groups = nodes.filter((n) => n.kind === 'group');
  switch (m.kind) {
    case 'name':
      r.name = pick([5, '', 'x'.repeat(201), null, 'fine'], v);
      break;
    case 'ruleType':
      r.ruleType = pick(['nope', 'Custom', 3, 'credit_history'], v);
      break;
    case 'action':
      r.action = pick(['block', '', 'adjust_score', 'approve'], v);
      break;
    case 'priority':
      r.priority = pick([-1, 1.5, 10001, '1', null, 10000, 0], v);
      break;
    case 'priorityValid':
      r.priority = v % 10001;
      break;
    case 'isActive':
      r.isActive = pick(['yes', 1, null, false], v);
      break;
    case 'scoreAdjustment':
      r.scoreAdjustment = pick([2, -1.5, 'x', Number.NaN, 0.75], v);
      break;
    case 'deleteMember':
      delete r[pick(['name', 'ruleType', 'condition', 'action', 'priority', 'isActive', 'scoreAdjustment'], v)];
      break;
    case 'unknownMember':
      r[pick(['extra', 'rule_type', 'is_active', '__proto__x'], v)] = 1;
      break;
    case 'decline':
      r.action = 'decline';
      break;
    case 'notObject':
      set[i] = pick([null, 'rule', 3, []], v) as unknown as Json;
      break;
    case 'conditionField':
      if (leaves.length) pick(leaves, m.node).field = pick(['applicant.shoeSize', '', 'x'.repeat(121), 7, 'applicant.gender', 'session.metadata.ok_key', 'check.selfie.outcome'], v);
      break;
    case 'conditionOperator':
      if (leaves.length) pick(leaves, m.node).operator = pick(['like', 'EQ', '', 'exists', 'in'], v);
      break;
    case 'conditionValue':
      if (leaves.length) {
        const leaf = pick(leaves, m.node);
        const value = pick([null, ['a', 1], { a: 1 }, Array.from({ length: 1001 }, () => 1), undefined, 'GB', [true]], v);
        if (value === undefined) delete leaf.value;
        else leaf.value = value;
      }
      break;
    case 'conditionKind':
      node.kind = pick(['leaf', undefined, 'GROUP', 'field', 'group'], v);
      break;
    case 'conditionUnknown':
      node[pick(['note', 'children', 'value', 'op'], v)] = pick([1, [], 'AND'], v);
      break;
    case 'groupOp':
      if (groups.length) pick(groups, m.node).op = pick(['XOR', 'and', null, 'OR'], v);
      break;
    case 'groupChildren':
      if (groups.length) {
        const g = pick(groups, m.node);
        const kids = (Array.isArray(g.children) ? g.children : [{ kind: 'field', field: 'finding.count', operator: 'exists' }]) as Json[];
        g.children = pick([[], Array.from({ length: 21 }, () => kids[0]), 'x', kids.slice(0, 1)], v);
      }
      break;
  }
  return set;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom(...MUTATIONS),
  rule: fc.nat(),
  node: fc.nat(),
  variant: fc.nat(),
});

function compiles(input: unknown, mode: 'codegen' | 'closures', opts: CompileOptions): boolean {
  try {
    compileRulesWith(input as ScreeningRule[], opts, mode);
    return true;
  } catch (err) {
    assert.ok(err instanceof InvalidScreeningRulesError, String(err));
    assert.deepEqual(err.validation, validateScreeningRules(input));
    return false;
  }
}

// ---------------------------------------------------------------------------------------------

describe('properties', () => {
  it('random valid rule sets validate, compile, and evaluate without throwing, deterministically and identically in both engines', () => {
    fc.assert(
      fc.property(ruleSetArb, optionsArb, fc.array(contextArb, { minLength: 1, maxLength: 3 }), (raw, opts, contexts) => {
        const v = validateScreeningRules(raw);
        assert.ok(v.ok, JSON.stringify(v));
        // Normalization is idempotent and survives a JSON round trip (what the database stores).
        assert.deepEqual(validateScreeningRules(v.rules), v);
        assert.deepEqual(validateScreeningRules(JSON.parse(JSON.stringify(raw))), v);
        const gen = compileRulesWith(raw as unknown as ScreeningRule[], opts, 'codegen');
        const clo = compileRulesWith(v.rules, opts, 'closures');
        for (const ctx of contexts) {
          const a = gen.evaluate(ctx);
          assert.deepEqual(gen.evaluate(ctx), a);
          assert.deepEqual(clo.evaluate(ctx), a);
          checkOutcome(v.rules, a, opts);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('validation accepts exactly what compileRules compiles (valid and corrupted rule sets)', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(ruleSetArb, fc.array(mutationArb, { minLength: 0, maxLength: 2 }), optionsArb, contextArb, (raw, mutations, opts, ctx) => {
        let input: unknown = raw;
        for (const m of mutations) input = Array.isArray(input) ? corrupt(input as Json[], m) : input;
        const v = validateScreeningRules(input);
        assert.equal(compiles(input, 'codegen', opts), v.ok);
        assert.equal(compiles(input, 'closures', opts), v.ok);
        if (v.ok) {
          accepted++;
          const a = compileRulesWith(input as ScreeningRule[], opts, 'codegen').evaluate(ctx);
          assert.deepEqual(compileRulesWith(input as ScreeningRule[], opts, 'closures').evaluate(ctx), a);
          checkOutcome(v.rules, a, opts);
        } else {
          refused++;
          if (v.kind === 'issues') {
            assert.ok(v.issues.length > 0);
            for (const issue of v.issues) {
              assert.equal(issue.path[0], 'screening_rules');
              assert.equal(typeof issue.code, 'string');
              assert.equal(typeof issue.message, 'string');
            }
          } else {
            assert.equal(typeof v.field, 'string');
          }
        }
      }),
      { numRuns: 600 },
    );
    // The generator exercises both sides.
    assert.ok(accepted > 50 && refused > 50, `accepted ${accepted}, refused ${refused}`);
  });
});
