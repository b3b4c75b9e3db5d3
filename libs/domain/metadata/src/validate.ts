/**
 * Validation of the `metadata` object of `POST /v1/sessions`: every issue is reported, not the first only, with
 * zod-like codes and paths (the table of docs/metadata.md, "Errors").
 */
import { isIsoCurrencyCode, isThreeLetterCode } from './currency.js';
import { compareInstants, parseDatetimeDetailed, type ParsedDatetime } from './datetime.js';
import { codePointLength, LOCATION_CHAR_RULES, LOCATION_MAX_CHARACTERS, trimLocation } from './location.js';

export interface MetadataIssue {
  code: string;
  message: string;
  path: (string | number)[];
}

export type MetadataIssueCode =
  | 'invalid_type'
  | 'too_small'
  | 'too_big'
  | 'invalid_format'
  | 'invalid_value'
  | 'custom';

export type MetadataValidation = { ok: true; value: Record<string, unknown> } | { ok: false; issues: MetadataIssue[] };

/** Names refused on create (written by the platform or by earlier releases). Case-sensitive. */
export const RESERVED_METADATA_KEYS: readonly string[] = Object.freeze([
  'referenceDetails',
  'notes',
  'operatorNotes',
  'cancellationReason',
  'manualReviewReason',
  'erroredReason',
  '__requested_checks',
]);

/** The five keys with meaning, in document order. */
export const METADATA_KEYS = Object.freeze(['start_datetime', 'end_datetime', 'amount', 'currency', 'location'] as const);
export type MetadataKey = (typeof METADATA_KEYS)[number];

export const AMOUNT_MIN = 0;
export const AMOUNT_MAX = 999_999_999_999;

const RESERVED = new Set(RESERVED_METADATA_KEYS);

/**
 * The most a metadata object may weigh, as JSON in UTF-8. Metadata is stored with its session and travels in
 * every read of it (one NATS message, 1 MiB at most, for a session or a page of them).
 */
export const METADATA_MAX_BYTES = 16 * 1024;

const utf8 = new TextEncoder();

/** The size of a JSON value as JSON in UTF-8. */
export function jsonBytes(v: unknown): number {
  return utf8.encode(JSON.stringify(v)).length;
}

/** The issue of a metadata object over METADATA_MAX_BYTES, or null. */
export function metadataSizeIssue(v: unknown): MetadataIssue | null {
  const bytes = jsonBytes(v);
  if (bytes <= METADATA_MAX_BYTES) return null;
  return { code: 'too_big', message: `metadata must be at most ${METADATA_MAX_BYTES} bytes as JSON (UTF-8); it is ${bytes}.`, path: ['metadata'] };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** A key counts as sent when it is an own property whose value is not `undefined`. */
function sent(obj: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key) && obj[key] !== undefined;
}

class Issues {
  readonly list: MetadataIssue[] = [];
  add(code: MetadataIssueCode, key: string | null, message: string): void {
    this.list.push({ code, message, path: key === null ? ['metadata'] : ['metadata', key] });
  }
}

function checkDatetime(key: 'start_datetime' | 'end_datetime', v: unknown, issues: Issues): ParsedDatetime | null {
  if (typeof v !== 'string') {
    issues.add('invalid_type', key, `metadata.${key} must be a string, not ${jsonType(v)}.`);
    return null;
  }
  if (v === '') {
    issues.add('too_small', key, `metadata.${key} must not be empty.`);
    return null;
  }
  const r = parseDatetimeDetailed(v);
  if (!r.ok) {
    issues.add('invalid_format', key, `metadata.${key}: ${r.reason}.`);
    return null;
  }
  return r.value;
}

function checkAmount(v: unknown, issues: Issues): void {
  if (typeof v !== 'number') {
    issues.add(
      'invalid_type',
      'amount',
      `metadata.amount must be a whole number of minor units (a JSON number, not ${jsonType(v)}).`,
    );
  } else if (!Number.isInteger(v)) {
    issues.add('invalid_type', 'amount', 'metadata.amount must be a whole number of minor units, without decimals.');
  } else if (v < AMOUNT_MIN) {
    issues.add('too_small', 'amount', `metadata.amount must be at least ${AMOUNT_MIN}.`);
  } else if (v > AMOUNT_MAX) {
    issues.add('too_big', 'amount', `metadata.amount must be at most ${AMOUNT_MAX}.`);
  }
}

function checkCurrency(v: unknown, issues: Issues): void {
  if (typeof v !== 'string') {
    issues.add('invalid_type', 'currency', `metadata.currency must be a string, not ${jsonType(v)}.`);
  } else if (v === '') {
    issues.add('too_small', 'currency', 'metadata.currency must not be empty.');
  } else if (!isThreeLetterCode(v)) {
    issues.add('invalid_format', 'currency', 'metadata.currency must be a three-letter ISO 4217 code, for example USD.');
  } else if (!isIsoCurrencyCode(v)) {
    issues.add('invalid_value', 'currency', `metadata.currency ${v} is not an ISO 4217 currency code.`);
  }
}

/** Returns the trimmed location when it is valid. */
function checkLocation(v: unknown, issues: Issues): string | null {
  if (typeof v !== 'string') {
    issues.add('invalid_type', 'location', `metadata.location must be a string, not ${jsonType(v)}.`);
    return null;
  }
  const trimmed = trimLocation(v);
  let ok = true;
  if (trimmed === '') {
    issues.add('too_small', 'location', 'metadata.location must not be empty or only spaces.');
    ok = false;
  } else if (codePointLength(trimmed) > LOCATION_MAX_CHARACTERS) {
    issues.add('too_big', 'location', `metadata.location must be at most ${LOCATION_MAX_CHARACTERS} characters.`);
    ok = false;
  }
  for (const rule of LOCATION_CHAR_RULES) {
    if (rule.re.test(v)) {
      issues.add('invalid_format', 'location', `metadata.location must be one display line without ${rule.name}.`);
      ok = false;
    }
  }
  return ok ? trimmed : null;
}

/**
 * Validate the `metadata` of a session create. `undefined` (no metadata sent) is valid and
 * yields `{}`. On success `value` is a shallow copy of the caller's object, unchanged except
 * `location` trimmed; keys other than the five are kept verbatim and never interpreted. Never
 * throws.
 */
export function validateSessionMetadata(input: unknown): MetadataValidation {
  if (input === undefined) return { ok: true, value: {} };
  if (!isPlainObject(input)) {
    return {
      ok: false,
      issues: [{ code: 'invalid_type', message: `metadata must be an object, not ${jsonType(input)}.`, path: ['metadata'] }],
    };
  }
  const tooBig = metadataSizeIssue(input);
  if (tooBig) return { ok: false, issues: [tooBig] };
  const issues = new Issues();

  for (const key of Object.keys(input)) {
    if (RESERVED.has(key)) {
      issues.add(
        'custom',
        key,
        `metadata.${key} is a reserved key name and cannot be set on create; remove it (reserved: ${RESERVED_METADATA_KEYS.join(', ')}).`,
      );
    }
  }

  const start = sent(input, 'start_datetime') ? checkDatetime('start_datetime', input['start_datetime'], issues) : null;
  const end = sent(input, 'end_datetime') ? checkDatetime('end_datetime', input['end_datetime'], issues) : null;
  if (sent(input, 'amount')) checkAmount(input['amount'], issues);
  if (sent(input, 'currency')) checkCurrency(input['currency'], issues);
  const location = sent(input, 'location') ? checkLocation(input['location'], issues) : null;

  if (sent(input, 'amount') && !sent(input, 'currency')) {
    issues.add('custom', 'currency', 'metadata.currency is required when metadata.amount is sent.');
  }
  if (start !== null && end !== null && compareInstants(end, start) < 0) {
    issues.add('custom', 'end_datetime', 'metadata.end_datetime must be at or after metadata.start_datetime.');
  }

  if (issues.list.length > 0) return { ok: false, issues: issues.list };
  const value: Record<string, unknown> = { ...input };
  if (location !== null) value['location'] = location;
  return { ok: true, value };
}
