/**
 * The document's schema of a screening rule against the screening engine's own validator: what the engine accepts,
 * the schema accepts; what the schema refuses, the engine refuses; and where only the engine refuses, it is for a
 * rule the schema's description names (decline refusals, scoreAdjustment with adjust_score, operator and value,
 * an unresolvable field).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ACTIONS, OPERATORS, RULE_TYPES, validateScreeningRules } from '@verity/screening-engine';
import { componentValidator } from './test-support.js';

const validate = componentValidator('ScreeningRuleInput');

/** Mostly a valid value, sometimes one of the wrong ones. */
const mostly = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) => fc.oneof({ weight: 8, arbitrary: good }, { weight: 1, arbitrary: bad });

const field = mostly(fc.constantFrom('finding.count', 'applicant.age', 'applicant.givenNames', 'check.document.outcome', 'fraud.botScore', 'session.metadata.tier'), fc.constantFrom('nope.field', '', 'x'.repeat(121), 5));
const value = mostly(
  fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.array(fc.string({ maxLength: 2 }), { maxLength: 3 }), fc.array(fc.integer(), { maxLength: 3 })),
  fc.constantFrom([1, 'a'], null, {}, Number.NaN, Array.from({ length: 1001 }, () => 1)),
);
const fieldCondition = fc.record(
  { kind: fc.constant('field'), field, operator: mostly(fc.constantFrom(...OPERATORS), fc.constant('like')), value, extra: fc.constant(1) },
  { requiredKeys: ['kind', 'field', 'operator'] },
).map((c) => (c.extra !== undefined && c.field !== 'fraud.botScore' ? (({ extra: _e, ...rest }) => rest)(c) : c));
const condition = fc.letrec<{ c: unknown }>((tie) => ({
  c: fc.oneof(
    { depthSize: 'small' },
    fieldCondition,
    fc.record({ kind: fc.constant('group'), op: mostly(fc.constantFrom('AND', 'OR'), fc.constant('XOR')), children: fc.array(tie('c'), { maxLength: 3 }) }),
  ),
})).c;
const rule = fc.record(
  {
    name: mostly(fc.constantFrom('r', 'many findings'), fc.constantFrom('', 'x'.repeat(201))),
    ruleType: mostly(fc.constantFrom(...RULE_TYPES), fc.constant('unknown')),
    condition,
    action: mostly(fc.constantFrom(...ACTIONS), fc.constant('ban')),
    priority: mostly(fc.constantFrom(0, 100, 10000), fc.constantFrom(10001, -1, 1.5, '1')),
    isActive: mostly(fc.boolean(), fc.constant('yes')),
    scoreAdjustment: mostly(fc.constantFrom(-1, 0.3, 1), fc.constantFrom(1.1, 'x')),
    colour: fc.constant('red'),
  },
  { requiredKeys: ['name', 'ruleType', 'condition', 'action'] },
).map((r) => (r.colour !== undefined && r.name !== '' ? (({ colour: _c, ...rest }) => rest)(r) : r));

describe('screening rules: the document and the screening engine agree', () => {
  it('accepted by the engine ⇒ valid by the schema; refused by the schema ⇒ refused by the engine', () => {
    let both = 0;
    fc.assert(
      fc.property(rule, (r) => {
        const engine = validateScreeningRules([r]);
        const schema = validate(r);
        if (engine.ok) {
          both++;
          assert.ok(schema, `schema refuses a rule the engine accepts: ${JSON.stringify(r)} ${JSON.stringify(validate.errors)}`);
        }
        if (!schema) assert.ok(!engine.ok, `engine accepts a rule the schema refuses: ${JSON.stringify(r)}`);
        if (schema && !engine.ok && engine.kind === 'issues') {
          for (const i of engine.issues) {
            const member = i.path[i.path.length - 1];
            const named = i.code === 'custom' || member === 'scoreAdjustment' || member === 'value' || i.code === 'too_big';
            assert.ok(named, `a shape rule missing from the schema: ${JSON.stringify(i)} for ${JSON.stringify(r)}`);
          }
        }
      }),
      { numRuns: 3000, seed: 17 },
    );
    assert.ok(both > 20, `only ${both} accepted rules were generated`);
  });
});
