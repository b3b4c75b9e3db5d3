/**
 * Write-time validation of a `screening_rules` array (docs/screening.md: a rule, its validation
 * errors and limits). Hand-written rather than zod: it must report every issue with its full
 * path, apply the cross-member refusals (decline) and find unresolvable fields in nested groups.
 *
 * Precedence: any shape issue or `decline` refusal wins (kind `issues`, all of them reported);
 * otherwise the first unresolvable field in document order (kind `unresolvable_field`).
 */
import {
  ACTIONS,
  FRAUD_RULE_TYPES,
  OPERATORS,
  RULE_TYPES,
  SENSITIVE_FIELDS,
  parseField,
} from './fields.js';
import type {
  Action,
  Condition,
  ConditionValue,
  FieldCondition,
  Operator,
  RuleIssue,
  RuleType,
  RulesValidation,
  ScreeningRule,
} from './types.js';

export const LIMITS = {
  maxRules: 100,
  minGroupChildren: 1,
  maxGroupChildren: 20,
  /** Group levels, the outermost group counting 1 (groups nest, docs/screening.md; this bounds it). */
  maxGroupDepth: 32,
  minFieldLength: 1,
  maxFieldLength: 120,
  maxValueArray: 1000,
  minPriority: 0,
  maxPriority: 10000,
  defaultPriority: 100,
  minScoreAdjustment: -1,
  maxScoreAdjustment: 1,
  minNameLength: 1,
  maxNameLength: 200,
} as const;

/** The three `decline` refusals; each is reported with code `custom` at `[..., i, 'action']`. */
export const DECLINE_MESSAGES = {
  creditHistory:
    'decline is not allowed on a credit_history rule: a credit report is a consumer report and cannot decline an applicant automatically. Use tag, review or adjust_score.',
  fraud:
    'decline is not allowed on a fraud rule type: there is no automated decline of applicants on fraud, device or network signals. Use tag, review or adjust_score.',
  sensitive:
    'decline is not allowed on a rule whose condition touches a sensitive attribute (age, address country, postal code, gender or a name field). Use tag, review or adjust_score.',
} as const;

export const UNRESOLVABLE_FIELD_MESSAGE = 'Unresolvable screening-rule field.';

type Path = (string | number)[];

interface State {
  issues: RuleIssue[];
  unresolvable: string | undefined;
}

const RULE_KEYS: ReadonlySet<string> = new Set([
  'name',
  'ruleType',
  'condition',
  'action',
  'priority',
  'isActive',
  'scoreAdjustment',
]);
const FIELD_KEYS: ReadonlySet<string> = new Set(['kind', 'field', 'operator', 'value']);
const GROUP_KEYS: ReadonlySet<string> = new Set(['kind', 'op', 'children']);
const RULE_TYPE_SET: ReadonlySet<string> = new Set(RULE_TYPES);
const ACTION_SET: ReadonlySet<string> = new Set(ACTIONS);
const OPERATOR_SET: ReadonlySet<string> = new Set(OPERATORS);
const ORDERING: ReadonlySet<string> = new Set(['gt', 'gte', 'lt', 'lte']);

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A member is present when it is an own property with a value other than undefined. */
function member(o: Obj, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function push(st: State, code: string, message: string, path: Path): void {
  st.issues.push({ code, message, path });
}

function refuseUnknownMembers(st: State, o: Obj, allowed: ReadonlySet<string>, path: Path, what: string): void {
  for (const key of Object.keys(o)) {
    if (!allowed.has(key)) {
      push(st, 'unrecognized_keys', `Unknown member "${key}" in a ${what}.`, [...path, key]);
    }
  }
}

function listOf(values: readonly string[]): string {
  return values.map((v) => `"${v}"`).join(', ');
}

/**
 * Validates and normalizes a `screening_rules` array: defaults applied (`priority` 100,
 * `isActive` true), unknown members refused, inputs deep-copied so later mutation of the input
 * cannot change the result.
 */
export function validateScreeningRules(input: unknown): RulesValidation {
  const st: State = { issues: [], unresolvable: undefined };
  const root: Path = ['screening_rules'];
  if (!Array.isArray(input)) {
    push(st, 'invalid_type', 'screening_rules must be an array of rules.', root);
    return { ok: false, kind: 'issues', issues: st.issues };
  }
  if (input.length > LIMITS.maxRules) {
    push(st, 'too_big', `A workflow template holds at most ${LIMITS.maxRules} screening rules.`, root);
  }
  const rules: ScreeningRule[] = [];
  for (let i = 0; i < input.length; i++) {
    const rule = validateRule(st, input[i], [...root, i]);
    if (rule) rules.push(rule);
  }
  if (st.issues.length > 0) return { ok: false, kind: 'issues', issues: st.issues };
  if (st.unresolvable !== undefined) return { ok: false, kind: 'unresolvable_field', field: st.unresolvable };
  return { ok: true, rules };
}

function validateRule(st: State, raw: unknown, path: Path): ScreeningRule | undefined {
  if (!isObject(raw)) {
    push(st, 'invalid_type', 'A screening rule must be an object.', path);
    return undefined;
  }
  const before = st.issues.length;
  refuseUnknownMembers(st, raw, RULE_KEYS, path, 'screening rule');

  const name = member(raw, 'name');
  if (name === undefined) push(st, 'invalid_type', 'name is required.', [...path, 'name']);
  else if (typeof name !== 'string') push(st, 'invalid_type', 'name must be a string.', [...path, 'name']);
  else if (name.length < LIMITS.minNameLength) push(st, 'too_small', 'name must not be empty.', [...path, 'name']);
  else if (name.length > LIMITS.maxNameLength) {
    push(st, 'too_big', `name must be at most ${LIMITS.maxNameLength} characters.`, [...path, 'name']);
  }

  const ruleType = member(raw, 'ruleType');
  if (ruleType === undefined) push(st, 'invalid_type', 'ruleType is required.', [...path, 'ruleType']);
  else if (typeof ruleType !== 'string' || !RULE_TYPE_SET.has(ruleType)) {
    push(st, 'invalid_value', `ruleType must be one of ${listOf(RULE_TYPES)}.`, [...path, 'ruleType']);
  }

  const action = member(raw, 'action');
  if (action === undefined) push(st, 'invalid_type', 'action is required.', [...path, 'action']);
  else if (typeof action !== 'string' || !ACTION_SET.has(action)) {
    push(st, 'invalid_value', `action must be one of ${listOf(ACTIONS)}.`, [...path, 'action']);
  }

  const priority = member(raw, 'priority');
  if (priority !== undefined) {
    if (typeof priority !== 'number' || !Number.isInteger(priority)) {
      push(st, 'invalid_type', 'priority must be an integer from 0 to 10000.', [...path, 'priority']);
    } else if (priority < LIMITS.minPriority) {
      push(st, 'too_small', 'priority must be at least 0.', [...path, 'priority']);
    } else if (priority > LIMITS.maxPriority) {
      push(st, 'too_big', 'priority must be at most 10000.', [...path, 'priority']);
    }
  }

  const isActive = member(raw, 'isActive');
  if (isActive !== undefined && typeof isActive !== 'boolean') {
    push(st, 'invalid_type', 'isActive must be a boolean.', [...path, 'isActive']);
  }

  const scoreAdjustment = member(raw, 'scoreAdjustment');
  if (scoreAdjustment === undefined) {
    if (action === 'adjust_score') {
      push(st, 'invalid_type', 'scoreAdjustment is required when action is "adjust_score".', [...path, 'scoreAdjustment']);
    }
  } else if (typeof scoreAdjustment !== 'number' || !Number.isFinite(scoreAdjustment)) {
    push(st, 'invalid_type', 'scoreAdjustment must be a number from -1 to 1.', [...path, 'scoreAdjustment']);
  } else if (scoreAdjustment < LIMITS.minScoreAdjustment) {
    push(st, 'too_small', 'scoreAdjustment must be at least -1.', [...path, 'scoreAdjustment']);
  } else if (scoreAdjustment > LIMITS.maxScoreAdjustment) {
    push(st, 'too_big', 'scoreAdjustment must be at most 1.', [...path, 'scoreAdjustment']);
  }

  const fieldsSeen: string[] = [];
  const rawCondition = member(raw, 'condition');
  let condition: Condition | undefined;
  if (rawCondition === undefined) push(st, 'invalid_type', 'condition is required.', [...path, 'condition']);
  else condition = validateCondition(st, rawCondition, [...path, 'condition'], 0, fieldsSeen);

  if (action === 'decline') {
    const actionPath = [...path, 'action'];
    if (ruleType === 'credit_history') push(st, 'custom', DECLINE_MESSAGES.creditHistory, actionPath);
    else if (typeof ruleType === 'string' && FRAUD_RULE_TYPES.has(ruleType as RuleType)) {
      push(st, 'custom', DECLINE_MESSAGES.fraud, actionPath);
    }
    if (fieldsSeen.some((f) => SENSITIVE_FIELDS.has(f))) push(st, 'custom', DECLINE_MESSAGES.sensitive, actionPath);
  }

  if (st.issues.length > before || condition === undefined) return undefined;
  const rule: ScreeningRule = {
    name: name as string,
    ruleType: ruleType as RuleType,
    condition,
    action: action as Action,
    priority: (priority as number | undefined) ?? LIMITS.defaultPriority,
    isActive: (isActive as boolean | undefined) ?? true,
  };
  if (scoreAdjustment !== undefined) rule.scoreAdjustment = scoreAdjustment as number;
  return rule;
}

function validateCondition(
  st: State,
  raw: unknown,
  path: Path,
  groupDepth: number,
  fieldsSeen: string[],
): Condition | undefined {
  if (!isObject(raw)) {
    push(st, 'invalid_type', 'A condition must be an object with kind "field" or "group".', path);
    return undefined;
  }
  const kind = member(raw, 'kind');
  if (kind === 'field') return validateFieldCondition(st, raw, path, fieldsSeen);
  if (kind === 'group') return validateGroup(st, raw, path, groupDepth, fieldsSeen);
  if (kind === undefined) push(st, 'invalid_type', 'kind is required ("field" or "group").', [...path, 'kind']);
  else push(st, 'invalid_value', 'kind must be "field" or "group".', [...path, 'kind']);
  return undefined;
}

function validateGroup(st: State, raw: Obj, path: Path, groupDepth: number, fieldsSeen: string[]): Condition | undefined {
  const before = st.issues.length;
  refuseUnknownMembers(st, raw, GROUP_KEYS, path, 'group condition');
  const depth = groupDepth + 1;
  if (depth > LIMITS.maxGroupDepth) {
    push(st, 'too_big', `Condition groups nest at most ${LIMITS.maxGroupDepth} levels deep.`, path);
    return undefined;
  }
  const op = member(raw, 'op');
  if (op === undefined) push(st, 'invalid_type', 'op is required ("AND" or "OR").', [...path, 'op']);
  else if (op !== 'AND' && op !== 'OR') push(st, 'invalid_value', 'op must be "AND" or "OR".', [...path, 'op']);

  const rawChildren = member(raw, 'children');
  const children: Condition[] = [];
  if (rawChildren === undefined) {
    push(st, 'invalid_type', 'children is required.', [...path, 'children']);
  } else if (!Array.isArray(rawChildren)) {
    push(st, 'invalid_type', 'children must be an array of conditions.', [...path, 'children']);
  } else {
    if (rawChildren.length < LIMITS.minGroupChildren) {
      push(st, 'too_small', 'A group needs at least 1 condition.', [...path, 'children']);
    } else if (rawChildren.length > LIMITS.maxGroupChildren) {
      push(st, 'too_big', `A group holds at most ${LIMITS.maxGroupChildren} conditions.`, [...path, 'children']);
    }
    for (let j = 0; j < rawChildren.length; j++) {
      const child = validateCondition(st, rawChildren[j], [...path, 'children', j], depth, fieldsSeen);
      if (child) children.push(child);
    }
  }
  if (st.issues.length > before) return undefined;
  return { kind: 'group', op: op as 'AND' | 'OR', children };
}

type ValueShape = 'string' | 'number' | 'boolean' | 'array' | 'invalid';

function validateFieldCondition(st: State, raw: Obj, path: Path, fieldsSeen: string[]): Condition | undefined {
  const before = st.issues.length;
  refuseUnknownMembers(st, raw, FIELD_KEYS, path, 'field condition');

  const field = member(raw, 'field');
  if (field === undefined) push(st, 'invalid_type', 'field is required.', [...path, 'field']);
  else if (typeof field !== 'string') push(st, 'invalid_type', 'field must be a string.', [...path, 'field']);
  else {
    fieldsSeen.push(field);
    if (field.length < LIMITS.minFieldLength) push(st, 'too_small', 'field must not be empty.', [...path, 'field']);
    else if (field.length > LIMITS.maxFieldLength) {
      push(st, 'too_big', `field must be at most ${LIMITS.maxFieldLength} characters.`, [...path, 'field']);
    } else if (st.unresolvable === undefined && parseField(field) === undefined) {
      st.unresolvable = field;
    }
  }

  const operator = member(raw, 'operator');
  const operatorOk = typeof operator === 'string' && OPERATOR_SET.has(operator);
  if (operator === undefined) push(st, 'invalid_type', 'operator is required.', [...path, 'operator']);
  else if (!operatorOk) push(st, 'invalid_value', `operator must be one of ${listOf(OPERATORS)}.`, [...path, 'operator']);

  const value = member(raw, 'value');
  const shape = value === undefined ? undefined : checkValue(st, value, [...path, 'value']);
  if (operatorOk && shape !== 'invalid') checkOperatorFit(st, operator as Operator, shape, [...path, 'value']);

  if (st.issues.length > before) return undefined;
  const out: FieldCondition = { kind: 'field', field: field as string, operator: operator as Operator };
  if (value !== undefined) out.value = (Array.isArray(value) ? value.slice() : value) as ConditionValue;
  return out;
}

function checkValue(st: State, value: unknown, path: Path): ValueShape {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      if (Number.isFinite(value)) return 'number';
      push(st, 'invalid_type', 'value must be a finite number.', path);
      return 'invalid';
  }
  if (!Array.isArray(value)) {
    push(st, 'invalid_type', 'value must be a string, number, boolean, array of strings or array of numbers.', path);
    return 'invalid';
  }
  let ok = true;
  if (value.length > LIMITS.maxValueArray) {
    push(st, 'too_big', `value holds at most ${LIMITS.maxValueArray} entries.`, path);
    ok = false;
  }
  // Indexed loop, not every(): a sparse array's holes must count as (invalid) undefined entries.
  let strings = true;
  let numbers = true;
  for (let i = 0; i < value.length; i++) {
    const e: unknown = value[i];
    if (typeof e !== 'string') strings = false;
    if (typeof e !== 'number' || !Number.isFinite(e)) numbers = false;
  }
  if (!strings && !numbers) {
    push(st, 'invalid_type', 'value must be an array of strings or an array of numbers, not mixed.', path);
    ok = false;
  }
  return ok ? 'array' : 'invalid';
}

/** Which value shapes an operator takes; `exists` ignores its value. */
function checkOperatorFit(st: State, operator: Operator, shape: ValueShape | undefined, path: Path): void {
  if (operator === 'exists') return;
  if (shape === undefined) {
    push(st, 'invalid_type', `value is required with operator "${operator}".`, path);
  } else if ((operator === 'in' || operator === 'not_in') && shape !== 'array') {
    push(st, 'invalid_type', `operator "${operator}" needs an array value.`, path);
  } else if (ORDERING.has(operator) && shape !== 'number' && shape !== 'string') {
    push(st, 'invalid_type', `operator "${operator}" needs a number or string value.`, path);
  } else if (operator === 'contains' && shape === 'array') {
    push(st, 'invalid_type', 'operator "contains" needs a single string, number or boolean value.', path);
  }
}
