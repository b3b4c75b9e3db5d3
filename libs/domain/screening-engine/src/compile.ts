/**
 * Compiles a validated rule set, once, into one evaluation function: active rules in priority order, each
 * distinct field resolved once per run (or folded to a constant fixed at compile time), each condition a
 * straight-line boolean expression. Every literal is emitted through JSON.stringify or a constants table, so no
 * caller text becomes code; where code generation is disabled, an equivalent closure tree is used
 * (docs/screening.md, "Implementation notes").
 */
import { parseField, type FieldRef } from './fields.js';
import { holds } from './operators.js';
import { fieldSource, type FieldSource, type Resolver } from './resolve.js';
import type {
  Action,
  CompileOptions,
  CompiledRuleSet,
  Condition,
  EvaluationContext,
  EvaluationOk,
  EvaluationResult,
  FiredRule,
  Operator,
  RuleType,
  RulesValidation,
  ScreeningRule,
  TraceEntry,
} from './types.js';
import { validateScreeningRules } from './validate.js';

/** Thrown by `compileRules` for a rule set that `validateScreeningRules` refuses. */
export class InvalidScreeningRulesError extends Error {
  readonly validation: Exclude<RulesValidation, { ok: true }>;

  constructor(validation: Exclude<RulesValidation, { ok: true }>) {
    super(
      validation.kind === 'issues'
        ? `Invalid screening rules: ${validation.issues.length} issue(s).`
        : 'Invalid screening rules: unresolvable screening-rule field.',
    );
    this.name = 'InvalidScreeningRulesError';
    this.validation = validation;
  }
}

interface PlannedRule {
  index: number;
  name: string;
  ruleType: RuleType;
  action: Action;
  scoreAdjustment: number;
  fields: string[];
  condition: Condition;
}

interface Plan {
  rules: PlannedRule[];
  /** Distinct field paths read by active rules, and how each resolves. */
  paths: string[];
  refs: FieldRef[];
  sources: FieldSource[];
  slot: Map<string, number>;
  reviewThreshold: number;
  /** The first template metadata key of the wrong shape read by an active rule. */
  metadataError: string | undefined;
}

type Evaluate = (ctx: EvaluationContext) => EvaluationOk;

export type EngineMode = 'codegen' | 'closures';

function collectFields(c: Condition, out: string[]): void {
  if (c.kind === 'field') {
    if (!out.includes(c.field)) out.push(c.field);
  } else {
    for (const child of c.children) collectFields(child, out);
  }
}

function plan(rules: ScreeningRule[], opts: CompileOptions): Plan {
  const active = rules
    .map((rule, index) => ({ rule, index }))
    .filter((e) => e.rule.isActive)
    .sort((a, b) => a.rule.priority - b.rule.priority || a.index - b.index);
  const slot = new Map<string, number>();
  const paths: string[] = [];
  const refs: FieldRef[] = [];
  const sources: FieldSource[] = [];
  let metadataError: string | undefined;
  const planned = active.map(({ rule, index }): PlannedRule => {
    const fields: string[] = [];
    collectFields(rule.condition, fields);
    for (const path of fields) {
      let s = slot.get(path);
      if (s === undefined) {
        const ref = parseField(path);
        if (ref === undefined) throw new Error(`internal: unresolvable field reached the compiler`);
        s = paths.length;
        slot.set(path, s);
        paths.push(path);
        refs.push(ref);
        sources.push(fieldSource(ref, opts));
      }
      const src = sources[s];
      if (src !== undefined && src.kind === 'error' && metadataError === undefined) metadataError = src.key;
    }
    return {
      index,
      name: rule.name,
      ruleType: rule.ruleType,
      action: rule.action,
      scoreAdjustment: rule.action === 'adjust_score' ? (rule.scoreAdjustment ?? 0) : 0,
      fields,
      condition: rule.condition,
    };
  });
  return { rules: planned, paths, refs, sources, slot, reviewThreshold: opts.reviewThreshold, metadataError };
}

// ---------------------------------------------------------------------------------------------
// Code generation

/** Entries of an `in`/`not_in` array up to which an `===` chain beats a Set lookup. */
const INLINE_IN_MAX = 8;

function lit(v: string | number | boolean): string {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  return JSON.stringify(v);
}

interface GenEnv {
  plan: Plan;
  consts: unknown[];
}

function constRef(env: GenEnv, value: unknown): string {
  env.consts.push(value);
  return `K${env.consts.length - 1}`;
}

function membership(env: GenEnv, v: string, c: readonly (string | number)[]): string {
  if (c.length === 0) return 'false';
  if (c.length <= INLINE_IN_MAX) return `(${c.map((e) => `${v} === ${lit(e)}`).join(' || ')})`;
  return `${constRef(env, new Set<unknown>(c))}.has(${v})`;
}

const ORDER_SYMBOL = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function genLeaf(env: GenEnv, op: Operator, v: string, c: unknown): string {
  switch (op) {
    case 'exists':
      return `(${v} !== undefined)`;
    case 'eq':
      return Array.isArray(c) ? 'false' : `(${v} === ${lit(c as string | number | boolean)})`;
    case 'neq':
      return Array.isArray(c)
        ? `(${v} !== undefined)`
        : `(${v} !== undefined && ${v} !== ${lit(c as string | number | boolean)})`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const t = typeof c;
      if (t !== 'number' && t !== 'string') return 'false';
      return `(typeof ${v} === "${t}" && ${v} ${ORDER_SYMBOL[op]} ${lit(c as string | number)})`;
    }
    case 'in':
      return Array.isArray(c) ? membership(env, v, c as (string | number)[]) : 'false';
    case 'not_in':
      return Array.isArray(c) ? `(${v} !== undefined && !${membership(env, v, c as (string | number)[])})` : 'false';
    case 'contains':
      if (typeof c === 'string') {
        return `(typeof ${v} === "string" ? ${v}.includes(${lit(c)}) : Array.isArray(${v}) && ${v}.includes(${lit(c)}))`;
      }
      if (typeof c === 'number' || typeof c === 'boolean') return `(Array.isArray(${v}) && ${v}.includes(${lit(c)}))`;
      return 'false';
  }
}

function genCondition(env: GenEnv, c: Condition): string {
  if (c.kind === 'group') {
    return `(${c.children.map((child) => genCondition(env, child)).join(c.op === 'AND' ? ' && ' : ' || ')})`;
  }
  const s = env.plan.slot.get(c.field);
  const src = s === undefined ? undefined : env.plan.sources[s];
  if (s === undefined || src === undefined) throw new Error('internal: field without a slot');
  // A field fixed at compile time (device data off, template metadata) folds to a constant.
  if (src.kind !== 'fn') return src.kind === 'const' && holds(c.operator, src.value, c.value) ? 'true' : 'false';
  return genLeaf(env, c.operator, `v${s}`, c.value);
}

/**
 * Inline resolution of the plain member reads (same semantics as the resolvers of resolve.ts,
 * checked by the differential tests); undefined for fields resolved by calling their resolver.
 * Catalogue keys are never names an object inherits, so direct reads are safe.
 */
function inlineResolver(ref: FieldRef, v: string): string | undefined {
  const read = (obj: string, key: string, type: 'string' | 'number' | 'boolean'): string => {
    const bad =
      type === 'string'
        ? `typeof ${v} !== "string" || ${v} === ""`
        : type === 'number'
          ? `typeof ${v} !== "number" || !Number.isFinite(${v})`
          : `typeof ${v} !== "boolean"`;
    return `  let ${v} = ${obj}.${key}; if (${bad}) ${v} = undefined;`;
  };
  switch (ref.kind) {
    case 'applicant':
      switch (ref.key) {
        case 'familyName':
        case 'email':
        case 'dateOfBirth':
        case 'phone':
          return read('$A', ref.key, 'string');
        case 'country':
          return read('$AD', 'country', 'string');
        default:
          return undefined;
      }
    case 'fraud':
      return read('$F', ref.key, ref.type);
    case 'device':
      return read(ref.group === 'velocity' ? '$DV' : '$DB', ref.key, ref.type);
    case 'check':
      return read('$C', ref.checkType, 'string');
    default:
      return undefined;
  }
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Rules per generated chunk function: small functions reach optimized code quickly. */
const CHUNK = 10;

function collectSlots(p: Plan, c: Condition, out: Set<number>): void {
  if (c.kind === 'group') {
    for (const child of c.children) collectSlots(p, child, out);
    return;
  }
  const s = p.slot.get(c.field);
  const src = s === undefined ? undefined : p.sources[s];
  if (s !== undefined && src !== undefined && src.kind === 'fn') out.add(s);
}

function genEffects(rule: PlannedRule, i: number, tagNames: string[]): string {
  const name = JSON.stringify(rule.name);
  const effects: string[] = [
    `S.fired.push({ index: ${rule.index}, name: ${name}, ruleType: ${JSON.stringify(rule.ruleType)}, action: ${JSON.stringify(rule.action)}, fields: t${i}.fields });`,
  ];
  switch (rule.action) {
    case 'tag':
      // A name shared by several tag rules is recorded once.
      effects.push(
        tagNames.indexOf(rule.name) === tagNames.lastIndexOf(rule.name)
          ? `S.tags.push(${name});`
          : `if (!S.tags.includes(${name})) S.tags.push(${name});`,
      );
      break;
    case 'review':
      effects.push('S.review = true;');
      break;
    case 'adjust_score':
      effects.push(`S.score += ${lit(rule.scoreAdjustment)}; S.scored = true;`);
      break;
    case 'approve':
      effects.push('S.approve = true;');
      break;
    case 'decline':
      effects.push('S.declined = true;');
      break;
  }
  return effects.join(' ');
}

/**
 * Generated code: `resolve` reads every field once into an array; each chunk function evaluates
 * up to CHUNK rules in order and appends their trace and fired entries (literal objects; the
 * `fields` arrays come from literal boilerplates, fresh per run and nearly free); `evaluate`
 * runs the chunks and assembles the outcome.
 */
function generate(p: Plan): Evaluate {
  const env: GenEnv = { plan: p, consts: [] };
  const resolvers: Resolver[] = [];
  const out: string[] = [
    '"use strict";',
    'const EMPTY = Object.freeze(Object.create(null));',
    'const O = (v) => (typeof v === "object" && v !== null ? v : EMPTY);',
    'function resolve(ctx) {',
    '  const $A = O(ctx.applicant), $AD = O($A.address), $F = O(ctx.fraud), $C = O(ctx.checks);',
    '  const $D = O(ctx.device), $DV = O($D.velocity), $DB = O($D.behavior);',
  ];
  const slots: string[] = [];
  p.sources.forEach((src, s) => {
    if (src.kind !== 'fn') {
      slots.push('undefined');
      return;
    }
    slots.push(`v${s}`);
    const ref = p.refs[s];
    const key = ref === undefined ? undefined : 'key' in ref ? ref.key : 'checkType' in ref ? ref.checkType : undefined;
    const inline = ref !== undefined && (key === undefined || IDENT.test(key)) ? inlineResolver(ref, `v${s}`) : undefined;
    if (inline !== undefined) {
      out.push(inline);
    } else {
      resolvers.push(src.fn);
      out.push(`  const v${s} = R[${resolvers.length - 1}](ctx);`);
    }
  });
  out.push(`  return [${slots.join(', ')}];`, '}');

  const tagNames = p.rules.filter((r) => r.action === 'tag').map((r) => r.name);
  const chunks: string[] = [];
  for (let from = 0; from < p.rules.length; from += CHUNK) {
    const rules = p.rules.slice(from, from + CHUNK);
    const used = new Set<number>();
    for (const rule of rules) collectSlots(p, rule.condition, used);
    const name = `chunk${chunks.length}`;
    chunks.push(name);
    out.push(`function ${name}(V, S) {`);
    if (used.size > 0) out.push(`  const ${[...used].map((s) => `v${s} = V[${s}]`).join(', ')};`);
    const ids: string[] = [];
    rules.forEach((rule, k) => {
      const i = from + k;
      ids.push(`t${i}`);
      out.push(`  const h${i} = ${genCondition(env, rule.condition)};`);
      out.push(
        `  const t${i} = { index: ${rule.index}, name: ${JSON.stringify(rule.name)}, fired: h${i}, fields: ${JSON.stringify(rule.fields)} };`,
      );
      out.push(`  if (h${i}) { ${genEffects(rule, i, tagNames)} }`);
    });
    out.push(`  S.trace.push(${ids.join(', ')});`, '}');
  }

  out.push(
    'return function evaluate(ctx) {',
    '  const V = resolve(ctx);',
    '  const S = { fired: [], tags: [], trace: [], score: 0, scored: false, review: false, approve: false, declined: false };',
    ...chunks.map((c) => `  ${c}(V, S);`),
    '  const score = Math.round(S.score * 1e10) / 1e10 + 0;',
    `  const toReview = S.review || S.declined || (S.scored && score >= ${lit(p.reviewThreshold)});`,
    '  return {',
    '    status: "ok",',
    '    fired: S.fired,',
    '    tags: S.tags,',
    '    score,',
    '    decision: toReview ? "review" : S.approve ? "approve" : "none",',
    '    declineFloored: S.declined,',
    '    trace: S.trace,',
    '  };',
    '};',
  );
  // Constants (Sets of large `in` arrays) are bound once, ahead of the functions using them.
  const header = env.consts.map((_, i) => `const K${i} = K[${i}];`);
  const src = [out[0], ...header, ...out.slice(1)].join('\n');
  const factory = new Function('R', 'K', src) as (r: Resolver[], k: unknown[]) => Evaluate;
  return factory(resolvers, env.consts);
}

// ---------------------------------------------------------------------------------------------
// Closure tree (fallback where code generation is disabled; also the reference in tests)

type Test = (vals: unknown[]) => boolean;

function closureCondition(p: Plan, c: Condition): Test {
  if (c.kind === 'field') {
    const s = p.slot.get(c.field);
    if (s === undefined) throw new Error('internal: field without a slot');
    const { operator, value } = c;
    return (vals) => holds(operator, vals[s], value);
  }
  const kids = c.children.map((child) => closureCondition(p, child));
  if (c.op === 'AND') {
    return (vals) => {
      for (const k of kids) if (!k(vals)) return false;
      return true;
    };
  }
  return (vals) => {
    for (const k of kids) if (k(vals)) return true;
    return false;
  };
}

function closures(p: Plan): Evaluate {
  const tests = p.rules.map((rule) => closureCondition(p, rule.condition));
  const sources = p.sources;
  return (ctx) => {
    const vals = sources.map((src) => (src.kind === 'fn' ? src.fn(ctx) : src.kind === 'const' ? src.value : undefined));
    return finish(
      p,
      tests.map((test) => test(vals)),
    );
  };
}

// ---------------------------------------------------------------------------------------------
// Outcome

/** Scores are sums of decimals: rounded to 10 places so that 0.7 + -0.2 reaches a 0.5 threshold. */
function roundScore(x: number): number {
  return Math.round(x * 1e10) / 1e10 + 0;
}

function finish(p: Plan, flags: boolean[]): EvaluationOk {
  const rules = p.rules;
  const fired: FiredRule[] = [];
  const tags: string[] = [];
  const trace: TraceEntry[] = [];
  let score = 0;
  let scored = false;
  let review = false;
  let approve = false;
  let declined = false;
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    const f = flags[i] === true;
    const fields = r.fields.slice();
    trace.push({ index: r.index, name: r.name, fired: f, fields });
    if (!f) continue;
    fired.push({ index: r.index, name: r.name, ruleType: r.ruleType, action: r.action, fields });
    switch (r.action) {
      case 'tag':
        if (!tags.includes(r.name)) tags.push(r.name);
        break;
      case 'review':
        review = true;
        break;
      case 'adjust_score':
        score += r.scoreAdjustment;
        scored = true;
        break;
      case 'approve':
        approve = true;
        break;
      case 'decline':
        declined = true;
        break;
    }
  }
  score = roundScore(score);
  const toReview = review || declined || (scored && score >= p.reviewThreshold);
  return {
    status: 'ok',
    fired,
    tags,
    score,
    decision: toReview ? 'review' : approve ? 'approve' : 'none',
    declineFloored: declined,
    trace,
  };
}

const EMPTY_CONTEXT = Object.freeze({ applicant: {}, findings: [], checks: {}, now: new Date(Number.NaN) });

function build(p: Plan, mode: EngineMode): CompiledRuleSet {
  const key = p.metadataError;
  if (key !== undefined) {
    return { evaluate: (): EvaluationResult => ({ status: 'errored', reason: 'session_metadata_invalid', key }) };
  }
  let run: Evaluate;
  if (mode === 'codegen') {
    try {
      run = generate(p);
    } catch (err) {
      // Code generation from strings disabled in this process: use the closure tree.
      if (!(err instanceof EvalError)) throw err;
      run = closures(p);
    }
  } else {
    run = closures(p);
  }
  return {
    evaluate(ctx: EvaluationContext): EvaluationResult {
      return run(typeof ctx === 'object' && ctx !== null ? ctx : (EMPTY_CONTEXT as unknown as EvaluationContext));
    },
  };
}

function checkOptions(opts: CompileOptions): CompileOptions {
  if (typeof opts !== 'object' || opts === null) throw new TypeError('compileRules: options are required.');
  if (typeof opts.reviewThreshold !== 'number' || Number.isNaN(opts.reviewThreshold)) {
    throw new TypeError('compileRules: reviewThreshold must be a number.');
  }
  const md = opts.templateMetadata;
  return {
    deviceIntelligence: opts.deviceIntelligence === true,
    templateMetadata: typeof md === 'object' && md !== null && !Array.isArray(md) ? md : {},
    reviewThreshold: opts.reviewThreshold,
  };
}

/** `compileRules` with an explicit engine; the closure tree serves as the reference in tests. */
export function compileRulesWith(rules: ScreeningRule[], opts: CompileOptions, mode: EngineMode): CompiledRuleSet {
  const options = checkOptions(opts);
  const validation = validateScreeningRules(rules);
  if (!validation.ok) throw new InvalidScreeningRulesError(validation);
  return build(plan(validation.rules, options), mode);
}

/**
 * Compiles a rule set once; `evaluate` then runs every active rule against one verification.
 * The rules are validated first (the same `validateScreeningRules`): a refused set throws
 * `InvalidScreeningRulesError`, so exactly what validation accepts compiles.
 */
export function compileRules(rules: ScreeningRule[], opts: CompileOptions): CompiledRuleSet {
  return compileRulesWith(rules, opts, 'codegen');
}
