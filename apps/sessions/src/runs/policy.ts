/**
 * The document policy of a live run (docs/screening.md, "Document policy"): what the workflow template asks of the
 * document (minimum age, accepted types and issuers) and whether the person the integrator named is the person on
 * it. Pure: judged from the reader's reply, the applicant and the pinned template version, on the day of the run.
 */
import type { Applicant, CheckVerdict, IdvDocument, IdvHolder, TemplateVersion } from '@verity/contracts';
import { ageOn, compareDates, compareNames } from '@verity/names';

/** Reasons the policy adds to the `document` check (each explained in docs/reading.md, "Reasons"). */
export const POLICY_REASONS = ['document_type_not_accepted', 'issuer_not_accepted', 'underage', 'applicant_mismatch'] as const;
export type PolicyReason = (typeof POLICY_REASONS)[number];

export type DocumentPolicy = Pick<TemplateVersion, 'minimum_age' | 'accepted_document_types' | 'accepted_issuing_countries' | 'applicant_mismatch'>;

/** The policy of a template version written before policies existed: no limit, a mismatch to review. */
export const NO_POLICY: DocumentPolicy = { minimum_age: null, accepted_document_types: null, accepted_issuing_countries: null, applicant_mismatch: 'review' };

/** How the applicant's data compares with the holder's, part by part; null for a part the applicant does not have. */
export interface ApplicantComparison {
  family_name: boolean;
  given_names: boolean | null;
  date_of_birth: boolean | null;
  /** The same person: the names agree (word order across the parts included) and so does the date of birth where there is one. */
  match: boolean;
}

/** The applicant against the document's holder; null when the applicant holds no name to compare (erased). */
export function compareApplicant(a: Pick<Applicant, 'family_name' | 'given_names' | 'date_of_birth'>, holder: IdvHolder): ApplicantComparison | null {
  if (a.family_name === null || a.family_name === undefined) return null;
  const names = compareNames({ familyName: a.family_name, givenNames: a.given_names ?? [] }, { familyName: holder.family_name, givenNames: holder.given_names });
  const dob = a.date_of_birth ? compareDates(a.date_of_birth, holder.date_of_birth) : null;
  return { family_name: names.family, given_names: names.given, date_of_birth: dob, match: names.match && dob !== false };
}

const RANK = { pass: 0, review: 1, fail: 2 } as const;
type Outcome = CheckVerdict['outcome'];

function worst(a: Outcome, b: Outcome): Outcome {
  return RANK[b] > RANK[a] ? b : a;
}

/**
 * The `document` check once the policy is applied: the reader's verdict, with `document_type_not_accepted`,
 * `issuer_not_accepted` and `underage` failing it, and `applicant_mismatch` sending it to review or failing it as
 * the template says. Reasons stay most serious first. A document that was not read is left to the reader's verdict:
 * there is nothing to judge.
 */
export function judgeDocument(
  verdict: CheckVerdict,
  read: { document: IdvDocument | null; holder: IdvHolder | null },
  comparison: ApplicantComparison | null,
  policy: DocumentPolicy,
  day: string,
): CheckVerdict {
  const { document, holder } = read;
  if (!document || !holder) return verdict;
  const failing: PolicyReason[] = [];
  const reviewing: PolicyReason[] = [];
  if (policy.accepted_document_types && !policy.accepted_document_types.includes(document.type)) failing.push('document_type_not_accepted');
  if (policy.accepted_issuing_countries && (document.issuing_country === null || !policy.accepted_issuing_countries.includes(document.issuing_country))) {
    failing.push('issuer_not_accepted');
  }
  if (policy.minimum_age !== null) {
    const age = ageOn(holder.date_of_birth, day);
    if (age !== null && age < policy.minimum_age) failing.push('underage');
  }
  if (comparison && !comparison.match) (policy.applicant_mismatch === 'fail' ? failing : reviewing).push('applicant_mismatch');
  if (failing.length === 0 && reviewing.length === 0) return verdict;
  let outcome = verdict.outcome;
  if (failing.length > 0) outcome = 'fail';
  if (reviewing.length > 0) outcome = worst(outcome, 'review');
  const reasons = verdict.outcome === 'fail' ? [...verdict.reasons, ...failing, ...reviewing] : [...failing, ...verdict.reasons, ...reviewing];
  return { outcome, reasons, score: verdict.score };
}

/** The policy fields of a template version, defaulted for versions written before they existed. */
export function policyOf(t: Partial<DocumentPolicy>): DocumentPolicy {
  return {
    minimum_age: t.minimum_age ?? NO_POLICY.minimum_age,
    accepted_document_types: t.accepted_document_types ?? NO_POLICY.accepted_document_types,
    accepted_issuing_countries: t.accepted_issuing_countries ?? NO_POLICY.accepted_issuing_countries,
    applicant_mismatch: t.applicant_mismatch ?? NO_POLICY.applicant_mismatch,
  };
}
