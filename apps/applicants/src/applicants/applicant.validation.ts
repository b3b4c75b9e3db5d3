import { applicantInput, type ApplicantInput, type LEGACY_NAME_FIELDS } from '@verity/api-schema';
import { DomainError, parseBody, type Issue } from '@verity/errors';

/** Fields of the retired name model, and what replaced each (the schema library names them for the document). */
const LEGACY_FIELDS: Record<(typeof LEGACY_NAME_FIELDS)[number], string> = {
  first_name: 'first_name is no longer accepted: send the given names as given_names (an ordered array)',
  middle_name: 'middle_name is no longer accepted: send it as one more entry of given_names',
  last_name: 'last_name is no longer accepted: send the whole surname as family_name',
  legal_name: 'legal_name is no longer accepted: send family_name, given_names and name_suffix',
  name: 'a whole-name field is not accepted: send family_name, given_names and name_suffix',
  full_name: 'a whole-name field is not accepted: send family_name, given_names and name_suffix',
};

/** The request body of POST /v1/applicants: legacy and whole-name fields refused naming their replacements; unknown fields refused. */
export function validateApplicantInput(body: unknown): ApplicantInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw DomainError.validation([{ code: 'invalid_type', message: 'the body must be a JSON object', path: [] }]);
  }
  const issues: Issue[] = [];
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    const legacy = (LEGACY_FIELDS as Record<string, string | undefined>)[k];
    if (legacy) issues.push({ code: 'custom', message: legacy, path: [k] });
    else rest[k] = v;
  }
  return parseBody(applicantInput, rest, issues);
}
