import type { ErrorBody } from './types.js';

/** A non-2xx answer of the API, with every field of its error envelope (docs/errors.md, same names) and the response headers. */
export class VerityError extends Error {
  override readonly name = 'VerityError';
  /** HTTP status. */
  readonly status: number;
  /** `error.code`, e.g. `resource_not_found`; `unknown_error` when the answer carried no envelope. */
  readonly code: string;
  /** `error.type`, e.g. `invalid_request_error`. */
  readonly type: string;
  readonly param: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  /** `error.request_id`, else the `X-Request-Id` header. */
  readonly request_id: string | null;
  readonly doc_url: string | null;
  readonly headers: Headers;
  /** The envelope as received (null when the body was not one). */
  readonly raw: ErrorBody | null;

  constructor(status: number, body: unknown, headers: Headers) {
    const e = envelopeOf(body);
    super(e?.message ?? `HTTP ${status} without an error envelope`);
    this.status = status;
    this.code = e?.code ?? 'unknown_error';
    this.type = e?.type ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
    this.param = e?.param;
    this.details = e?.details;
    this.request_id = e?.request_id ?? headers.get('x-request-id');
    this.doc_url = e?.doc_url ?? null;
    this.headers = headers;
    this.raw = e;
  }
}

/** No answer came: the connection failed or timed out on every try. `cause` is the last failure. */
export class VerityConnectionError extends Error {
  override readonly name = 'VerityConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A webhook delivery whose signature or timestamp does not verify, or whose body is not an event. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

function envelopeOf(body: unknown): ErrorBody | null {
  const e = (body as { error?: unknown } | null)?.error as Partial<ErrorBody> | undefined;
  if (typeof e !== 'object' || e === null || typeof e.code !== 'string' || typeof e.message !== 'string') return null;
  return e as ErrorBody;
}
