import { CHECK_TYPES, SESSION_STATUSES } from '@verity/contracts';
import {
  AMOUNT_MAX,
  AMOUNT_MIN,
  DATETIME_RE,
  LOCATION_CHAR_RULES,
  LOCATION_MAX_CHARACTERS,
  METADATA_MAX_BYTES,
  RESERVED_METADATA_KEYS,
} from '@verity/metadata';
import { z } from 'zod';
import { id, mode, timestamp } from './common.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from './text.js';

export const EXPECTED_OUTCOMES = ['pass', 'review', 'fail', 'doc_quality'] as const;

/** Note and reason limits of the session actions (docs/sessions.md), in characters (Unicode code points). */
export const NOTE_MAX = 2000;
export const REASON_MAX = 500;

const datetime = z
  .string()
  .regex(DATETIME_RE)
  .meta({ description: 'ISO 8601 with an explicit offset (`Z` or `±hh:mm`), e.g. `2026-03-14T09:30:00+01:00`; a real calendar date and time, offset from -12:00 to +14:00.' });

// One display line: none of the refused characters anywhere, and 1 to 500 characters (code points) once leading and
// trailing white space is trimmed, as String.prototype.trim does (its white space is the regex's \s).
const REFUSED = `(?!${LOCATION_CHAR_RULES.map((r) => r.re.source).join('|')})`;
const LOCATION_PATTERN = `^(?:${REFUSED}\\s)*(?:${REFUSED}\\S|${REFUSED}\\S(?:${REFUSED}[\\s\\S]){0,${LOCATION_MAX_CHARACTERS - 2}}${REFUSED}\\S)(?:${REFUSED}\\s)*$`;

/**
 * The shape of `metadata` on `POST /v1/sessions` (docs/metadata.md). The service's own validator
 * (libs/domain/metadata) checks it, reports every issue with its own messages, and also applies what a schema does not:
 * calendar and offset range of the datetimes, ISO 4217 membership of `currency`, the size limit, and the three
 * whole-object rules below. `null` or `""` for any of the five keys is refused.
 */
export const sessionMetadataInput = z
  .looseObject({
    start_datetime: datetime.optional(),
    end_datetime: datetime.optional().meta({ description: 'Same format as `start_datetime`; at or after it (compared as instants).' }),
    amount: z
      .number()
      .int()
      .min(AMOUNT_MIN)
      .max(AMOUNT_MAX)
      .optional()
      .meta({ description: 'Whole number of minor units of `currency`; requires `currency`. A string is refused.' }),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/)
      .optional()
      .meta({ description: 'ISO 4217 code; case kept as sent. May be sent alone.' }),
    location: z
      .string()
      .regex(new RegExp(LOCATION_PATTERN, 'u'))
      .optional()
      .meta({
        description: `One display line, at most ${LOCATION_MAX_CHARACTERS} characters after trimming (leading and trailing spaces are removed); no control characters, bidirectional marks, angle brackets or line separators.`,
      }),
  })
  .meta({
    description: [
      `The caller's data, stored and returned unchanged (except \`location\`, trimmed); at most ${METADATA_MAX_BYTES / 1024} KiB as JSON. Five keys have meaning; every other key is the caller's.`,
      'Three rules span the whole object and are checked as code, not by this schema (422 `validation_error`, `param` `metadata`, the full path in `details.issues[].path`):',
      `a reserved key (\`${RESERVED_METADATA_KEYS.join('`, `')}\`) is refused at \`["metadata", "<key>"]\`;`,
      '`amount` without `currency` at `["metadata", "currency"]`; `end_datetime` before `start_datetime` at `["metadata", "end_datetime"]`.',
      'A key that a document variable of the workflow places is required (403 `esign_requirements_not_met`, `details.reason` `esign_session_metadata_required`).',
    ].join(' '),
  });

/** The body of `POST /v1/sessions` (docs/sessions.md), validated by hand in the sessions service. */
export const sessionCreateBody = z.strictObject({
  applicant_id: z.string().meta({ description: 'Missing or unknown: 404 `resource_not_found` with `param` `applicant_id`.' }),
  workflow_template_id: z.string().meta({ description: 'Missing or unknown: 404 `resource_not_found` with `param` `workflow_template_id`.' }),
  metadata: sessionMetadataInput.optional(),
  expected_outcome: z
    .enum(EXPECTED_OUTCOMES)
    .optional()
    .meta({ description: 'Test mode only: the synthetic result of every check, default `pass`. Dropped silently in live mode, whatever it holds.' }),
});

/**
 * The text of a note or reason: not blank, storable text, at most `max` characters (code points, as JSON Schema's
 * `maxLength` counts them; zod's own `max` would count UTF-16 units and refuse 2000 emoji).
 */
export const actionText = (max: number) =>
  z
    .string()
    .refine((s) => s.trim() !== '', 'must not be empty or blank')
    .refine((s) => [...s].length <= max, `must be at most ${max} characters`)
    .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE)
    .meta({ minLength: 1, maxLength: max, description: `1 to ${max} characters, not blank, without NUL characters or unpaired surrogates.` });

/** `POST /v1/sessions/{id}/notes` */
export const sessionNoteBody = z.strictObject({ note: actionText(NOTE_MAX) });

/** `POST /v1/sessions/{id}/cancel` and `/review`: the body itself may be left out. */
export const sessionReasonBody = z.strictObject({ reason: actionText(REASON_MAX).optional() });

/** `POST /v1/sessions/{id}/decision` */
export const sessionDecisionBody = z.strictObject({
  outcome: z.enum(['approved', 'declined']),
  reason: actionText(REASON_MAX).optional(),
});

export const sessionStatus = z.enum(SESSION_STATUSES);
export const checkOutcome = z.enum(['pass', 'fail', 'review', 'error']);
export const evidenceArtifact = z.enum(['portrait', 'front', 'selfie']);

/** One check of a session (contract §20; `libs/domain/contracts` SessionCheck). */
export const sessionCheck = z
  .object({
    type: z.enum(CHECK_TYPES),
    outcome: checkOutcome.nullable().meta({ description: 'Null before the check ran.' }),
    reasons: z
      .array(z.string())
      .meta({ description: 'Stable codes of what the check found, most serious first; each is explained, with what the applicant can do, in docs/reading.md ("Reasons"). Empty when nothing was found, and always in test mode.' }),
    score: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .meta({ description: '`face_match`: the similarity of the document\'s face and the selfie\'s; `liveness`: how surely the selfie is a live person. Null for the other checks, in test mode, and when nothing could be scored.' }),
  })
  .meta({ description: 'A check of the workflow with its outcome, the reasons behind it and, for the face checks, its score.' });

export const idvDocument = z.object({
  type: z.enum(['passport', 'identity_card', 'driver_license']),
  issuing_country: z.string().nullable(),
  number: z.string(),
  expiry_date: z.string(),
});

export const idvHolder = z.object({
  family_name: z.string(),
  given_names: z.array(z.string()),
  date_of_birth: z.string(),
  nationality: z.string().nullable(),
});

export const idv = z
  .object({
    available_images: z.array(evidenceArtifact).meta({ description: 'Artifacts with stored bytes, a subset of `portrait`, `front`, `selfie` in that order; what the image endpoint can serve.' }),
    capture_acquisition: z.enum(['camera', 'upload']).nullable().meta({ description: 'Declared by the applicant\'s browser, advisory; null for runs recorded before it was collected.' }),
    document: idvDocument.nullable().optional().meta({ description: 'Live runs: what was read from the document; null when it could not be read. Absent in test mode.' }),
    holder: idvHolder.nullable().optional(),
  })
  .meta({ description: 'Only on `GET /v1/sessions/{id}`, only for a verification that ran an identity check.' });

export const sessionScreening = z
  .object({
    decision: z.enum(['approve', 'review', 'none']),
    score: z.number().meta({ description: 'The sum of the fired `adjust_score` rules.' }),
    review_threshold: z.number().nullable().meta({ description: 'A score at or above it sends the run to review; null for runs recorded before it was reported.' }),
    decline_floored: z.boolean().meta({ description: 'A `decline` fired and was floored to manual review.' }),
    tags: z.array(z.string()),
    rules_fired: z
      .array(z.object({ name: z.string(), rule_type: z.string(), action: z.string(), priority: z.number().nullable(), fields: z.array(z.string()) }))
      .meta({ description: 'In evaluation order; names and field paths only, never an applicant value.' }),
  })
  .meta({ description: 'Only on `GET /v1/sessions/{id}`: how screening decided the last run; null before a run has rested, or when it ended without screening.' });

/** A session as read (`libs/domain/contracts` Session). */
export const session = z.object({
  id: id('session', 'Session'),
  object: z.literal('session'),
  applicant_id: z.string(),
  workflow_template_id: z.string(),
  workflow_template_version: z.number().int().meta({ description: 'The template version the session is pinned to: the one its runs ran.' }),
  mode,
  status: sessionStatus,
  outcome: z.enum(['approved', 'declined']).nullable(),
  checks: z.array(sessionCheck),
  metadata: z
    .record(z.string(), z.unknown())
    .meta({ description: 'The caller\'s metadata, plus platform-written keys: `cancellationReason`, `manualReviewReason`, `erroredReason`, `operatorNotes` (array of `{ note, created_at }`). Empty after an erasure.' }),
  idv: idv.optional(),
  screening: sessionScreening.nullable().optional(),
  url: z.string().nullable().meta({ description: 'Live sessions while `pending` or `in_progress`: the hosted capture page, `<CAPTURE_BASE_URL>/verify/<client_secret>`. Null otherwise, always null in test mode.' }),
  client_secret: z.string().nullable().meta({ description: '`vcs_` + 43 characters; authorizes the capture routes of this session only. Null as `url` is.' }),
  expires_at: timestamp.nullable().meta({ description: 'When the capture link expires; null as `url` is.' }),
  erased: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});
