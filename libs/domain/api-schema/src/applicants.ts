import countries from 'i18n-iso-countries';
import { isCalendarDay } from '@verity/metadata';
import { z } from 'zod';
import { id, mode, timestamp } from './common.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from './text.js';

/** Text Postgres can store (the one predicate, ./text.ts). */
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
  // there is no year 0000 (1 BC is followed by AD 1), and Postgres refuses it
  .refine(isCalendarDay, { message: 'must be a real calendar date' })
  .refine((s) => s <= new Date().toISOString().slice(0, 10), { message: 'must not be in the future' });

const addressInput = z.strictObject({
  line1: nonBlank(200).optional(),
  line2: text(200).optional(),
  city: nonBlank(100).optional(),
  region: text(100).optional(),
  postal_code: text(20).optional(),
  country: z
    .string()
    .refine((c) => /^[A-Z]{2}$/.test(c) && countries.isValid(c), { message: 'must be an ISO 3166-1 alpha-2 code, e.g. DE' })
    .meta({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code, upper case.' })
    .optional(),
});

/**
 * The body of `POST /v1/applicants` (docs/applicants.md), validated by the applicants service. The legacy name fields
 * and whole-name fields are refused by the service before this schema runs (they name their replacements).
 */
export const applicantInput = z
  .strictObject({
    family_name: nonBlank(200).meta({ description: 'The whole surname, possibly several words, as one value. A person with one name sends it here.' }),
    given_names: z
      .array(nonBlank(100))
      .max(20)
      .default([])
      .meta({ description: 'Ordered given names; a middle name is one more entry. Empty for a person with one name.' }),
    name_suffix: nonBlank(50).optional(),
    email: z.email({ message: 'must be an email address' }).max(254).optional(),
    phone: z.string().regex(/^\+[1-9][0-9]{6,14}$/, { message: 'must be in E.164 format, e.g. +14155550123' }).optional(),
    date_of_birth: isoDate.meta({ description: 'YYYY-MM-DD, a real calendar date, not in the future.' }).optional(),
    address: addressInput.optional(),
    external_id: nonBlank(200).optional().meta({ description: "The caller's own reference." }),
  })
  .meta({
    description:
      'Text fields must hold text without NUL characters or unpaired surrogates and must not be blank. Refused with 422 `validation_error` naming the replacement: `first_name`, `middle_name`, `last_name`, `legal_name`, `name`, `full_name`.',
  });

export type ApplicantInput = z.infer<typeof applicantInput>;

/** Legacy and whole-name fields: refused by the service, named here for the document. */
export const LEGACY_NAME_FIELDS = ['first_name', 'middle_name', 'last_name', 'legal_name', 'name', 'full_name'] as const;

export const address = z.object({
  line1: z.string().optional(),
  line2: z.string().optional(),
  city: z.string().optional(),
  region: z.string().optional(),
  postal_code: z.string().optional(),
  country: z.string().optional(),
});

/** An applicant as read (`libs/domain/contracts` Applicant). After an erasure every personal field is null. */
export const applicant = z
  .object({
    id: id('applicant', 'Applicant'),
    object: z.literal('applicant'),
    mode,
    family_name: z.string().nullable(),
    given_names: z.array(z.string()).nullable(),
    name_suffix: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    date_of_birth: z.string().nullable(),
    address: address.nullable(),
    external_id: z.string().nullable(),
    erased: z.boolean().meta({ description: 'The personal data was erased (a data subject request): every personal field is null.' }),
    created_at: timestamp,
  })
  .meta({ description: 'An applicant. Personal fields not sent are null; after an erasure `erased` is true and every personal field is null.' });
