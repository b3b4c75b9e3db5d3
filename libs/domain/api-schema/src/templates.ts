import { APPLICANT_MISMATCH_POLICIES, CHECK_TYPES, DOCUMENT_TYPES, SIGNING_VARIABLES, type CheckType } from '@verity/contracts';
import countries from 'i18n-iso-countries';
import { ACTIONS, LIMITS, OPERATORS, RULE_TYPES, type Condition } from '@verity/screening-engine';
import { z } from 'zod';
import { id, mode, timestamp } from './common.js';
import { componentRef } from './refs.js';
import { isStorableText } from './text.js';

/** Defaults of a template create (docs/screening.md). */
export const TEMPLATE_DEFAULTS = {
  checks: [] as CheckType[],
  metadata: {},
  device_intelligence: false,
  photo_upload: false,
  review_threshold: 0.5,
  signing_document: null,
  minimum_age: null,
  accepted_document_types: null,
  accepted_issuing_countries: null,
  applicant_mismatch: 'review',
  thresholds: {},
  watchlist_thresholds: {},
} as const;

/** The range of a watchlist threshold, the same as `WATCHLIST_REVIEW_THRESHOLD`'s and `WATCHLIST_FAIL_THRESHOLD`'s. */
export const WATCHLIST_THRESHOLD_RANGE = [0.5, 1] as const;

/**
 * The reader's thresholds a template may override (the names of `Thresholds` in libs/domain/reading), each with its range
 * (the same as its configuration variable's, docs/configuration.md). A unit test of the evidence service keeps these
 * names equal to the reader's.
 */
export const THRESHOLD_RANGES = {
  faceMatchPass: [0, 1],
  faceMatchReview: [0, 1],
  livenessPass: [0, 1],
  livenessReview: [0, 1],
  faceMinSize: [0, 1],
  faceMaxAngle: [0, 90],
  eyesOpen: [0, 1],
  sharpness: [0, 10_000],
  documentCopy: [-1, 1],
  documentCopyReview: [-1, 1],
  challengeTurn: [1, 90],
  challengeFrameMatch: [0, 1],
} as const satisfies Record<string, readonly [number, number]>;
export type ThresholdName = keyof typeof THRESHOLD_RANGES;
export const THRESHOLD_NAMES = Object.keys(THRESHOLD_RANGES) as ThresholdName[];
/** A threshold and its review threshold: set together, the review at most the other. */
const THRESHOLD_PAIRS = [
  ['faceMatchPass', 'faceMatchReview'],
  ['livenessPass', 'livenessReview'],
  ['documentCopy', 'documentCopyReview'],
] as const satisfies readonly (readonly [ThresholdName, ThresholdName])[];

/** The oldest minimum age a template may ask for. */
export const MINIMUM_AGE_MAX = 125;

export const NAME_MAX = 200;
export const TITLE_MAX = 200;

/**
 * The most `metadata` and `screening_rules` may weigh, as JSON in UTF-8: a template version travels whole in
 * NATS messages (1 MiB at most) to every read and every session create that pins it. Checked by the service.
 */
export const TEMPLATE_METADATA_MAX_BYTES = 16 * 1024;
export const SCREENING_RULES_MAX_BYTES = 128 * 1024;

// C0 and C1 control characters: a name or title is one display line (and Postgres text holds no NUL).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const displayLine = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => s === '' || s.trim().length > 0, { message: 'must not be blank' })
    .refine((s) => !CONTROL.test(s) && isStorableText(s), { message: 'must be one line of text without control characters' })
    .meta({ description: 'One line of text: not blank, no control characters.' });

/** Reports each value of a list that repeats an earlier one, at its index. */
function noRepeats(arr: readonly string[], ctx: z.RefinementCtx<readonly string[]>): void {
  const seen = new Set<string>();
  arr.forEach((v, i) => {
    if (seen.has(v)) ctx.addIssue({ code: 'custom', message: 'must not repeat a value', path: [i] });
    seen.add(v);
  });
}

/** An array of enumerated strings in which each value appears once; a repeat is reported at its index. */
function uniqueArrayOf<T extends readonly [string, ...string[]]>(values: T) {
  return z.array(z.enum(values)).superRefine(noRepeats).meta({ uniqueItems: true });
}

const plainObject = z
  .custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
    message: 'must be a JSON object',
  })
  .meta({ type: 'object', description: `Any JSON object, at most ${TEMPLATE_METADATA_MAX_BYTES / 1024} KiB as JSON. Rules read its keys as \`session.metadata.<key>\`.` });

const signingDocumentInput = z.strictObject({
  title: displayLine(TITLE_MAX),
  variables: uniqueArrayOf(SIGNING_VARIABLES)
    .default([])
    .meta({ description: 'The variables the document places, in document order; each makes the session metadata key of the same name required at session create.' }),
});

// --- screening rules (validated by libs/domain/screening-engine, which reports every issue with its path; described here)

export const conditionValue = z
  .union([z.string(), z.number(), z.boolean(), z.array(z.string()).max(LIMITS.maxValueArray), z.array(z.number()).max(LIMITS.maxValueArray)])
  .meta({ description: `String, number, boolean, or an array (at most ${LIMITS.maxValueArray} entries) of strings or of numbers. Ignored by \`exists\`; an array for \`in\`/\`not_in\`.` });

export const fieldCondition = z.strictObject({
  kind: z.literal('field'),
  field: z
    .string()
    .min(LIMITS.minFieldLength)
    .max(LIMITS.maxFieldLength)
    .meta({ description: 'A resolvable field: `applicant.*`, `finding.*`, `fraud.*`, `device.*`, `check.<checkType>.outcome`, `any|all|count_where.finding.<subjectType>.<field>`, `session.metadata.<key>` (docs/screening.md).' }),
  operator: z.enum(OPERATORS),
  value: conditionValue.optional(),
});

export const groupCondition = z.strictObject({
  kind: z.literal('group'),
  op: z.enum(['AND', 'OR']),
  get children(): z.ZodArray<typeof condition> {
    return z.array(condition).min(LIMITS.minGroupChildren).max(LIMITS.maxGroupChildren);
  },
});

export const condition: z.ZodType<Condition> = z
  .discriminatedUnion('kind', [fieldCondition, groupCondition])
  .meta({ description: `A field condition or a group of 1 to ${LIMITS.maxGroupChildren} conditions; groups nest (at most ${LIMITS.maxGroupDepth} levels).` });

/**
 * A screening rule. The same schema describes a rule as sent (priority and isActive optional) and as read (defaults
 * applied). Cross-member rules stay in libs/domain/screening-engine and are described in the text.
 */
export const screeningRule = z
  .strictObject({
    name: z.string().min(LIMITS.minNameLength).max(LIMITS.maxNameLength),
    ruleType: z.enum(RULE_TYPES),
    condition,
    action: z.enum(ACTIONS),
    priority: z.number().int().min(LIMITS.minPriority).max(LIMITS.maxPriority).default(LIMITS.defaultPriority).meta({ description: 'Lower runs first.' }),
    isActive: z.boolean().default(true),
    scoreAdjustment: z
      .number()
      .min(LIMITS.minScoreAdjustment)
      .max(LIMITS.maxScoreAdjustment)
      .optional()
      .meta({ description: 'Required with `adjust_score`, meaningful only there.' }),
  })
  .meta({
    description: [
      'Rules checked as code (422 `validation_error`, issue path `screening_rules.<i>.<member>`): `scoreAdjustment` is required with `adjust_score`;',
      '`decline` is refused on a `credit_history` rule, on the fraud rule types (`repeat_applicant`, `device_velocity`, `ip_reputation`, `bot_signal`, `impossible_travel`, `identity_ring`, `email_risk`, `behavior_anomaly`, `geo_mismatch`)',
      'and on a rule whose condition touches a sensitive attribute (age, address country, a name field); the value of an operator must fit it',
      '(`in`/`not_in` an array; `gt`/`gte`/`lt`/`lte` a number or string; `contains` a single value).',
      'A `field` the engine cannot resolve is refused alone, with `details` exactly `{ "field": "<the field>" }`.',
    ].join(' '),
  });

/** `screening_rules` of a create or PATCH: validated by the screening engine, so this schema only describes it. */
const screeningRulesField = z.unknown().meta({
  type: 'array',
  maxItems: LIMITS.maxRules,
  items: { $ref: componentRef('ScreeningRuleInput') },
  description: `At most ${LIMITS.maxRules} rules, at most ${SCREENING_RULES_MAX_BYTES / 1024} KiB as JSON. On PATCH the array replaces every rule (\`[]\` clears them).`,
});

const isoCountry = z
  .string()
  .refine((c) => /^[A-Z]{2}$/.test(c) && countries.isValid(c), { message: 'must be an ISO 3166-1 alpha-2 code, e.g. DE' });

/** A non-empty list in which each value appears once; a repeat is reported at its index. */
function uniqueList<T extends z.ZodType<string>>(item: T) {
  return z.array(item).min(1).superRefine(noRepeats).meta({ uniqueItems: true });
}

/** Overrides of the reader's thresholds: each in its range, a threshold and its review together, review ≤ the other. */
const thresholdsField = z
  .strictObject(Object.fromEntries(THRESHOLD_NAMES.map((n) => [n, z.number().min(THRESHOLD_RANGES[n][0]).max(THRESHOLD_RANGES[n][1]).optional()])) as Record<ThresholdName, z.ZodOptional<z.ZodNumber>>)
  .superRefine((t, ctx) => {
    for (const [pass, review] of THRESHOLD_PAIRS) {
      const r = t[review];
      const p = t[pass];
      if ((r === undefined) !== (p === undefined)) {
        const missing = r === undefined ? review : pass;
        ctx.addIssue({ code: 'custom', message: `${pass} and ${review} are set together: add ${missing}`, path: [missing] });
      } else if (r !== undefined && p !== undefined && r > p) {
        ctx.addIssue({ code: 'custom', message: `${review} (${r}) must not be above ${pass} (${p})`, path: [review] });
      }
    }
  })
  .meta({
    description: `Overrides of the region's reading thresholds for this workflow's live runs (docs/reading.md): ${THRESHOLD_NAMES.map((n) => `\`${n}\` (${THRESHOLD_RANGES[n][0]} to ${THRESHOLD_RANGES[n][1]})`).join(', ')}. ${THRESHOLD_PAIRS.map(([p, r]) => `\`${p}\` and \`${r}\``).join(', ')} are set together, the second at most the first. Empty: the region's configuration.`,
  });

const watchlistThreshold = z.number().min(WATCHLIST_THRESHOLD_RANGE[0]).max(WATCHLIST_THRESHOLD_RANGE[1]);

/** The `watchlist` check's thresholds of this workflow: each over the region's, review ≤ fail when both are set. */
const watchlistThresholdsField = z
  .strictObject({
    review: watchlistThreshold
      .optional()
      .meta({ description: 'A listed person scoring at least this is a hit, and the check goes to `review`. Absent: the region\'s `WATCHLIST_REVIEW_THRESHOLD` (0.8 by default).' }),
    fail: watchlistThreshold
      .nullable()
      .optional()
      .meta({ description: 'A hit scoring at least this fails the check. Absent: the region\'s `WATCHLIST_FAIL_THRESHOLD` (none by default); null: no hit fails it by itself.' }),
  })
  .superRefine((t, ctx) => {
    if (t.review !== undefined && typeof t.fail === 'number' && t.review > t.fail) {
      ctx.addIssue({ code: 'custom', message: `review (${t.review}) must not be above fail (${t.fail})`, path: ['review'] });
    }
  })
  .meta({
    description: `The live \`watchlist\` check's thresholds for this workflow (docs/watchlist.md), each from ${WATCHLIST_THRESHOLD_RANGE[0]} to ${WATCHLIST_THRESHOLD_RANGE[1]}, \`review\` at most \`fail\` when both are set. Empty: the region's configuration.`,
  });

/** The document policy of live runs (docs/screening.md, "Document policy"). */
const policyFields = {
  minimum_age: z
    .number()
    .int()
    .min(0)
    .max(MINIMUM_AGE_MAX)
    .nullable()
    .meta({ description: 'The youngest accepted age in whole years, from the document\'s date of birth on the day of the run: a younger holder fails `document` with `underage`. Null: no limit.' }),
  accepted_document_types: uniqueList(z.enum(DOCUMENT_TYPES))
    .nullable()
    .meta({ description: 'The document types accepted; another fails `document` with `document_type_not_accepted`. Null: every type.' }),
  accepted_issuing_countries: uniqueList(isoCountry)
    .nullable()
    .meta({ description: 'ISO 3166-1 alpha-2 codes of the issuers accepted; another, or an issuer that is no country, fails `document` with `issuer_not_accepted`. Null: every issuer.' }),
  applicant_mismatch: z
    .enum(APPLICANT_MISMATCH_POLICIES)
    .meta({ description: 'What `applicant_mismatch` (the applicant\'s names or date of birth are not the holder\'s) does to `document`: `review` (default) or `fail`.' }),
  thresholds: thresholdsField,
};

/** Every member but `screening_rules`, which the screening engine validates. */
const fields = {
  name: displayLine(NAME_MAX),
  checks: uniqueArrayOf(CHECK_TYPES),
  screening_rules: screeningRulesField.optional(),
  metadata: plainObject,
  device_intelligence: z.boolean(),
  photo_upload: z.boolean().meta({ description: 'The hosted capture page offers choosing an existing photo.' }),
  review_threshold: z.number().min(0).max(1).meta({ description: 'A screening score at or above it sends a run to manual review.' }),
  watchlist_thresholds: watchlistThresholdsField,
  ...policyFields,
};

const SIGNING_TEXT =
  '`signing_document` is required exactly when `checks` holds `document_signing` (else 403 `esign_requirements_not_met`, `details.reason` `signing_document_required` or `document_signing_check_required`).';

/** The body of `POST /v1/workflow-templates`, validated by the screening service. */
export const templateCreateBody = z
  .strictObject({
    ...fields,
    checks: fields.checks.default([]),
    metadata: fields.metadata.default({}),
    device_intelligence: fields.device_intelligence.default(false),
    photo_upload: fields.photo_upload.default(false),
    review_threshold: fields.review_threshold.default(TEMPLATE_DEFAULTS.review_threshold),
    signing_document: signingDocumentInput.optional(),
    minimum_age: fields.minimum_age.default(null),
    accepted_document_types: fields.accepted_document_types.default(null),
    accepted_issuing_countries: fields.accepted_issuing_countries.default(null),
    applicant_mismatch: fields.applicant_mismatch.default(TEMPLATE_DEFAULTS.applicant_mismatch),
    thresholds: fields.thresholds.default({}),
    watchlist_thresholds: fields.watchlist_thresholds.default({}),
  })
  .meta({ description: SIGNING_TEXT });

/** The body of `PATCH /v1/workflow-templates/{id}`: only the fields sent; `signing_document: null` removes it. */
export const templatePatchBody = z
  .strictObject({
    name: fields.name.optional(),
    checks: fields.checks.optional(),
    screening_rules: fields.screening_rules,
    metadata: fields.metadata.optional(),
    device_intelligence: fields.device_intelligence.optional(),
    photo_upload: fields.photo_upload.optional(),
    review_threshold: fields.review_threshold.optional(),
    signing_document: signingDocumentInput.nullable().optional(),
    minimum_age: fields.minimum_age.optional(),
    accepted_document_types: fields.accepted_document_types.optional(),
    accepted_issuing_countries: fields.accepted_issuing_countries.optional(),
    applicant_mismatch: fields.applicant_mismatch.optional(),
    thresholds: fields.thresholds.optional(),
    watchlist_thresholds: fields.watchlist_thresholds.optional(),
  })
  .meta({ minProperties: 1, description: `At least one field. Only the fields sent change; the result is checked as a whole. ${SIGNING_TEXT}` });

export const signingDocument = z.object({
  title: z.string(),
  variables: z.array(z.enum(SIGNING_VARIABLES)),
});

/** A workflow template as read (`libs/domain/contracts` WorkflowTemplate). */
export const workflowTemplate = z.object({
  id: id('workflowTemplate', 'Workflow template'),
  object: z.literal('workflow_template'),
  mode,
  name: z.string(),
  version: z.number().int().min(1).meta({ description: 'Increments on every accepted change; sessions pin the version they were created with.' }),
  checks: z.array(z.enum(CHECK_TYPES)),
  screening_rules: z.array(screeningRule).meta({ description: 'As stored: `priority` and `isActive` defaults applied.' }),
  metadata: z.record(z.string(), z.unknown()),
  device_intelligence: z.boolean(),
  photo_upload: z.boolean(),
  review_threshold: z.number(),
  signing_document: signingDocument.nullable().meta({ description: 'Present exactly when `checks` holds `document_signing`.' }),
  minimum_age: z.number().int().nullable(),
  accepted_document_types: z.array(z.enum(DOCUMENT_TYPES)).nullable(),
  accepted_issuing_countries: z.array(z.string()).nullable(),
  applicant_mismatch: z.enum(APPLICANT_MISMATCH_POLICIES),
  thresholds: z.record(z.string(), z.number()).meta({ description: 'The threshold overrides as saved; empty when the region\'s configuration applies.' }),
  watchlist_thresholds: z
    .object({ review: z.number().optional(), fail: z.number().nullable().optional() })
    .meta({ description: 'The `watchlist` check\'s thresholds as saved; each absent one is the region\'s configuration.' }),
  created_at: timestamp,
  updated_at: timestamp,
});
