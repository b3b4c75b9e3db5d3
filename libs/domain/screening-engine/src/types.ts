/**
 * Public types of the screening engine. The wire shape of a rule (docs/screening.md, "A rule") is
 * the same as the in-memory shape: camelCase members, `condition` a field condition or a group.
 */

export type Operator = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'not_in' | 'contains' | 'exists';

export type Action = 'tag' | 'review' | 'adjust_score' | 'approve' | 'decline';

/** Rule types that may carry `decline` (docs/screening.md, "When `decline` is refused"). */
export type DeclinableRuleType =
  | 'country_block'
  | 'score_threshold'
  | 'age_restriction'
  | 'geolocation_mismatch'
  | 'watchlist_hit'
  | 'adverse_media_hit'
  | 'custom';

/** Fraud rule types: never `decline` (no automated decline of applicants). */
export type FraudRuleType =
  | 'repeat_applicant'
  | 'device_velocity'
  | 'ip_reputation'
  | 'bot_signal'
  | 'impossible_travel'
  | 'identity_ring'
  | 'email_risk'
  | 'behavior_anomaly'
  | 'geo_mismatch';

/** All 17 rule types. `credit_history` never carries `decline` (a credit report is a consumer report). */
export type RuleType = DeclinableRuleType | FraudRuleType | 'credit_history';

/** A condition `value`: string, number, boolean, array of strings or array of numbers. */
export type ConditionValue = string | number | boolean | string[] | number[];

export interface FieldCondition {
  kind: 'field';
  field: string;
  operator: Operator;
  value?: ConditionValue;
}

export interface GroupCondition {
  kind: 'group';
  op: 'AND' | 'OR';
  children: Condition[];
}

export type Condition = FieldCondition | GroupCondition;

export interface ScreeningRule {
  name: string;
  ruleType: RuleType;
  condition: Condition;
  action: Action;
  priority: number;
  isActive: boolean;
  scoreAdjustment?: number;
}

/** One validation issue; `path` starts with `'screening_rules'`, then the rule index, then members. */
export interface RuleIssue {
  code: string;
  message: string;
  path: (string | number)[];
}

export type RulesValidation =
  | { ok: true; rules: ScreeningRule[] }
  | { ok: false; kind: 'issues'; issues: RuleIssue[] }
  | { ok: false; kind: 'unresolvable_field'; field: string };

export interface CompileOptions {
  /** The workflow template's device-intelligence switch: off means `fraud.*` and `device.*` resolve to nothing. */
  deviceIntelligence: boolean;
  /** The workflow template's metadata, read by `session.metadata.<key>`. */
  templateMetadata: Record<string, unknown>;
  /** A summed score at or above this sends the run to review (`review_threshold` of docs/screening.md, default 0.5). */
  reviewThreshold: number;
}

export type Severity = 'high' | 'medium' | 'low';

export interface Finding {
  id: string;
  subjectType: string;
  severity: Severity;
  sourceAuthority: string;
  findingType: string;
  evidence: Record<string, unknown>;
}

export type CheckOutcome = 'pass' | 'fail' | 'review' | 'error';

export type SignalValue = string | number | boolean | undefined;

/**
 * What a verification run resolved. Anything that can be missing is optional. The one type of a run's facts: the
 * sessions service builds it and sends it with `now` as an ISO 8601 string (`EvaluationContextWire` in
 * @verity/contracts is `EvaluationContext<string>`); the screening service turns `now` into a Date.
 */
export interface EvaluationContext<Now extends Date | string = Date | string> {
  applicant: {
    legalName?: string;
    familyName?: string;
    givenNames?: string[];
    email?: string;
    /** `YYYY-MM-DD`. */
    dateOfBirth?: string;
    address?: { country?: string };
    phone?: string;
  };
  findings: Finding[];
  /** Live runs: what the identity document says (`document.*`); absent in test mode and when nothing was read. */
  document?: {
    type?: string;
    issuingCountry?: string;
    familyName?: string;
    givenNames?: string[];
    /** `YYYY-MM-DD`. */
    dateOfBirth?: string;
    nationality?: string;
    applicantMatch?: boolean;
  };
  /**
   * What the `watchlist` check found (`watchlist.*`): the best score of any listed person and the number of hits at or
   * above the review threshold; absent when the check did not run or no list is loaded.
   */
  watchlist?: { bestScore?: number; hitCount?: number };
  /** Outcome by check type (docs/screening.md); a check that did not run is absent. */
  checks: Partial<Record<string, CheckOutcome>>;
  /** Fraud and network signals by name (`fraud.<name>`); read only with device intelligence on. */
  fraud?: Record<string, SignalValue>;
  /** Device signals (`device.velocity.*`, `device.behavior.*`); read only with device intelligence on. */
  device?: {
    velocity?: Record<string, SignalValue>;
    behavior?: Record<string, SignalValue>;
  };
  /** The instant `applicant.age` is computed at (a Date, or an ISO 8601 string). */
  now: Now;
}

export interface FiredRule {
  /** Position of the rule in the `screening_rules` array. */
  index: number;
  name: string;
  ruleType: RuleType;
  action: Action;
  /** Field paths of the rule's condition, in order of first appearance. Never values. */
  fields: string[];
}

export interface TraceEntry {
  index: number;
  name: string;
  fired: boolean;
  fields: string[];
}

export type Decision = 'approve' | 'review' | 'none';

export interface EvaluationOk {
  status: 'ok';
  /** Fired rules, in evaluation order. */
  fired: FiredRule[];
  /** Names of fired `tag` rules, in evaluation order, each name once. */
  tags: string[];
  /** Sum of the `scoreAdjustment` of fired `adjust_score` rules (rounded to 10 decimals). */
  score: number;
  decision: Decision;
  /** True when at least one `decline` fired (and was floored to review). */
  declineFloored: boolean;
  /** Every active rule, in evaluation order. Field paths only, never applicant values. */
  trace: TraceEntry[];
}

export interface EvaluationErrored {
  status: 'errored';
  reason: 'session_metadata_invalid';
  /** The template metadata key whose value has the wrong shape. */
  key: string;
}

export type EvaluationResult = EvaluationOk | EvaluationErrored;

export interface CompiledRuleSet {
  evaluate(ctx: EvaluationContext): EvaluationResult;
}
