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

/**
 * Fields of errors that quote the data of the failed statement or request: Postgres's `where` ("JSON data, line 1:
 * …" with the text it could not read), `detail` ("Key (email)=(…) already exists"), `hint`, `internalQuery`, and
 * the bound `parameters` of ORM errors. Never logged.
 */
const DATA_FIELDS = ['where', 'detail', 'hint', 'internalQuery', 'parameters', 'driverError', 'params', 'values', 'body', 'payload'];

interface PgError {
  severity?: unknown;
  routine?: unknown;
  cause?: unknown;
}

function fromPostgres(e: unknown): boolean {
  for (let x = e as PgError | undefined, depth = 0; x && typeof x === 'object' && depth < 8; x = x.cause as PgError | undefined, depth++) {
    if (typeof x.severity === 'string' && typeof x.routine === 'string') return true;
  }
  return false;
}

/** Postgres quotes the value it refused in its message ('invalid input syntax for type integer: "…"'). */
const scrubQuoted = (s: string) => s.replace(/"[^"\n]*"/g, '"…"');

/**
 * pino's error serializer, minus whatever quotes personal data: the data fields above, and for an error from
 * Postgres (or caused by one) the quoted values in its message and stack.
 */
export function serializeError(e: unknown): unknown {
  if (!(e instanceof Error)) return e;
  const out = pino.stdSerializers.err(e) as unknown as Record<string, unknown>;
  for (const k of DATA_FIELDS) delete out[k];
  if (fromPostgres(e)) {
    if (typeof out['message'] === 'string') out['message'] = scrubQuoted(out['message']);
    if (typeof out['stack'] === 'string') out['stack'] = scrubQuoted(out['stack']);
  }
  return out;
}

export function createLogger(service: string, region: string, level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service, region },
    serializers: { err: serializeError, error: serializeError },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
