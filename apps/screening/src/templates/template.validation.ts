import {
  SCREENING_RULES_MAX_BYTES,
  TEMPLATE_METADATA_MAX_BYTES,
  templateCreateBody as createSchema,
  templatePatchBody as patchSchema,
} from '@verity/api-schema';
import type { CheckType, DocumentPolicyFields, SigningDocument, WatchlistThresholds } from '@verity/contracts';
import { checkBody, DomainError, type Issue } from '@verity/errors';
import { UNRESOLVABLE_FIELD_MESSAGE, validateScreeningRules, type ScreeningRule } from '@verity/screening-engine';

// The body schemas, defaults and limits live in the API's schema library (libs/domain/api-schema), which the OpenAPI
// document is generated from; the rules that span fields or need the screening engine stay here.

/** Everything a version of a workflow template holds (docs/screening.md), after defaults. */
export interface TemplateFields extends DocumentPolicyFields {
  name: string;
  checks: CheckType[];
  /** Normalized by the screening engine: defaults applied (`priority` 100, `isActive` true). */
  screening_rules: ScreeningRule[];
  metadata: Record<string, unknown>;
  device_intelligence: boolean;
  photo_upload: boolean;
  review_threshold: number;
  signing_document: SigningDocument | null;
  /** The `watchlist` check's thresholds over the region's (docs/watchlist.md, "Per workflow"). */
  watchlist_thresholds: WatchlistThresholds;
}

/** A PATCH: only the fields sent; `signing_document: null` removes the document. */
export type TemplatePatch = Partial<TemplateFields>;

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

/** POST /v1/workflow-templates: every refusal at once (422), defaults applied, rules normalized. */
export function validateCreateBody(body: unknown): TemplateFields {
  const obj = requireObject(body);
  const tooBig = sizeIssues(obj);
  if (tooBig.length > 0) throw DomainError.validation(tooBig);
  const parsed = checkBody(createSchema, obj);
  const issues = [...parsed.issues];
  const rules = checkRules(Object.hasOwn(obj, 'screening_rules') ? obj.screening_rules : [], issues);
  if (issues.length > 0 || !parsed.ok || rules === undefined) throw DomainError.validation(issues);
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
    minimum_age: d.minimum_age,
    accepted_document_types: d.accepted_document_types,
    accepted_issuing_countries: d.accepted_issuing_countries,
    applicant_mismatch: d.applicant_mismatch,
    thresholds: d.thresholds as Record<string, number>,
    watchlist_thresholds: d.watchlist_thresholds,
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
  const parsed = checkBody(patchSchema, obj);
  const issues = [...parsed.issues];
  const sendsRules = Object.hasOwn(obj, 'screening_rules');
  const rules = sendsRules ? checkRules(obj.screening_rules, issues) : undefined;
  if (issues.length > 0 || !parsed.ok || (sendsRules && rules === undefined)) throw DomainError.validation(issues);
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
  if (d.minimum_age !== undefined) patch.minimum_age = d.minimum_age;
  if (d.accepted_document_types !== undefined) patch.accepted_document_types = d.accepted_document_types;
  if (d.accepted_issuing_countries !== undefined) patch.accepted_issuing_countries = d.accepted_issuing_countries;
  if (d.applicant_mismatch !== undefined) patch.applicant_mismatch = d.applicant_mismatch;
  if (d.thresholds !== undefined) patch.thresholds = d.thresholds as Record<string, number>;
  if (d.watchlist_thresholds !== undefined) patch.watchlist_thresholds = d.watchlist_thresholds;
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
 * concerns of the workflow's document, raised at template save as 403 `esign_requirements_not_met` (docs/screening.md,
 * "Refusals": the reasons of this code that concern the workflow or its document are raised at template save).
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

