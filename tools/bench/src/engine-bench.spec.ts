import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileRules, validateScreeningRules } from '@verity/screening-engine';
import { BENCH_OPTIONS, benchContexts, benchEngine, benchRules, runJsonRulesEngine, toJsonRulesEngine } from './engine-bench.js';

function countLeaves(c: { kind: string; children?: unknown[] }): number {
  return c.kind === 'field' ? 1 : (c.children as { kind: string }[]).reduce((n, child) => n + countLeaves(child), 0);
}

describe('benchmark rule set', () => {
  it('is a valid set of 100 rules and 500 conditions, mixing fixed, pattern and nested-group conditions', () => {
    const rules = benchRules();
    assert.ok(validateScreeningRules(rules).ok);
    assert.equal(rules.length, 100);
    assert.equal(
      rules.reduce((n, r) => n + countLeaves(r.condition), 0),
      500,
    );
    const fields = new Set(JSON.stringify(rules).match(/"field":"[^"]+"/g));
    for (const prefix of ['applicant.', 'finding.', 'fraud.', 'device.', 'check.', 'any.finding.', 'all.finding.', 'count_where.finding.', 'session.metadata.']) {
      assert.ok([...fields].some((f) => f.startsWith(`"field":"${prefix}`)), prefix);
    }
  });

  it('fires the same rules and reaches the same decision in json-rules-engine as in the compiled engine', async () => {
    const rules = benchRules();
    const compiled = compileRules(rules, BENCH_OPTIONS);
    const engine = toJsonRulesEngine(rules, BENCH_OPTIONS);
    let firedSomewhere = 0;
    for (const ctx of benchContexts()) {
      const ours = compiled.evaluate(ctx);
      assert.equal(ours.status, 'ok');
      if (ours.status !== 'ok') return;
      const theirs = await runJsonRulesEngine(engine, rules, ctx, BENCH_OPTIONS.reviewThreshold);
      assert.deepEqual(
        ours.fired.map((f) => f.index).sort((a, b) => a - b),
        theirs.fired,
      );
      assert.equal(ours.decision, theirs.decision);
      firedSomewhere += ours.fired.length;
    }
    assert.ok(firedSomewhere > 0);
  });

  it('benchEngine reports both rates and their ratio', async () => {
    const res = await benchEngine({ durationMs: 40 });
    assert.ok(res.compiledPerSec > 0);
    assert.ok(res.jsonRulesEnginePerSec > 0);
    assert.ok(res.ratio > 1);
  });
});
