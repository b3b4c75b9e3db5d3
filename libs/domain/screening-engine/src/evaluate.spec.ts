import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { compileRules, InvalidScreeningRulesError, type ScreeningRule } from './index.js';
import { compileRulesWith } from './compile.js';
import { DEFAULT_OPTIONS, and, baseContext, evaluateBoth, field, fires, mkRule, ok, or } from './test-support.js';

const YES = field('applicant.address.country', 'eq', 'GB');
const NO = field('applicant.address.country', 'eq', 'US');

describe('evaluation order', () => {
  it('runs active rules in ascending priority, ties by position in the array', () => {
    const rules: ScreeningRule[] = [
      mkRule(YES, { name: 'a', priority: 50 }),
      mkRule(YES, { name: 'b', priority: 10 }),
      mkRule(YES, { name: 'c', priority: 50 }),
      mkRule(YES, { name: 'd', priority: 0 }),
      mkRule(YES, { name: 'e', priority: 10000 }),
      mkRule(NO, { name: 'f', priority: 10 }),
    ];
    const res = ok(evaluateBoth(rules, baseContext()));
    assert.deepEqual(
      res.trace.map((t) => [t.index, t.name, t.fired]),
      [
        [3, 'd', true],
        [1, 'b', true],
        [5, 'f', false],
        [0, 'a', true],
        [2, 'c', true],
        [4, 'e', true],
      ],
    );
    assert.deepEqual(
      res.fired.map((f) => f.name),
      ['d', 'b', 'a', 'c', 'e'],
    );
    assert.deepEqual(res.tags, ['d', 'b', 'a', 'c', 'e']);
  });

  it('skips inactive rules entirely: neither fired nor traced', () => {
    const rules = [mkRule(YES, { name: 'on' }), mkRule(YES, { name: 'off', isActive: false, action: 'review' })];
    const res = ok(evaluateBoth(rules, baseContext()));
    assert.deepEqual(res.trace, [{ index: 0, name: 'on', fired: true, fields: ['applicant.address.country'] }]);
    assert.equal(res.decision, 'none');
  });

  it('uses the defaults of validation when compiling raw rules (priority 100, active)', () => {
    const raw = [
      { name: 'late', ruleType: 'custom', condition: YES, action: 'tag', priority: 101 },
      { name: 'default', ruleType: 'custom', condition: YES, action: 'tag' },
    ] as unknown as ScreeningRule[];
    const res = ok(compileRules(raw, DEFAULT_OPTIONS).evaluate(baseContext()));
    assert.deepEqual(res.tags, ['default', 'late']);
  });
});

describe('actions and the decision', () => {
  const run = (rules: ScreeningRule[], reviewThreshold = 0.5) => ok(evaluateBoth(rules, baseContext(), { reviewThreshold }));

  it('no rule fired: decision none, empty outcome', () => {
    const res = run([mkRule(NO, { action: 'review' })]);
    assert.deepEqual({ ...res, trace: [] }, {
      status: 'ok',
      fired: [],
      tags: [],
      score: 0,
      decision: 'none',
      declineFloored: false,
      trace: [],
    });
  });

  it('tag records the rule name and does not drive the outcome', () => {
    const res = run([mkRule(YES, { name: 'watch', action: 'tag' })]);
    assert.deepEqual(res.tags, ['watch']);
    assert.equal(res.decision, 'none');
  });

  it('tags keep evaluation order and list a shared name once', () => {
    const res = run([
      mkRule(YES, { name: 'x', priority: 3 }),
      mkRule(YES, { name: 'y', priority: 2 }),
      mkRule(YES, { name: 'x', priority: 1 }),
      mkRule(NO, { name: 'z', priority: 0 }),
    ]);
    assert.deepEqual(res.tags, ['x', 'y']);
    assert.equal(res.fired.length, 3);
  });

  it('review routes to review', () => {
    assert.equal(run([mkRule(YES, { action: 'review' })]).decision, 'review');
  });

  it('approve approves when nothing routes to review', () => {
    assert.equal(run([mkRule(YES, { action: 'approve' })]).decision, 'approve');
    assert.equal(run([mkRule(YES, { action: 'approve' }), mkRule(YES, { action: 'review' })]).decision, 'review');
  });

  it('a fired decline is floored to review, never a decline', () => {
    const res = run([mkRule(field('finding.count', 'eq', 0), { action: 'decline', ruleType: 'watchlist_hit' })]);
    assert.equal(res.decision, 'review');
    assert.equal(res.declineFloored, true);
    assert.deepEqual(res.fired[0], {
      index: 0,
      name: 'rule',
      ruleType: 'watchlist_hit',
      action: 'decline',
      fields: ['finding.count'],
    });
    const withApprove = run([
      mkRule(YES, { action: 'approve', priority: 1 }),
      mkRule(field('finding.count', 'eq', 0), { action: 'decline', priority: 2 }),
    ]);
    assert.equal(withApprove.decision, 'review');
    const notFired = run([mkRule(field('finding.count', 'gt', 0), { action: 'decline' })]);
    assert.equal(notFired.declineFloored, false);
  });

  it('adjust_score sums the adjustments of fired rules; at or above the threshold routes to review', () => {
    const adj = (scoreAdjustment: number, condition = YES) => mkRule(condition, { action: 'adjust_score', scoreAdjustment });
    assert.deepEqual([run([adj(0.3), adj(0.2)]).score, run([adj(0.3), adj(0.2)]).decision], [0.5, 'review']);
    assert.deepEqual([run([adj(0.3), adj(0.1)]).score, run([adj(0.3), adj(0.1)]).decision], [0.4, 'none']);
    assert.deepEqual([run([adj(0.7), adj(-0.2)]).score, run([adj(0.7), adj(-0.2)]).decision], [0.5, 'review']); // rounded
    assert.equal(run([adj(0.1), adj(0.2), adj(0.2)]).score, 0.5);
    assert.equal(run([adj(1), adj(0.9, NO)]).score, 1); // only fired rules count
    assert.equal(run([adj(0.9), adj(-0.5)]).decision, 'none');
    assert.equal(run([adj(0.2), mkRule(YES, { action: 'approve' })]).decision, 'approve');
    assert.equal(run([adj(0.6), mkRule(YES, { action: 'approve' })]).decision, 'review');
    assert.equal(run([adj(0.2)], 0.2).decision, 'review');
    assert.equal(run([adj(-0.2)], -0.5).decision, 'review');
    assert.equal(Object.is(run([adj(0.5), adj(-0.5)]).score, 0), true); // never -0
  });

  it('the score threshold applies only once an adjust_score rule fired', () => {
    assert.equal(run([mkRule(YES, { action: 'tag' })], 0).decision, 'none');
    assert.equal(run([mkRule(YES, { action: 'approve' })], -1).decision, 'approve');
  });
});

describe('fired and trace entries', () => {
  const sensitive = baseContext({
    applicant: { familyName: 'Zzyzx', givenNames: ['Quillon'], email: 'q@secret-domain.test', dateOfBirth: '1971-03-04', phone: '+15550001111' },
  });
  const rules = [
    mkRule(and(field('applicant.familyName', 'eq', 'Zzyzx'), or(field('applicant.age', 'gt', 18), field('applicant.familyName', 'exists'))), {
      name: 'n1',
    }),
    mkRule(field('applicant.email.domain', 'eq', 'nope'), { name: 'n2', action: 'review' }),
  ];

  it('list field paths, each once, in order of appearance', () => {
    const res = ok(evaluateBoth(rules, sensitive));
    assert.deepEqual(res.trace, [
      { index: 0, name: 'n1', fired: true, fields: ['applicant.familyName', 'applicant.age'] },
      { index: 1, name: 'n2', fired: false, fields: ['applicant.email.domain'] },
    ]);
    assert.deepEqual(res.fired, [{ index: 0, name: 'n1', ruleType: 'custom', action: 'tag', fields: ['applicant.familyName', 'applicant.age'] }]);
  });

  it('never carry applicant values', () => {
    const json = JSON.stringify(ok(evaluateBoth(rules, sensitive)));
    for (const value of ['Zzyzx', 'Quillon', 'secret-domain', '1971', '5550001111', '54']) {
      assert.equal(json.includes(value), false, value);
    }
  });

  it('are fresh per evaluation: mutating one result does not leak into the next', () => {
    const set = compileRules(rules, DEFAULT_OPTIONS);
    const first = ok(set.evaluate(sensitive));
    first.trace[0]!.fields.push('tampered');
    first.fired.pop();
    first.tags.push('x');
    const second = ok(set.evaluate(sensitive));
    assert.deepEqual(second.trace[0]!.fields, ['applicant.familyName', 'applicant.age']);
    assert.equal(second.fired.length, 1);
    assert.deepEqual(second.tags, ['n1']);
  });
});

describe('session.metadata fields', () => {
  const meta = { tier: 'gold', limit: 5, strict: true, bins: [411111, 400000], regions: ['eu', 'us'] };
  const f = (c: ReturnType<typeof field>, templateMetadata: Record<string, unknown> = meta) =>
    fires(c, baseContext(), { templateMetadata });

  it('compare template metadata values with the usual operators', () => {
    assert.equal(f(field('session.metadata.tier', 'eq', 'gold')), true);
    assert.equal(f(field('session.metadata.tier', 'in', ['silver', 'gold'])), true);
    assert.equal(f(field('session.metadata.limit', 'gte', 5)), true);
    assert.equal(f(field('session.metadata.strict', 'eq', true)), true);
    assert.equal(f(field('session.metadata.bins', 'contains', 411111)), true);
    assert.equal(f(field('session.metadata.bins', 'eq', 411111)), false); // array field: reference comparison
    assert.equal(f(field('session.metadata.regions', 'not_in', ['eu'])), true);
    assert.equal(f(field('session.metadata.missing', 'exists')), false);
    assert.equal(f(field('session.metadata.missing', 'neq', 'x')), false);
  });

  it('combine with applicant fields in groups', () => {
    assert.equal(f(and(field('session.metadata.strict', 'eq', true), YES)), true);
    assert.equal(f(and(field('session.metadata.strict', 'eq', false), YES)), false);
  });

  it('fail the verification when an active rule reads a value of the wrong shape', () => {
    for (const bad of [{ a: 1 }, ['a', 1], [true]]) {
      const rules = [mkRule(YES, { name: 'first' }), mkRule(or(NO, field('session.metadata.cfg', 'exists')), { name: 'second' })];
      for (const mode of ['codegen', 'closures'] as const) {
        const set = compileRulesWith(rules, { ...DEFAULT_OPTIONS, templateMetadata: { cfg: bad } }, mode);
        assert.deepEqual(set.evaluate(baseContext()), { status: 'errored', reason: 'session_metadata_invalid', key: 'cfg' });
      }
    }
  });

  it('do not fail the verification for a bad value no active rule reads', () => {
    const templateMetadata = { cfg: { a: 1 }, other: 'x' };
    const rules = [mkRule(field('session.metadata.cfg', 'exists'), { isActive: false }), mkRule(field('session.metadata.other', 'eq', 'x'))];
    const res = ok(evaluateBoth(rules, baseContext(), { templateMetadata }));
    assert.equal(res.fired.length, 1);
  });

  it('name the first bad key in evaluation order', () => {
    const templateMetadata = { a: {}, b: {} };
    const rules = [mkRule(field('session.metadata.a', 'exists'), { priority: 2 }), mkRule(field('session.metadata.b', 'exists'), { priority: 1 })];
    const res = compileRules(rules, { ...DEFAULT_OPTIONS, templateMetadata }).evaluate(baseContext());
    assert.deepEqual(res, { status: 'errored', reason: 'session_metadata_invalid', key: 'b' });
  });
});

describe('compileRules', () => {
  it('refuses what validation refuses, with the validation result', () => {
    const bad = [mkRule(YES, { ruleType: 'bot_signal', action: 'decline' })];
    assert.throws(
      () => compileRules(bad, DEFAULT_OPTIONS),
      (err: unknown) => err instanceof InvalidScreeningRulesError && err.validation.kind === 'issues',
    );
    const unresolvable = [mkRule(field('applicant.gender', 'eq', 'x'))];
    assert.throws(
      () => compileRules(unresolvable, DEFAULT_OPTIONS),
      (err: unknown) =>
        err instanceof InvalidScreeningRulesError &&
        err.validation.kind === 'unresolvable_field' &&
        err.validation.field === 'applicant.gender',
    );
  });

  it('needs a numeric reviewThreshold', () => {
    assert.throws(() => compileRules([], { ...DEFAULT_OPTIONS, reviewThreshold: Number.NaN }), TypeError);
    assert.throws(() => compileRules([], { ...DEFAULT_OPTIONS, reviewThreshold: '0.5' as unknown as number }), TypeError);
  });

  it('an empty rule set evaluates to an empty outcome', () => {
    assert.deepEqual(compileRules([], DEFAULT_OPTIONS).evaluate(baseContext()), {
      status: 'ok',
      fired: [],
      tags: [],
      score: 0,
      decision: 'none',
      declineFloored: false,
      trace: [],
    });
  });

  it('does not throw on a missing or sparse context', () => {
    const rules = [
      mkRule(or(field('applicant.name', 'contains', 'a'), field('finding.count', 'gt', 0), field('check.document.outcome', 'eq', 'fail'))),
      mkRule(and(field('fraud.botScore', 'lt', 5), field('any.finding.person.x', 'exists'), field('applicant.age', 'gt', 1))),
    ];
    for (const ctx of [undefined, null, {}, { applicant: null, findings: null, checks: null, fraud: 3, device: 'x', now: 'never' }]) {
      for (const deviceIntelligence of [false, true]) {
        const res = ok(evaluateBoth(rules, ctx as never, { deviceIntelligence }));
        assert.equal(res.fired.length, 0);
      }
    }
  });

  it('compiles once and evaluates many contexts independently', () => {
    const set = compileRules([mkRule(field('applicant.age', 'lt', 18), { action: 'review', ruleType: 'age_restriction' })], DEFAULT_OPTIONS);
    const minor = baseContext({ applicant: { familyName: 'K', dateOfBirth: '2010-01-01' } });
    assert.equal(ok(set.evaluate(minor)).decision, 'review');
    assert.equal(ok(set.evaluate(baseContext())).decision, 'none');
    assert.equal(ok(set.evaluate(minor)).decision, 'review');
  });

  it('falls back to the closure tree where code generation from strings is disabled', () => {
    const script = `
      const { compileRules } = await import(${JSON.stringify(new URL('./index.js', import.meta.url).href)});
      const set = compileRules([{ name: 'minor', ruleType: 'age_restriction', action: 'review',
        condition: { kind: 'field', field: 'applicant.age', operator: 'lt', value: 18 } }],
        { deviceIntelligence: false, templateMetadata: {}, reviewThreshold: 0.5 });
      const res = set.evaluate({ applicant: { dateOfBirth: '2015-01-01' }, findings: [], checks: {}, now: new Date('2025-06-01') });
      console.log(res.decision);`;
    const child = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    assert.equal(child.stderr, '');
    assert.equal(child.stdout.trim(), 'review');
  });

  it('emits caller text only as data: names and values with quotes, backslashes and line separators', () => {
    const name = 'x"); throw new Error("pwned"); ("\\\u2028\u2029`${1}`';
    const value = '"+process.exit(1)+"\\';
    const rules = [mkRule(field('applicant.familyName', 'eq', value), { name }), mkRule(YES, { name })];
    const ctx = baseContext({ applicant: { familyName: value, address: { country: 'GB' } } });
    const res = ok(evaluateBoth(rules, ctx));
    assert.deepEqual(res.tags, [name]);
    assert.equal(res.fired.length, 2);
  });
});
