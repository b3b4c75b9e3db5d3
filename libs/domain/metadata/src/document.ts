/**
 * Signing-document variables fed by session metadata (docs/metadata.md).
 */
import { formatMinorUnits, minorUnitsOf } from './currency.js';
import { formatDatetimeForDocument, parseDatetimeDetailed } from './datetime.js';
import { validateSessionMetadata } from './validate.js';

/** Key → variable name, in document order. */
export const DOCUMENT_VARIABLES = Object.freeze({
  start_datetime: 'Start date and time',
  end_datetime: 'End date and time',
  amount: 'Transaction amount',
  currency: 'Currency',
  location: 'Location',
} as const);

export type DocumentVariable = keyof typeof DOCUMENT_VARIABLES;

const ORDER = Object.keys(DOCUMENT_VARIABLES) as DocumentVariable[];

function sent(metadata: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(metadata, key) && metadata[key] !== undefined;
}

/**
 * The variables placed in the document whose metadata key was not sent, each once, in document
 * order (start_datetime, end_datetime, amount, currency, location). Names outside the five are
 * ignored. Run after `validateSessionMetadata`: `null` or `""` never reach here (they are 422).
 */
export function missingSigningKeys(variables: DocumentVariable[], metadata: Record<string, unknown>): DocumentVariable[] {
  const placed = new Set<string>(variables);
  return ORDER.filter((key) => placed.has(key) && !sent(metadata, key));
}

/**
 * Message of 403 `esign_requirements_not_met` (`esign_session_metadata_required`): names every
 * missing variable and its key, for example
 * `The signing document of the workflow needs session metadata that was not supplied:
 * Start date and time (metadata.start_datetime), Transaction amount (metadata.amount).
 * Create the session with these metadata keys.`
 */
export function esignMissingMessage(missing: DocumentVariable[]): string {
  const names = ORDER.filter((key) => missing.includes(key)).map((key) => `${DOCUMENT_VARIABLES[key]} (metadata.${key})`);
  if (names.length === 0) return 'The signing document of the workflow needs session metadata that was not supplied.';
  const noun = names.length === 1 ? 'this metadata key' : 'these metadata keys';
  return `The signing document of the workflow needs session metadata that was not supplied: ${names.join(', ')}. Create the session with ${noun}.`;
}

function fail(key: DocumentVariable, why: string): never {
  throw new TypeError(`Cannot render document variable ${key}: ${why}. Validate metadata with validateSessionMetadata first.`);
}

/**
 * The printed value of one variable in a signed document. Expects metadata that passed
 * `validateSessionMetadata` and holds the key (see `missingSigningKeys`); throws a TypeError
 * otherwise rather than print a wrong value in a signed document. The printed forms: docs/metadata.md,
 * "Rendering in a signed document".
 */
export function renderDocumentVariable(key: DocumentVariable, metadata: Record<string, unknown>): string {
  if (!Object.prototype.hasOwnProperty.call(DOCUMENT_VARIABLES, key)) fail(key, 'not a document variable');
  if (!sent(metadata, key)) fail(key, `metadata.${key} was not supplied`);
  // Check the value against the same rules as session create (a value that can't be printed
  // faithfully is a programming error, not something to print).
  const check = validateSessionMetadata({ [key]: metadata[key], ...(key === 'amount' ? { currency: metadata['currency'] } : {}) });
  if (!check.ok) fail(key, check.issues.map((i) => i.message).join(' '));

  const value = metadata[key];
  switch (key) {
    case 'start_datetime':
    case 'end_datetime': {
      const parsed = parseDatetimeDetailed(value as string);
      if (!parsed.ok) return fail(key, parsed.reason);
      return formatDatetimeForDocument(parsed.value);
    }
    case 'amount': {
      const currency = metadata['currency'] as string;
      const digits = minorUnitsOf(currency);
      if (digits === undefined) return fail(key, `currency ${currency} is not in the ISO 4217 table`);
      return `${formatMinorUnits(value as number, digits)} ${currency}`;
    }
    case 'currency':
      return value as string;
    case 'location':
      return (value as string).trim();
  }
}
