/**
 * Helpers shared by the specs (compiled with the library, never exported from the entry).
 * Every evaluation runs through both engines (generated code and closure tree) and asserts
 * that they agree before returning.
 */
import assert from 'node:assert/strict';
import { compileRulesWith } from './compile.js';
import type {
  Action,
  CompileOptions,
  Condition,
  EvaluationContext,
  EvaluationOk,
  EvaluationResult,
  Operator,
  RuleType,
  ScreeningRule,
} from './types.js';

export const NOW = new Date('2025-06-01T12:00:00Z');

export const DEFAULT_OPTIONS: CompileOptions = { deviceIntelligence: false, templateMetadata: {}, reviewThreshold: 0.5 };

export function baseContext(over: Partial<EvaluationContext> = {}): EvaluationContext {
  return {
    applicant: {
      familyName: 'Lovelace',
      givenNames: ['Ada', 'Augusta'],
      email: 'ada.lovelace@Example.COM',
      dateOfBirth: '1990-06-02',
      address: { country: 'GB' },
    },
    findings: [],
    checks: {},
    now: NOW,
    ...over,
  };
}

export function field(field: string, operator: Operator, value?: unknown): Condition {
  return (value === undefined ? { kind: 'field', field, operator } : { kind: 'field', field, operator, value }) as Condition;
}

export function and(...children: Condition[]): Condition {
  return { kind: 'group', op: 'AND', children };
}

export function or(...children: Condition[]): Condition {
  return { kind: 'group', op: 'OR', children };
}

export function mkRule(
  condition: Condition,
  over: Partial<Omit<ScreeningRule, 'condition'>> & { action?: Action; ruleType?: RuleType } = {},
): ScreeningRule {
  return { name: 'rule', ruleType: 'custom', condition, action: 'tag', priority: 100, isActive: true, ...over };
}

/** Evaluates with both engines, asserts they agree and that a second run gives the same result. */
export function evaluateBoth(
  rules: ScreeningRule[],
  ctx: EvaluationContext,
  opts: Partial<CompileOptions> = {},
): EvaluationResult {
  const options = { ...DEFAULT_OPTIONS, ...opts };
  const generated = compileRulesWith(rules, options, 'codegen');
  const closures = compileRulesWith(rules, options, 'closures');
  const a = generated.evaluate(ctx);
  const b = closures.evaluate(ctx);
  assert.deepEqual(a, b, 'generated code and closure tree disagree');
  assert.deepEqual(generated.evaluate(ctx), a, 'evaluation is not deterministic');
  return a;
}

export function ok(result: EvaluationResult): EvaluationOk {
  if (result.status !== 'ok') assert.fail(`expected status ok, got ${JSON.stringify(result)}`);
  return result;
}

/** Whether a single `tag` rule with this condition fires on the context. */
export function fires(condition: Condition, ctx: EvaluationContext = baseContext(), opts: Partial<CompileOptions> = {}): boolean {
  const res = ok(evaluateBoth([mkRule(condition)], ctx, opts));
  return res.fired.length === 1;
}
