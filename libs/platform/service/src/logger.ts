import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Paths never written to a log: personal data, keys and secrets, wherever they appear in a logged object.
 */
export const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.authorization',
  'key',
  '*.key',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'family_name',
  '*.family_name',
  'given_names',
  '*.given_names',
  'name_suffix',
  '*.name_suffix',
  'legal_name',
  '*.legal_name',
  'email',
  '*.email',
  'phone',
  '*.phone',
  'date_of_birth',
  '*.date_of_birth',
  'address',
  '*.address',
  'document_number',
  '*.document_number',
  'number',
  '*.number',
  'body',
  '*.body',
  'payload',
  '*.payload',
];

interface PgError {
  severity?: unknown;
  routine?: unknown;
  cause?: unknown;
}

/** Whether an error comes from Postgres, itself or as a cause. */
function fromPostgres(e: unknown): boolean {
  for (let x = e as PgError | undefined, depth = 0; x && typeof x === 'object' && depth < 8; x = x.cause as PgError | undefined, depth++) {
    if (typeof x.severity === 'string' && typeof x.routine === 'string') return true;
  }
  return false;
}

/** A text with every double-quoted value replaced by `"…"`. */
const scrubQuoted = (s: string) => s.replace(/"[^"\n]*"/g, '"…"');

/**
 * Fields of an error object that may be logged: what says what went wrong, never whom it concerned. Anything
 * else an error carries (a mail error's `rejected` recipients and `envelope`, a Postgres error's `detail` with
 * row values, a request's body) is left out; the text of the fields kept is scrubbed (`scrubText`).
 */
const ERROR_FIELDS = new Set([
  'code',
  'errno',
  'syscall',
  'port',
  'signal',
  'status',
  'statusCode',
  'responseCode',
  'command',
  // the SQL text of a failed statement (its bound parameters are never logged)
  'query',
  'permanent',
  'response',
  'severity',
  'routine',
  'schema',
  'table',
  'column',
  'constraint',
]);

/** Mailboxes as SMTP and mail headers write them (`"Jane Doe" <jane@example.com>`, `<jane@example.com>`), and bare addresses. */
const QUOTED_MAILBOX = /"[^"\r\n]*"\s*<[^<>\r\n]*>/g;
const ANGLE_MAILBOX = /<[^<>\r\n]*>/g;
/**
 * A run of characters an address can be written with. A run is an address when it holds an `@` with something on
 * both sides; testing each run once keeps the scrub linear in the text's length (one pattern `[^…]+@[^…]+` tried
 * from every position of a long run without an `@` took 17 s for 100 kB).
 */
const ADDRESS_RUN = /[^\s<>"'(),;:[\]]+/g;
const isAddress = (run: string): boolean => {
  const at = run.indexOf('@', 1);
  return at !== -1 && at < run.length - 1;
};

/** A text with every mailbox and email address (and so the names written with them) replaced by `[redacted]`. */
export function scrubText(text: string): string {
  const mailboxes = text.replace(QUOTED_MAILBOX, '[redacted]').replace(ANGLE_MAILBOX, '<[redacted]>');
  return mailboxes.includes('@') ? mailboxes.replace(ADDRESS_RUN, (run) => (isAddress(run) ? '[redacted]' : run)) : mailboxes;
}

/**
 * An error as a log line carries it: type, message and stack, the fields of ERROR_FIELDS, its `cause` and the
 * errors it aggregates, every text scrubbed of mailboxes and addresses.
 */
export function serializeError(e: unknown, depth = 0): unknown {
  if (!e || typeof e !== 'object') return typeof e === 'string' ? scrubText(e) : e;
  const err = e as Record<string, unknown> & { message?: unknown; stack?: unknown; cause?: unknown; errors?: unknown };
  const out: Record<string, unknown> = {
    type: e instanceof Error ? e.constructor.name : typeof err.type === 'string' ? err.type : 'Error',
    message: typeof err.message === 'string' ? scrubText(err.message) : '',
  };
  if (typeof err.stack === 'string') out.stack = scrubText(err.stack);
  // Postgres quotes the value it refused in its message ('invalid input syntax for type json: "…"')
  if (fromPostgres(e)) {
    out.message = scrubQuoted(out.message as string);
    if (typeof out.stack === 'string') out.stack = scrubQuoted(out.stack);
  }
  for (const [k, v] of Object.entries(err)) {
    if (!ERROR_FIELDS.has(k)) continue;
    if (typeof v === 'string') out[k] = scrubText(v);
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  if (depth < 3) {
    if (err.cause !== undefined) out.cause = serializeError(err.cause, depth + 1);
    if (Array.isArray(err.errors)) out.errors = err.errors.slice(0, 10).map((x) => serializeError(x, depth + 1));
  }
  return out;
}

/** Every error object in a logged object, at its top level or one level down, serialized by `serializeError`. */
function errorsSerialized(obj: Record<string, unknown>): Record<string, unknown> {
  let out = obj;
  for (const [k, v] of Object.entries(obj)) {
    let next: unknown = v;
    if (v instanceof Error) next = serializeError(v);
    else if (v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).some((x) => x instanceof Error)) {
      next = Object.fromEntries(Object.entries(v).map(([k2, x]) => [k2, x instanceof Error ? serializeError(x) : x]));
    }
    if (next !== v) {
      if (out === obj) out = { ...obj };
      out[k] = next;
    }
  }
  return out;
}

/** `destination`: where the lines go (standard output by default; a test captures them). */
export function createLogger(service: string, region: string, level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service, region },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: (e: unknown) => serializeError(e) },
    formatters: { log: errorsSerialized },
  };
  return destination ? pino(options, destination) : pino(options);
}
