import type { Applicant, CheckOutcome, CheckType, EvaluationContextWire } from '@verity/contracts';

/** Whose names and date of birth the rules read as `applicant.*`: a live run's document holder, when one was read. */
export interface Holder {
  family_name: string;
  given_names: readonly string[];
  date_of_birth?: string | null;
}

/** What a run adds to the applicant and the checks' outcomes; each part absent when the run has none. */
export interface ContextParts {
  holder?: Holder | null;
  findings?: EvaluationContextWire['findings'];
  document?: EvaluationContextWire['document'];
  fraud?: EvaluationContextWire['fraud'];
  device?: EvaluationContextWire['device'];
  watchlist?: EvaluationContextWire['watchlist'];
}

/**
 * What screening reads of a run (docs/screening.md), for test and live runs alike: the names and date of birth of
 * the document's holder when there is one, else the applicant's own (they arrived as components, so the verbatim
 * legal name is empty); the applicant's contact data and country; each check's outcome; and what the run found
 * beside them. A view for the rules only: nothing of it is stored over the applicant.
 */
export function screeningContext(
  a: Applicant,
  checks: ReadonlyArray<{ type: CheckType; outcome: CheckOutcome | undefined }>,
  parts: ContextParts = {},
): EvaluationContextWire {
  const h = parts.holder ?? null;
  const applicant: EvaluationContextWire['applicant'] = {
    legalName: '',
    familyName: h?.family_name ?? a.family_name ?? '',
    givenNames: [...(h?.given_names ?? a.given_names ?? [])],
  };
  const dob = h?.date_of_birth ?? a.date_of_birth;
  if (dob) applicant.dateOfBirth = dob;
  if (a.email) applicant.email = a.email;
  if (a.address?.country) applicant.address = { country: a.address.country };
  if (a.phone) applicant.phone = a.phone;
  const context: EvaluationContextWire = {
    applicant,
    findings: parts.findings ?? [],
    checks: Object.fromEntries(checks.map((c) => [c.type, c.outcome])),
    now: new Date().toISOString(),
  };
  if (parts.document) context.document = parts.document;
  if (parts.fraud) context.fraud = parts.fraud;
  if (parts.device) context.device = parts.device;
  if (parts.watchlist) context.watchlist = parts.watchlist;
  return context;
}
