import { benchEngine } from '@verity/screening-engine/bench';

/** Full evaluations per second of a 100-rule set (≈500 conditions), compiled engine vs json-rules-engine. */
export async function benchScreeningEngine(): Promise<void> {
  const r = await benchEngine({ durationMs: 3000 });
  process.stdout.write('\nScreening engine: full evaluations of a 100-rule set (≈500 conditions), one core\n');
  process.stdout.write(`compiled engine        ${Math.round(r.compiledPerSec).toLocaleString('en')} /s   (target ≥ 200,000)\n`);
  process.stdout.write(`json-rules-engine      ${Math.round(r.jsonRulesEnginePerSec).toLocaleString('en')} /s\n`);
  process.stdout.write(`ratio                  ${Math.round(r.ratio)}×   (target ≥ 500×)\n`);
}
