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

export function createLogger(service: string, region: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service, region },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
