import { EXPECTED_OUTCOMES as OUTCOMES, NOTE_MAX, REASON_MAX, sessionCreateBody, sessionDecisionBody, sessionNoteBody, sessionReasonBody } from '@verity/api-schema';
import type { ExpectedOutcome } from '@verity/contracts';
import type { Mode } from '@verity/keys';
import { DomainError, type Issue } from '@verity/errors';
import { validateSessionMetadata } from '@verity/metadata';
import { isStorableText } from '@verity/platform';

/*
 * Checked by hand, for the exact order, messages and paths docs/sessions.md states; the shapes (field names, values,
 * limits) come from the schemas of libs/domain/api-schema, which the OpenAPI document describes.
 */
export const EXPECTED_OUTCOMES: readonly ExpectedOutcome[] = OUTCOMES;

const CREATE_FIELDS = new Set(Object.keys(sessionCreateBody.shape));
const NOTE_FIELDS = new Set(Object.keys(sessionNoteBody.shape));
const REASON_FIELDS = new Set(Object.keys(sessionReasonBody.shape));
const DECISION_FIELDS = new Set(Object.keys(sessionDecisionBody.shape));

export interface CreateInput {
  /** Still unverified: a malformed or unknown id is answered 404 by the service, after the body checks. */
  applicant_id: unknown;
  workflow_template_id: unknown;
  metadata: Record<string, unknown>;
  /** Test mode: the value sent or `pass`; live mode: always null (the field is dropped silently). */
  expected_outcome: ExpectedOutcome | null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function refuseUnknownFields(body: Record<string, unknown>, allowed: Set<string>): void {
  const issues: Issue[] = Object.keys(body)
    .filter((k) => !allowed.has(k))
    .map((k) => ({ code: 'unrecognized_keys', message: `unknown field: ${k.slice(0, 100)}`, path: [k.slice(0, 100)] }));
  if (issues.length > 0) throw DomainError.validation(issues);
}

function bodyObject(body: unknown, optional: boolean): Record<string, unknown> {
  if ((body === undefined || body === null) && optional) return {};
  if (!isObject(body)) throw DomainError.validation([{ code: 'invalid_type', message: 'the body must be a JSON object', path: [] }]);
  return body;
}

/**
 * The body of POST /v1/sessions, in the order docs/sessions.md states: body shape (unknown fields refused) →
 * metadata (every issue reported) → `expected_outcome` value. The ids are checked by the service next.
 */
export function validateCreateBody(body: unknown, mode: Mode): CreateInput {
  const b = bodyObject(body, false);
  refuseUnknownFields(b, CREATE_FIELDS);
  const metadata = validateSessionMetadata(b['metadata']);
  if (!metadata.ok) throw DomainError.validation(metadata.issues);
  let expected: ExpectedOutcome | null = null;
  if (mode === 'test') {
    const raw = b['expected_outcome'];
    if (raw === undefined) expected = 'pass';
    else if (typeof raw === 'string' && (EXPECTED_OUTCOMES as readonly string[]).includes(raw)) expected = raw as ExpectedOutcome;
    else {
      throw DomainError.validation([
        { code: 'invalid_value', message: `expected_outcome must be one of ${EXPECTED_OUTCOMES.join(', ')}`, path: ['expected_outcome'] },
      ]);
    }
  }
  return { applicant_id: b['applicant_id'], workflow_template_id: b['workflow_template_id'], metadata: metadata.value, expected_outcome: expected };
}

function text(b: Record<string, unknown>, key: string, max: number, required: boolean, issues: Issue[]): string | undefined {
  const v = b[key];
  if (v === undefined) {
    if (required) issues.push({ code: 'invalid_type', message: `${key} is required`, path: [key] });
    return undefined;
  }
  if (typeof v !== 'string') issues.push({ code: 'invalid_type', message: `${key} must be a string`, path: [key] });
  else if (v.trim() === '') issues.push({ code: 'too_small', message: `${key} must not be empty or blank`, path: [key] });
  else if ([...v].length > max) issues.push({ code: 'too_big', message: `${key} must be at most ${max} characters`, path: [key] });
  else if (!isStorableText(v)) {
    issues.push({ code: 'invalid_format', message: `${key} must be text without NUL characters or unpaired surrogates`, path: [key] });
  }
  else return v;
  return undefined;
}

function finish<T>(issues: Issue[], value: T): T {
  if (issues.length > 0) throw DomainError.validation(issues);
  return value;
}

/** `{ "note" }` of POST /v1/sessions/{id}/notes: 1 to 2000 characters, not blank. */
export function validateNoteBody(body: unknown): { note: string } {
  const b = bodyObject(body, false);
  refuseUnknownFields(b, NOTE_FIELDS);
  const issues: Issue[] = [];
  const note = text(b, 'note', NOTE_MAX, true, issues);
  return finish(issues, { note: note! });
}

/** `{ "reason" }` of cancel and review: optional (no body at all is accepted), 1 to 500 characters when sent. */
export function validateReasonBody(body: unknown): { reason?: string } {
  const b = bodyObject(body, true);
  refuseUnknownFields(b, REASON_FIELDS);
  const issues: Issue[] = [];
  const reason = text(b, 'reason', REASON_MAX, false, issues);
  return finish(issues, reason === undefined ? {} : { reason });
}

/** `{ "outcome": "approved" | "declined", "reason" }` of POST /v1/sessions/{id}/decision. */
export function validateDecisionBody(body: unknown): { outcome: 'approved' | 'declined'; reason?: string } {
  const b = bodyObject(body, false);
  refuseUnknownFields(b, DECISION_FIELDS);
  const issues: Issue[] = [];
  const outcome = b['outcome'];
  if (outcome !== 'approved' && outcome !== 'declined') {
    issues.push({ code: 'invalid_value', message: 'outcome must be approved or declined', path: ['outcome'] });
  }
  const reason = text(b, 'reason', REASON_MAX, false, issues);
  return finish(issues, { outcome: outcome as 'approved' | 'declined', ...(reason === undefined ? {} : { reason }) });
}

const HIT_DECISION_FIELDS = new Set(['outcome', 'reason', 'reviewer_email']);
/** An email's longest form (RFC 5321 path limit). */
const EMAIL_MAX = 320;

/**
 * `{ "outcome": "cleared" | "confirmed", "reason", "reviewer_email"? }` of `sessions.watchlist.decide.v1` (the console):
 * the reason is required, 1 to 500 characters, not blank.
 */
export function validateHitDecisionBody(body: unknown): { outcome: 'cleared' | 'confirmed'; reason: string; reviewer_email: string | null } {
  const b = bodyObject(body, false);
  refuseUnknownFields(b, HIT_DECISION_FIELDS);
  const issues: Issue[] = [];
  const outcome = b['outcome'];
  if (outcome !== 'cleared' && outcome !== 'confirmed') {
    issues.push({ code: 'invalid_value', message: 'outcome must be cleared or confirmed', path: ['outcome'] });
  }
  const reason = text(b, 'reason', REASON_MAX, true, issues);
  const email = text(b, 'reviewer_email', EMAIL_MAX, false, issues);
  return finish(issues, { outcome: outcome as 'cleared' | 'confirmed', reason: reason!, reviewer_email: email ?? null });
}
