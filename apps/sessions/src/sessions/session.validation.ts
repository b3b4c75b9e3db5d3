import { actionText, EXPECTED_OUTCOMES as OUTCOMES, REASON_MAX, sessionCreateBody, sessionDecisionBody, sessionNoteBody, sessionReasonBody } from '@verity/api-schema';
import type { ExpectedOutcome } from '@verity/contracts';
import type { Mode } from '@verity/keys';
import { DomainError, parseBody } from '@verity/errors';
import { validateSessionMetadata } from '@verity/metadata';
import { z } from 'zod';

/*
 * The bodies of the session routes, validated with parseBody against the schemas of libs/domain/api-schema (which the
 * OpenAPI document describes). A create is checked in the order docs/sessions.md states.
 */
export const EXPECTED_OUTCOMES: readonly ExpectedOutcome[] = OUTCOMES;

/** The fields of a create, each checked in its turn below: this refuses only a body that is not an object, and unknown fields. */
const createFields = z.strictObject(
  Object.fromEntries(Object.keys(sessionCreateBody.shape).map((k) => [k, z.unknown().optional()])) as Record<keyof typeof sessionCreateBody.shape, z.ZodOptional<z.ZodUnknown>>,
);
const expectedOutcome = z.strictObject({ expected_outcome: sessionCreateBody.shape.expected_outcome.unwrap().default('pass') });

export interface CreateInput {
  /** Still unverified: a malformed or unknown id is answered 404 by the service, after the body checks. */
  applicant_id: unknown;
  workflow_template_id: unknown;
  metadata: Record<string, unknown>;
  /** Test mode: the value sent or `pass`; live mode: always null (the field is dropped silently). */
  expected_outcome: ExpectedOutcome | null;
}

/**
 * The body of POST /v1/sessions, in the order docs/sessions.md states: body shape (unknown fields refused) →
 * metadata (every issue reported, with the metadata validator's own messages) → `expected_outcome` value. The ids
 * are checked by the service next.
 */
export function validateCreateBody(body: unknown, mode: Mode): CreateInput {
  const b = parseBody(createFields, body);
  const metadata = validateSessionMetadata(b.metadata);
  if (!metadata.ok) throw DomainError.validation(metadata.issues);
  const expected = mode === 'test' ? parseBody(expectedOutcome, { expected_outcome: b.expected_outcome }).expected_outcome : null;
  return { applicant_id: b.applicant_id, workflow_template_id: b.workflow_template_id, metadata: metadata.value, expected_outcome: expected };
}

/** `{ "note" }` of POST /v1/sessions/{id}/notes: 1 to 2000 characters, not blank. */
export function validateNoteBody(body: unknown): { note: string } {
  return parseBody(sessionNoteBody, body);
}

/** `{ "reason" }` of cancel and review: optional (no body at all is accepted), 1 to 500 characters when sent. */
export function validateReasonBody(body: unknown): { reason?: string } {
  return parseBody(sessionReasonBody, body ?? {});
}

/** `{ "outcome": "approved" | "declined", "reason" }` of POST /v1/sessions/{id}/decision. */
export function validateDecisionBody(body: unknown): { outcome: 'approved' | 'declined'; reason?: string } {
  return parseBody(sessionDecisionBody, body);
}

/** An email's longest form (RFC 5321 path limit). */
const EMAIL_MAX = 320;
/** The body of `sessions.watchlist.decide.v1` (the console): the reason is required, 1 to 500 characters, not blank. */
const hitDecisionBody = z.strictObject({
  outcome: z.enum(['cleared', 'confirmed']),
  reason: actionText(REASON_MAX),
  reviewer_email: actionText(EMAIL_MAX).optional(),
});

/** `{ "outcome": "cleared" | "confirmed", "reason", "reviewer_email"? }` of `sessions.watchlist.decide.v1`. */
export function validateHitDecisionBody(body: unknown): { outcome: 'cleared' | 'confirmed'; reason: string; reviewer_email: string | null } {
  const d = parseBody(hitDecisionBody, body);
  return { outcome: d.outcome, reason: d.reason, reviewer_email: d.reviewer_email ?? null };
}
