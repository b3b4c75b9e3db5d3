import { CHECK_TYPES, SIGNING_VARIABLES, type CheckType } from '@verity/contracts';
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
} as const;

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

/** An array of enumerated strings in which each value appears once; a repeat is reported at its index. */
function uniqueArrayOf<T extends readonly [string, ...string[]]>(values: T) {
  return z
    .array(z.enum(values))
    .superRefine((arr, ctx) => {
      const seen = new Set<string>();
      arr.forEach((v, i) => {
        if (seen.has(v)) ctx.addIssue({ code: 'custom', message: 'must not repeat a value', path: [i] });
        seen.add(v);
      });
    })
    .meta({ uniqueItems: true });
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

// --- screening rules (validated by libs/screening-engine, which reports every issue with its path; described here)

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
 * applied). Cross-member rules stay in libs/screening-engine and are described in the text.
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

/** Every member but `screening_rules`, which the screening engine validates. */
const fields = {
  name: displayLine(NAME_MAX),
  checks: uniqueArrayOf(CHECK_TYPES),
  screening_rules: screeningRulesField.optional(),
  metadata: plainObject,
  device_intelligence: z.boolean(),
  photo_upload: z.boolean().meta({ description: 'The hosted capture page offers choosing an existing photo.' }),
  review_threshold: z.number().min(0).max(1).meta({ description: 'A screening score at or above it sends a run to manual review.' }),
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
  })
  .meta({ minProperties: 1, description: `At least one field. Only the fields sent change; the result is checked as a whole. ${SIGNING_TEXT}` });

export const signingDocument = z.object({
  title: z.string(),
  variables: z.array(z.enum(SIGNING_VARIABLES)),
});

/** A workflow template as read (`libs/contracts` WorkflowTemplate). */
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
  created_at: timestamp,
  updated_at: timestamp,
});
