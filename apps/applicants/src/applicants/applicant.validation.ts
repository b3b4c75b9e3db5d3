import countries from 'i18n-iso-countries';
import { DomainError, type Issue } from '@verity/errors';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '@verity/platform';
import { z } from 'zod';

/** Fields of the retired name model, and what replaced each. */
const LEGACY_FIELDS: Record<string, string> = {
  first_name: 'first_name is no longer accepted: send the given names as given_names (an ordered array)',
  middle_name: 'middle_name is no longer accepted: send it as one more entry of given_names',
  last_name: 'last_name is no longer accepted: send the whole surname as family_name',
  legal_name: 'legal_name is no longer accepted: send family_name, given_names and name_suffix',
  name: 'a whole-name field is not accepted: send family_name, given_names and name_suffix',
  full_name: 'a whole-name field is not accepted: send family_name, given_names and name_suffix',
};

/** Text Postgres can store (the one predicate of libs/platform; the NATS client refuses such requests first). */
const NO_NUL = { message: UNSTORABLE_TEXT_MESSAGE };

const text = (max: number) => z.string().max(max).refine(isStorableText, NO_NUL);

const nonBlank = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => s.trim().length > 0, { message: 'must not be blank' })
    .refine(isStorableText, NO_NUL);

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date as YYYY-MM-DD' })
  .refine(
    (s) => {
      // there is no year 0000 (1 BC is followed by AD 1), and Postgres refuses it
      const d = new Date(`${s}T00:00:00Z`);
      return s >= '0001-01-01' && !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
    },
    { message: 'must be a real calendar date' },
  )
  .refine((s) => s <= new Date().toISOString().slice(0, 10), { message: 'must not be in the future' });

const address = z.strictObject({
  line1: nonBlank(200).optional(),
  line2: text(200).optional(),
  city: nonBlank(100).optional(),
  region: text(100).optional(),
  postal_code: text(20).optional(),
  country: z
    .string()
    .refine((c) => /^[A-Z]{2}$/.test(c) && countries.isValid(c), { message: 'must be an ISO 3166-1 alpha-2 code, e.g. DE' })
    .optional(),
});

export const applicantInput = z.strictObject({
  family_name: nonBlank(200),
  given_names: z.array(nonBlank(100)).max(20).default([]),
  name_suffix: nonBlank(50).optional(),
  email: z.email({ message: 'must be an email address' }).max(254).optional(),
  phone: z.string().regex(/^\+[1-9][0-9]{6,14}$/, { message: 'must be in E.164 format, e.g. +14155550123' }).optional(),
  date_of_birth: isoDate.optional(),
  address: address.optional(),
  external_id: nonBlank(200).optional(),
});

export type ApplicantInput = z.infer<typeof applicantInput>;

/** The request body of POST /v1/applicants: legacy and whole-name fields refused naming their replacements; unknown fields refused. */
export function validateApplicantInput(body: unknown): ApplicantInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw DomainError.validation([{ code: 'invalid_type', message: 'the body must be a JSON object', path: [] }]);
  }
  const issues: Issue[] = [];
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    const legacy = LEGACY_FIELDS[k];
    if (legacy) issues.push({ code: 'custom', message: legacy, path: [k] });
    else rest[k] = v;
  }
  const parsed = applicantInput.safeParse(rest);
  if (!parsed.success) {
    for (const i of parsed.error.issues) {
      if (i.code === 'unrecognized_keys') {
        for (const key of i.keys) {
          issues.push({ code: 'unrecognized_keys', message: `unknown field: ${key.slice(0, 100)}`, path: [...pathOf(i.path), key.slice(0, 100)] });
        }
      } else {
        const path = pathOf(i.path);
        issues.push({ code: i.code, message: `${path.join('.') || 'body'}: ${i.message}`, path });
      }
    }
  }
  if (issues.length > 0 || !parsed.success) throw DomainError.validation(issues);
  return parsed.data;
}

function pathOf(p: PropertyKey[]): (string | number)[] {
  return p.map((s) => (typeof s === 'number' ? s : String(s)));
}
