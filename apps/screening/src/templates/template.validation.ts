import { CHECK_TYPES, SIGNING_VARIABLES, type CheckType, type SigningDocument } from '@verity/contracts';
import { DomainError, type Issue } from '@verity/errors';
import { isStorableText } from '@verity/platform';
import { UNRESOLVABLE_FIELD_MESSAGE, validateScreeningRules, type ScreeningRule } from '@verity/screening-engine';
import { z } from 'zod';

/** Everything a version of a workflow template holds (contract §8), after defaults. */
export interface TemplateFields {
  name: string;
  checks: CheckType[];
  /** Normalized by the screening engine: defaults applied (`priority` 100, `isActive` true). */
  screening_rules: ScreeningRule[];
  metadata: Record<string, unknown>;
  device_intelligence: boolean;
  photo_upload: boolean;
  review_threshold: number;
  signing_document: SigningDocument | null;
}

/** A PATCH: only the fields sent; `signing_document: null` removes the document. */
export type TemplatePatch = Partial<TemplateFields>;

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

// C0 and C1 control characters: a name or title is one display line (and Postgres text holds no NUL).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The most `metadata` and `screening_rules` may weigh, as JSON in UTF-8: a template version travels whole in
 * NATS messages (1 MiB at most) to every read and every session create that pins it.
 */
export const TEMPLATE_METADATA_MAX_BYTES = 16 * 1024;
export const SCREENING_RULES_MAX_BYTES = 128 * 1024;

/** A `too_big` issue for each of the two members sent over its limit. */
function sizeIssues(obj: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  for (const [key, max] of [['metadata', TEMPLATE_METADATA_MAX_BYTES], ['screening_rules', SCREENING_RULES_MAX_BYTES]] as const) {
    if (obj[key] === undefined) continue;
    const bytes = Buffer.byteLength(JSON.stringify(obj[key]));
    if (bytes > max) issues.push({ code: 'too_big', message: `${key} must be at most ${max} bytes as JSON (UTF-8); it is ${bytes}`, path: [key] });
  }
  return issues;
}

const displayLine = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => s === '' || s.trim().length > 0, { message: 'must not be blank' })
    .refine((s) => !CONTROL.test(s) && isStorableText(s), { message: 'must be one line of text without control characters' });

/** An array of enumerated strings in which each value appears once; a repeat is reported at its index. */
function uniqueArrayOf<T extends readonly [string, ...string[]]>(values: T) {
  return z.array(z.enum(values)).superRefine((arr, ctx) => {
    const seen = new Set<string>();
    arr.forEach((v, i) => {
      if (seen.has(v)) ctx.addIssue({ code: 'custom', message: 'must not repeat a value', path: [i] });
      seen.add(v);
    });
  });
}

const plainObject = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
  message: 'must be a JSON object',
});

const signingDocument = z.strictObject({
  title: displayLine(TITLE_MAX),
  variables: uniqueArrayOf(SIGNING_VARIABLES).default([]),
});

/** Every member but `screening_rules`, which the screening engine validates. */
const fields = {
  name: displayLine(NAME_MAX),
  checks: uniqueArrayOf(CHECK_TYPES),
  screening_rules: z.unknown().optional(),
  metadata: plainObject,
  device_intelligence: z.boolean(),
  photo_upload: z.boolean(),
  review_threshold: z.number().min(0).max(1),
};

const createSchema = z.strictObject({
  ...fields,
  checks: fields.checks.default([]),
  metadata: fields.metadata.default({}),
  device_intelligence: fields.device_intelligence.default(false),
  photo_upload: fields.photo_upload.default(false),
  review_threshold: fields.review_threshold.default(TEMPLATE_DEFAULTS.review_threshold),
  signing_document: signingDocument.optional(),
});

const patchSchema = z.strictObject({
  name: fields.name.optional(),
  checks: fields.checks.optional(),
  screening_rules: fields.screening_rules,
  metadata: fields.metadata.optional(),
  device_intelligence: fields.device_intelligence.optional(),
  photo_upload: fields.photo_upload.optional(),
  review_threshold: fields.review_threshold.optional(),
  signing_document: signingDocument.nullable().optional(),
});

/** POST /v1/workflow-templates: every refusal at once (422), defaults applied, rules normalized. */
export function validateCreateBody(body: unknown): TemplateFields {
  const obj = requireObject(body);
  const tooBig = sizeIssues(obj);
  if (tooBig.length > 0) throw DomainError.validation(tooBig);
  const parsed = createSchema.safeParse(obj);
  const issues = parsed.success ? [] : zodIssues(parsed.error.issues);
  const rules = checkRules(Object.hasOwn(obj, 'screening_rules') ? obj.screening_rules : [], issues);
  if (issues.length > 0 || !parsed.success || rules === undefined) throw DomainError.validation(issues);
  const d = parsed.data;
  const out: TemplateFields = {
    name: d.name,
    checks: d.checks,
    screening_rules: rules,
    metadata: d.metadata,
    device_intelligence: d.device_intelligence,
    photo_upload: d.photo_upload,
    review_threshold: d.review_threshold,
    signing_document: d.signing_document ?? null,
  };
  checkSigningDocument(out);
  return out;
}

/**
 * PATCH /v1/workflow-templates/{id}: only the fields sent. `screening_rules` sent replaces the whole set
 * (`[]` clears it); omitted, the rules stay. An empty body is refused: it would change nothing.
 */
export function validatePatchBody(body: unknown): TemplatePatch {
  const obj = requireObject(body);
  if (Object.keys(obj).length === 0) {
    throw DomainError.validation([{ code: 'too_small', message: 'the body must name at least one field to change', path: [] }]);
  }
  const tooBig = sizeIssues(obj);
  if (tooBig.length > 0) throw DomainError.validation(tooBig);
  const parsed = patchSchema.safeParse(obj);
  const issues = parsed.success ? [] : zodIssues(parsed.error.issues);
  const sendsRules = Object.hasOwn(obj, 'screening_rules');
  const rules = sendsRules ? checkRules(obj.screening_rules, issues) : undefined;
  if (issues.length > 0 || !parsed.success || (sendsRules && rules === undefined)) throw DomainError.validation(issues);
  const patch: TemplatePatch = {};
  const d = parsed.data;
  if (d.name !== undefined) patch.name = d.name;
  if (d.checks !== undefined) patch.checks = d.checks;
  if (rules !== undefined) patch.screening_rules = rules;
  if (d.metadata !== undefined) patch.metadata = d.metadata;
  if (d.device_intelligence !== undefined) patch.device_intelligence = d.device_intelligence;
  if (d.photo_upload !== undefined) patch.photo_upload = d.photo_upload;
  if (d.review_threshold !== undefined) patch.review_threshold = d.review_threshold;
  if (d.signing_document !== undefined) patch.signing_document = d.signing_document;
  return patch;
}

/** The next version: the current one with the patched fields replaced (never merged), then checked as a whole. */
export function applyPatch(current: TemplateFields, patch: TemplatePatch): TemplateFields {
  const next: TemplateFields = { ...current };
  for (const key of Object.keys(patch) as (keyof TemplateFields)[]) {
    (next as unknown as Record<string, unknown>)[key] = patch[key];
  }
  checkSigningDocument(next);
  return next;
}

/**
 * A `document_signing` check needs a signing document and a signing document needs that check. Both are
 * concerns of the workflow's document, raised at template save as 403 `esign_requirements_not_met` (api-spec
 * Errors: "Other reasons of this code concern the workflow or document and are raised at template save").
 */
export function checkSigningDocument(t: Pick<TemplateFields, 'checks' | 'signing_document'>): void {
  const signs = t.checks.includes('document_signing');
  if (signs && t.signing_document === null) {
    throw new DomainError('esign_requirements_not_met', {
      message:
        'The workflow has a document_signing check but no signing_document. Send signing_document { title, variables }, or remove document_signing from checks.',
      param: 'signing_document',
      details: { reason: 'signing_document_required' },
    });
  }
  if (!signs && t.signing_document !== null) {
    throw new DomainError('esign_requirements_not_met', {
      message:
        'The workflow has a signing_document but no document_signing check. Add document_signing to checks, or remove the document (signing_document: null on PATCH).',
      param: 'checks',
      details: { reason: 'document_signing_check_required' },
    });
  }
}

function requireObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw DomainError.validation([{ code: 'invalid_type', message: 'the body must be a JSON object', path: [] }]);
  }
  return body as Record<string, unknown>;
}

/**
 * The screening engine's verdict on `screening_rules`: its issues join the others; an unresolvable field
 * (only when nothing else is wrong) is its own refusal with `details` exactly `{ field }`.
 */
function checkRules(input: unknown, issues: Issue[]): ScreeningRule[] | undefined {
  const v = validateScreeningRules(input);
  if (v.ok) return v.rules;
  if (v.kind === 'issues') {
    issues.push(...v.issues);
    return undefined;
  }
  if (issues.length > 0) return undefined;
  throw new DomainError('validation_error', {
    message: UNRESOLVABLE_FIELD_MESSAGE,
    param: 'screening_rules',
    details: { field: v.field },
  });
}

function zodIssues(raw: z.ZodError['issues']): Issue[] {
  const issues: Issue[] = [];
  for (const i of raw) {
    if (i.code === 'unrecognized_keys') {
      for (const key of i.keys) {
        const k = key.slice(0, 100);
        issues.push({ code: 'unrecognized_keys', message: `unknown field: ${k}`, path: [...pathOf(i.path), k] });
      }
    } else {
      const path = pathOf(i.path);
      issues.push({ code: i.code, message: `${path.join('.') || 'body'}: ${i.message}`, path });
    }
  }
  return issues;
}

function pathOf(p: PropertyKey[]): (string | number)[] {
  return p.map((s) => (typeof s === 'number' ? s : String(s)));
}
