import { createHash } from 'node:crypto';
import { DomainError } from '@verity/errors';
import { aead } from '@verity/keys';

/** The request header (docs/errors.md#idempotency) and the headers of a replayed answer. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
export const ORIGINAL_REQUEST_HEADER = 'original-request';

/** How long the first answer of a key is kept (docs/errors.md#idempotency). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** What the in-flight lease adds to the RPC timeout: past it the first request can no longer commit anything. */
export const LEASE_MARGIN_MS = 5000;

const PRINTABLE = /^[\x20-\x7e]*$/;
const MAX_LENGTH = 255;

function refusal(code: string, message: string): DomainError {
  return DomainError.validation([{ code, message, path: ['Idempotency-Key'] }], message);
}

/**
 * The Idempotency-Key of a request: undefined when absent, else 1 to 255 printable ASCII characters (space to
 * tilde) sent once; anything else is 422 `validation_error` naming the header. `rawHeaders` is Node's flat
 * name/value list, where a repeated header is still visible (Node joins repeats into one value).
 */
export function readIdempotencyKey(value: string | string[] | undefined, rawHeaders: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  let sent = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === IDEMPOTENCY_HEADER) sent++;
  if (sent > 1 || Array.isArray(value)) throw refusal('invalid_format', 'Idempotency-Key must be sent once');
  if (value.length === 0) throw refusal('too_small', 'Idempotency-Key must be 1 to 255 printable ASCII characters; it is empty');
  if (value.length > MAX_LENGTH) throw refusal('too_big', 'Idempotency-Key must be 1 to 255 printable ASCII characters; it is longer');
  if (!PRINTABLE.test(value)) throw refusal('invalid_format', 'Idempotency-Key must be 1 to 255 printable ASCII characters (space to tilde)');
  return value;
}

/** What makes two requests "the same": method, path with its query as routed, and the body's exact bytes. */
export function fingerprint(method: string, url: string, body: Uint8Array | null): string {
  const h = createHash('sha256').update(`${method}\n${url}\n`);
  if (body) h.update(body);
  return h.digest('hex');
}

/**
 * The Redis key of one Idempotency-Key within its scope (`org_…:live`, or `capture:ses_…` on capture routes):
 * the key itself only as its SHA-256, so that neither Redis nor a dump of it holds what clients sent.
 */
export function recordKey(prefix: string, scope: string, key: string): string {
  return `${prefix}idempotency:${scope}:${createHash('sha256').update(key).digest('hex')}`;
}

/** What Redis holds for a key: a lease while the first request runs, then its answer (body sealed, base64). */
export type IdempotencyRecord =
  | { state: 'running'; owner: string; fp: string }
  | { state: 'done'; owner: string; fp: string; status: number; content_type: string | null; body: string };

/** The AES-256-GCM key of a stored answer: from the Idempotency-Key and its scope, never stored anywhere. */
function bodyKey(scope: string, key: string): Buffer {
  return createHash('sha256').update(`idempotency-body\n${scope}\n${key}`).digest();
}

/**
 * Seals a stored answer's body with a key derived from the client's Idempotency-Key: Redis holds no readable
 * answer (an applicant's personal data, say), and only a request presenting the same key can open it.
 */
export function sealBody(scope: string, key: string, body: Buffer): string {
  return aead.seal(bodyKey(scope, key), body).toString('base64');
}

export function openBody(scope: string, key: string, sealed: string): Buffer {
  return aead.open(bodyKey(scope, key), Buffer.from(sealed, 'base64'));
}

export function parseRecord(raw: string): IdempotencyRecord | null {
  try {
    const r = JSON.parse(raw) as IdempotencyRecord;
    return r && (r.state === 'running' || r.state === 'done') && typeof r.fp === 'string' ? r : null;
  } catch {
    return null;
  }
}

/**
 * What a request whose claim failed gets, given the record that holds the key: another request's fingerprint is
 * 422 `idempotency_key_reused` (whatever that one's state), the same one still running 409
 * `idempotency_key_in_use`, else its stored answer.
 */
export function decideOnRecord(record: IdempotencyRecord, fp: string): { replay: Extract<IdempotencyRecord, { state: 'done' }> } {
  if (record.fp !== fp) throw new DomainError('idempotency_key_reused');
  if (record.state === 'running') throw new DomainError('idempotency_key_in_use');
  return { replay: record };
}
