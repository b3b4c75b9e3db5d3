export type {
  Action,
  CheckOutcome,
  CompileOptions,
  CompiledRuleSet,
  Condition,
  ConditionValue,
  DeclinableRuleType,
  Decision,
  EvaluationContext,
  EvaluationErrored,
  EvaluationOk,
  EvaluationResult,
  FieldCondition,
  Finding,
  FiredRule,
  FraudRuleType,
  GroupCondition,
  Operator,
  RuleIssue,
  RuleType,
  RulesValidation,
  ScreeningRule,
  Severity,
  SignalValue,
  TraceEntry,
} from './types.js';
export { validateScreeningRules, DECLINE_MESSAGES, LIMITS, UNRESOLVABLE_FIELD_MESSAGE } from './validate.js';
export { compileRules, InvalidScreeningRulesError } from './compile.js';
export {
  ACTIONS,
  CHECK_TYPES,
  FIXED_FIELDS,
  FRAUD_RULE_TYPES,
  OPERATORS,
  RULE_TYPES,
  SENSITIVE_FIELDS,
  isResolvableField,
  parseField,
  type FieldRef,
  type FieldType,
  type FixedField,
} from './fields.js';
// the reference semantics of operators and fields, to check another engine against this one (tools/bench)
export { holds } from './operators.js';
export { fieldSource, type FieldSource } from './resolve.js';
