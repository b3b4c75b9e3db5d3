import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { Principal, PrincipalSeal } from '@verity/contracts';

/**
 * Byte streams (uploads, evidence images) travel between the gateway and a service over internal HTTP, since
 * NATS messages are capped at 1 MB. The gateway signs the request (method, path and query, time, body digest,
 * principal, request id, deadline) with the region's INTERNAL_AUTH_SECRET; a streamed body, whose digest cannot
 * be in the headers, is signed by the HTTP trailer `x-verity-body-signature`, checked before the handler sees
 * the body's end (docs/decisions.md, "Platform").
 */
export const INTERNAL_HEADERS = {
  principal: 'x-verity-principal',
  /** The edge's signature of the principal (principal-seal.ts), base64url JSON; verified on its own key, not the HMAC. */
  principalSeal: 'x-verity-principal-seal',
  requestId: 'x-request-id',
  deadline: 'x-verity-deadline',
  timestamp: 'x-verity-timestamp',
  contentSha256: 'x-verity-content-sha256',
  signature: 'x-verity-signature',
  /** The trailer of a streamed body. */
  bodySignature: 'x-verity-body-signature',
} as const;

/** How far the time of signing may be from the receiver's clock (either way): captured headers expire. */
export const SIGNATURE_WINDOW_MS = 10_000;

/** `x-verity-content-sha256` of a body whose digest follows as a trailer. */
export const STREAMED_BODY = 'streamed';

export const EMPTY_SHA256 = createHash('sha256').digest('hex');

export interface InternalTarget {
  method: string;
  /** Path and query exactly as sent (`/captures/ses_…/images/front?x=1`). */
  path: string;
}

export interface InternalCaller {
  principal: Principal;
  requestId: string;
  deadline: number;
  /** The edge's signature of the principal for this request (RpcClient.sealFor); the receiver refuses a request without one. */
  seal?: PrincipalSeal;
}

function canonical(t: InternalTarget, principalB64: string, requestId: string, deadline: string, timestamp: string, contentSha256: string): string {
  return ['verity-internal-v2', t.method.toUpperCase(), t.path, timestamp, deadline, requestId, principalB64, contentSha256].join('\n');
}

function hmac(secret: string, text: string): Buffer {
  return createHmac('sha256', secret).update(text).digest();
}

function sameMac(given: string, expected: Buffer): boolean {
  const g = Buffer.from(given, 'base64url');
  return g.length === expected.length && timingSafeEqual(g, expected);
}

/**
 * The signed headers of an internal request. `body` is the whole body when the caller holds it (none: an empty
 * body), or STREAMED_BODY when it streams it: then the trailer from `bodyTrailer` must follow the bytes.
 */
export function signInternalRequest(
  secret: string,
  target: InternalTarget,
  caller: InternalCaller,
  body: Buffer | typeof STREAMED_BODY = Buffer.alloc(0),
  now = Date.now(),
): Record<string, string> {
  const p = Buffer.from(JSON.stringify(caller.principal)).toString('base64url');
  const d = String(caller.deadline);
  const ts = String(now);
  const digest = body === STREAMED_BODY ? STREAMED_BODY : createHash('sha256').update(body).digest('hex');
  return {
    [INTERNAL_HEADERS.principal]: p,
    ...(caller.seal ? { [INTERNAL_HEADERS.principalSeal]: Buffer.from(JSON.stringify(caller.seal)).toString('base64url') } : {}),
    [INTERNAL_HEADERS.requestId]: caller.requestId,
    [INTERNAL_HEADERS.deadline]: d,
    [INTERNAL_HEADERS.timestamp]: ts,
    [INTERNAL_HEADERS.contentSha256]: digest,
    [INTERNAL_HEADERS.signature]: hmac(secret, canonical(target, p, caller.requestId, d, ts, digest)).toString('base64url'),
  };
}

/** The trailer closing a streamed body: binds the body's SHA-256 (hex) to the request's header signature. */
export function bodyTrailer(secret: string, headerSignature: string, bodySha256: string): Record<string, string> {
  return { [INTERNAL_HEADERS.bodySignature]: hmac(secret, `${headerSignature}.${bodySha256}`).toString('base64url') };
}

/**
 * A pass-through the sender streams a body through: it hashes the bytes, and once they have all passed,
 * `trailers()` gives the trailer to send after them.
 */
export class BodySigner extends Transform {
  private readonly hash = createHash('sha256');
  private digest: string | null = null;

  constructor(
    private readonly secret: string,
    private readonly headerSignature: string,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.hash.update(chunk);
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback): void {
    this.digest = this.hash.digest('hex');
    cb();
  }

  trailers(): Record<string, string> {
    if (this.digest === null) throw new Error('the body has not ended');
    return bodyTrailer(this.secret, this.headerSignature, this.digest);
  }
}

export interface VerifiedHeaders {
  caller: InternalCaller;
  /** The body's declared SHA-256 (hex), or STREAMED_BODY. */
  contentSha256: string;
  signature: string;
}

/**
 * Verifies the signed headers of an internal request against its method and path: null when anything is
 * missing, does not match, or was signed outside SIGNATURE_WINDOW_MS of `now`. The body is verified as it
 * arrives (`BodyVerifier`).
 */
export function verifyInternalRequest(
  secret: string,
  req: { method?: string; url?: string; headers: Record<string, string | string[] | undefined> },
  now = Date.now(),
): VerifiedHeaders | null {
  const get = (h: string) => {
    const v = req.headers[h];
    return typeof v === 'string' ? v : undefined;
  };
  const p = get(INTERNAL_HEADERS.principal);
  const requestId = get(INTERNAL_HEADERS.requestId);
  const d = get(INTERNAL_HEADERS.deadline);
  const ts = get(INTERNAL_HEADERS.timestamp);
  const digest = get(INTERNAL_HEADERS.contentSha256);
  const sig = get(INTERNAL_HEADERS.signature);
  if (!p || !requestId || !d || !ts || !digest || !sig || !req.method || !req.url) return null;
  if (digest !== STREAMED_BODY && !/^[0-9a-f]{64}$/.test(digest)) return null;
  if (!/^\d{1,15}$/.test(ts) || Math.abs(now - Number(ts)) > SIGNATURE_WINDOW_MS) return null;
  if (!sameMac(sig, hmac(secret, canonical({ method: req.method, path: req.url }, p, requestId, d, ts, digest)))) return null;
  try {
    const sealHeader = get(INTERNAL_HEADERS.principalSeal);
    const seal = sealHeader ? (JSON.parse(Buffer.from(sealHeader, 'base64url').toString()) as PrincipalSeal) : undefined;
    return {
      caller: { principal: JSON.parse(Buffer.from(p, 'base64url').toString()) as Principal, requestId, deadline: Number(d), ...(seal ? { seal } : {}) },
      contentSha256: digest,
      signature: sig,
    };
  } catch {
    return null;
  }
}

/**
 * The receiver's side of a body: passes the bytes on while hashing them, but holds the last chunk back until
 * the body has ended and matches what the signed headers declared (their digest, or the trailer of a streamed
 * body, read from `trailers()` once the source has ended). On a mismatch the stream fails instead of ending,
 * so a reader never sees a complete body that was not signed. `failed` tells why a reader's stream broke.
 */
export class BodyVerifier extends Transform {
  private readonly hash = createHash('sha256');
  private held: Buffer | null = null;
  failed = false;

  constructor(
    private readonly secret: string,
    private readonly verified: VerifiedHeaders,
    private readonly trailers: () => Record<string, string | undefined>,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.hash.update(chunk);
    const out = this.held;
    this.held = chunk;
    cb(null, out ?? undefined);
  }

  override _flush(cb: TransformCallback): void {
    const digest = this.hash.digest('hex');
    const ok =
      this.verified.contentSha256 === STREAMED_BODY
        ? sameMac(this.trailers()[INTERNAL_HEADERS.bodySignature] ?? '', hmac(this.secret, `${this.verified.signature}.${digest}`))
        : digest === this.verified.contentSha256;
    if (!ok) {
      this.failed = true;
      cb(new Error('the body does not match its signature'));
      return;
    }
    if (this.held) this.push(this.held);
    cb();
  }
}
