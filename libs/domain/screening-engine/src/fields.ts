/**
 * The field catalogue: every path a condition may name (docs/screening.md, "Field
 * catalogue"), parsed into a descriptor the compiler turns into a resolver.
 */
import type { Action, RuleType } from './types.js';

export type FieldType = 'string' | 'number' | 'boolean' | 'string[]' | 'any' | 'any[]';

export type ApplicantKey =
  | 'legalName'
  | 'name'
  | 'familyName'
  | 'givenNames'
  | 'email'
  | 'emailDomain'
  | 'dateOfBirth'
  | 'age'
  | 'country'
  | 'phone';

/** `document.*`: what a live run read from the identity document, beside the applicant's own data. */
export type DocumentKey = 'type' | 'issuingCountry' | 'familyName' | 'givenNames' | 'dateOfBirth' | 'age' | 'nationality' | 'applicantMatch';

/** `watchlist.*`: what screening against the region's loaded lists found (docs/watchlist.md). */
export type WatchlistKey = 'bestScore' | 'hitCount';

export type FieldRef =
  | { kind: 'applicant'; key: ApplicantKey }
  | { kind: 'document'; key: DocumentKey }
  | { kind: 'watchlist'; key: WatchlistKey }
  | { kind: 'findingCount'; severity: 'high' | 'medium' | 'low' | undefined }
  | { kind: 'fraud'; key: string; type: 'string' | 'number' | 'boolean' }
  | { kind: 'device'; group: 'velocity' | 'behavior'; key: string; type: 'number' | 'boolean' }
  | { kind: 'check'; checkType: string }
  | { kind: 'findingAny' | 'findingAll' | 'findingCountWhere'; subjectType: string; field: string }
  | { kind: 'metadata'; key: string };

export interface FixedField {
  path: string;
  type: FieldType;
  ref: FieldRef;
}

export const RULE_TYPES = [
  'country_block',
  'score_threshold',
  'age_restriction',
  'geolocation_mismatch',
  'watchlist_hit',
  'adverse_media_hit',
  'custom',
  'repeat_applicant',
  'device_velocity',
  'ip_reputation',
  'bot_signal',
  'impossible_travel',
  'identity_ring',
  'email_risk',
  'behavior_anomaly',
  'geo_mismatch',
  'credit_history',
] as const satisfies readonly RuleType[];

/** The fraud rule types of the "No" row (credit_history has its own refusal). */
export const FRAUD_RULE_TYPES: ReadonlySet<RuleType> = new Set<RuleType>([
  'repeat_applicant',
  'device_velocity',
  'ip_reputation',
  'bot_signal',
  'impossible_travel',
  'identity_ring',
  'email_risk',
  'behavior_anomaly',
  'geo_mismatch',
]);

export const ACTIONS = ['tag', 'review', 'adjust_score', 'approve', 'decline'] as const satisfies readonly Action[];

export const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'contains', 'exists'] as const;

/** docs/screening.md: the `<checkType>` of `check.<checkType>.outcome`. */
export const CHECK_TYPES = [
  'document',
  'face_match',
  'liveness',
  'credit_history',
  'watchlist',
  'adverse_media',
  'device',
  'document_signing',
] as const;

/** Top-level finding members addressable as `<field>`; any other name is an evidence key. */
export const FINDING_TOP_LEVEL = ['id', 'subjectType', 'severity', 'sourceAuthority', 'findingType'] as const;

/**
 * Attributes a `decline` rule may not touch, anywhere in its condition. The last two are not
 * resolvable today (so not authorable) and are listed for future safety.
 */
export const SENSITIVE_FIELDS: ReadonlySet<string> = new Set([
  'applicant.age',
  'applicant.address.country',
  'applicant.legalName',
  'applicant.name',
  'applicant.familyName',
  'applicant.givenNames',
  'applicant.address.postalCode',
  'applicant.gender',
  'document.familyName',
  'document.givenNames',
  'document.age',
  'document.nationality',
]);

const APPLICANT_FIELDS: [string, FieldType, ApplicantKey][] = [
  ['applicant.legalName', 'string', 'legalName'],
  ['applicant.name', 'string', 'name'],
  ['applicant.familyName', 'string', 'familyName'],
  ['applicant.givenNames', 'string[]', 'givenNames'],
  ['applicant.email', 'string', 'email'],
  ['applicant.email.domain', 'string', 'emailDomain'],
  ['applicant.dateOfBirth', 'string', 'dateOfBirth'],
  ['applicant.age', 'number', 'age'],
  ['applicant.address.country', 'string', 'country'],
  ['applicant.phone', 'string', 'phone'],
];

const DOCUMENT_FIELDS: [string, FieldType, DocumentKey][] = [
  ['document.type', 'string', 'type'],
  ['document.issuingCountry', 'string', 'issuingCountry'],
  ['document.familyName', 'string', 'familyName'],
  ['document.givenNames', 'string[]', 'givenNames'],
  ['document.dateOfBirth', 'string', 'dateOfBirth'],
  ['document.age', 'number', 'age'],
  ['document.nationality', 'string', 'nationality'],
  ['document.applicantMatch', 'boolean', 'applicantMatch'],
];

const FRAUD_FIELDS: [string, 'string' | 'number' | 'boolean'][] = [
  ['botScore', 'number'],
  ['threatScore', 'number'],
  ['country', 'string'],
  ['asn', 'number'],
  ['asOrganization', 'string'],
  ['asnIsDatacenter', 'boolean'],
  ['verifiedBotCategory', 'string'],
  ['ja4', 'string'],
  ['ipReputation', 'boolean'],
  ['ipIsTorExit', 'boolean'],
  ['repeatApplicant', 'boolean'],
  ['emailDisposable', 'boolean'],
  ['emailDomainDga', 'boolean'],
  ['emailUsernameGrammarInvalid', 'boolean'],
  ['geoTimezoneMismatch', 'boolean'],
  ['deviceTouchPointMismatch', 'boolean'],
  ['countryMismatch', 'boolean'],
  ['impossibleTravel', 'boolean'],
  ['ringSize', 'number'],
  ['ringTruncated', 'boolean'],
  ['captureAbsent', 'boolean'],
  ['networkContextChanged', 'boolean'],
];

const DEVICE_FIELDS: ['velocity' | 'behavior', string, 'number' | 'boolean'][] = [
  ['velocity', 'distinctIps', 'number'],
  ['velocity', 'sessionCount', 'number'],
  ['behavior', 'pasteCount', 'number'],
  ['behavior', 'totalSeconds', 'number'],
  ['behavior', 'minStepSeconds', 'number'],
  ['behavior', 'headless', 'boolean'],
  ['behavior', 'collectionAbsent', 'boolean'],
];

function buildFixed(): Map<string, FixedField> {
  const map = new Map<string, FixedField>();
  const add = (path: string, type: FieldType, ref: FieldRef): void => {
    map.set(path, { path, type, ref });
  };
  for (const [path, type, key] of APPLICANT_FIELDS) add(path, type, { kind: 'applicant', key });
  for (const [path, type, key] of DOCUMENT_FIELDS) add(path, type, { kind: 'document', key });
  add('watchlist.bestScore', 'number', { kind: 'watchlist', key: 'bestScore' });
  add('watchlist.hitCount', 'number', { kind: 'watchlist', key: 'hitCount' });
  add('finding.count', 'number', { kind: 'findingCount', severity: undefined });
  for (const sev of ['high', 'medium', 'low'] as const) {
    add(`finding.severity.${sev}.count`, 'number', { kind: 'findingCount', severity: sev });
  }
  for (const [key, type] of FRAUD_FIELDS) add(`fraud.${key}`, type, { kind: 'fraud', key, type });
  for (const [group, key, type] of DEVICE_FIELDS) {
    add(`device.${group}.${key}`, type, { kind: 'device', group, key, type });
  }
  return map;
}

/** Every fixed field, by path, in catalogue order. */
export const FIXED_FIELDS: ReadonlyMap<string, FixedField> = buildFixed();

const CHECK_TYPE_SET: ReadonlySet<string> = new Set(CHECK_TYPES);

/** A pattern segment (`<subjectType>`, `<field>`, `<key>`): letters, digits and `_` only. */
const SEGMENT = /^[A-Za-z0-9_]+$/;
const CHECK_RE = /^check\.([^.]+)\.outcome$/;
const FINDING_RE = /^(any|all|count_where)\.finding\.([^.]+)\.([^.]+)$/;
const METADATA_RE = /^session\.metadata\.([^.]+)$/;

const FINDING_KINDS = { any: 'findingAny', all: 'findingAll', count_where: 'findingCountWhere' } as const;

/** The descriptor of a field path, or undefined when the engine cannot resolve it. */
export function parseField(path: string): FieldRef | undefined {
  const fixed = FIXED_FIELDS.get(path);
  if (fixed) return fixed.ref;
  let m = CHECK_RE.exec(path);
  if (m) return CHECK_TYPE_SET.has(m[1]) ? { kind: 'check', checkType: m[1] } : undefined;
  m = FINDING_RE.exec(path);
  if (m) {
    const quantifier = m[1] as keyof typeof FINDING_KINDS;
    const subjectType = m[2];
    const field = m[3];
    if (!SEGMENT.test(subjectType) || !SEGMENT.test(field)) return undefined;
    return { kind: FINDING_KINDS[quantifier], subjectType, field };
  }
  m = METADATA_RE.exec(path);
  if (m) return SEGMENT.test(m[1]) ? { kind: 'metadata', key: m[1] } : undefined;
  return undefined;
}

/** Whether a field path is resolvable by the engine (fixed or pattern). */
export function isResolvableField(path: string): boolean {
  return parseField(path) !== undefined;
}

/** Whether a field reads device intelligence (and so resolves to nothing while it is off). */
export function isDeviceField(ref: FieldRef): boolean {
  return ref.kind === 'fraud' || ref.kind === 'device';
}
