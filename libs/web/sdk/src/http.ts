import { randomUUID } from 'node:crypto';
import { VerityConnectionError, VerityError } from './errors.js';
import { backoffDelay, rateLimitDelay, resetAtOf, type BackoffOptions } from './retry.js';

/** The `fetch` the client calls: the global one unless another is given (a proxy agent, a test's own). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Per-call options. */
export interface RequestOptions {
  /** `POST` only: the `Idempotency-Key` to send (default: a random UUID). Every retry of the call sends the same one. */
  idempotencyKey?: string;
  /** Aborts the call, including any wait between retries. */
  signal?: AbortSignal;
}

export interface HttpConfig {
  baseUrl: string;
  apiKey: string;
  fetch: FetchLike;
  maxRetries: number;
  timeoutMs: number;
  maxRateLimitWaitMs: number;
  backoff: BackoffOptions;
}

export interface Call {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query?: object;
  /** JSON value, or bytes already encoded with their content type (multipart). */
  json?: unknown;
  bytes?: { data: Uint8Array; contentType: string };
  options?: RequestOptions;
}

export const SDK_VERSION = '0.1.0';

type Try = { kind: 'answer'; res: Response; text: string | null } | { kind: 'network'; error: unknown };

/**
 * One API call with the retry policy of docs/openapi.md: a 429 waits until its `reset_at` (when that is within
 * `maxRateLimitWaitMs`), a 503, a lost connection or a 409 `idempotency_key_in_use` (the first try is still
 * running on the server) back off with full jitter; at most `maxRetries` retries; every other answer is final.
 * The body is encoded once, so that every retry sends the same bytes and the same `Idempotency-Key`.
 */
export class HttpClient {
  /** A private field: the key never shows in a logged or inspected client. */
  readonly #authorization: string;
  private readonly cfg: Omit<HttpConfig, 'apiKey'>;

  constructor({ apiKey, ...cfg }: HttpConfig) {
    this.#authorization = `Bearer ${apiKey}`;
    this.cfg = cfg;
  }

  /** A JSON call: the parsed body of the 2xx answer. */
  async json<T>(call: Call): Promise<T> {
    const res = await this.send(call, false);
    try {
      return JSON.parse(res.text ?? '') as T;
    } catch {
      throw new Error(`${call.method} ${call.path}: the ${res.res.status} answer is not JSON`);
    }
  }

  /** A call whose 2xx body is returned unread, to be streamed. */
  async stream(call: Call): Promise<Response> {
    return (await this.send(call, true)).res;
  }

  private async send(call: Call, stream: boolean): Promise<{ res: Response; text: string | null }> {
    const url = this.url(call.path, call.query);
    const headers: Record<string, string> = {
      authorization: this.#authorization,
      accept: 'application/json',
      'user-agent': `verity-sdk-node/${SDK_VERSION}`,
    };
    let body: string | Uint8Array | undefined;
    if (call.bytes) {
      body = call.bytes.data;
      headers['content-type'] = call.bytes.contentType;
    } else if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      headers['content-type'] = 'application/json';
    }
    if (call.method === 'POST') headers['idempotency-key'] = call.options?.idempotencyKey ?? randomUUID();
    const signal = call.options?.signal;

    for (let retry = 0; ; retry++) {
      signal?.throwIfAborted();
      const got = await this.once(url, { method: call.method, headers, body }, stream, signal);
      const last = retry >= this.cfg.maxRetries;
      if (got.kind === 'network') {
        if (signal?.aborted) throw signal.reason;
        if (last) {
          throw new VerityConnectionError(`${call.method} ${call.path}: no answer after ${retry + 1} ${retry === 0 ? 'try' : 'tries'}`, { cause: got.error });
        }
        await sleep(backoffDelay(retry, this.cfg.backoff), signal);
        continue;
      }
      const { res, text } = got;
      if (res.ok) return { res, text };
      const err = new VerityError(res.status, parseOrNull(text), res.headers);
      const wait = last ? null : this.retryDelay(err, retry);
      if (wait === null) throw err;
      await sleep(wait, signal);
    }
  }

  /** How long to wait before retrying this refusal; null when it is final. */
  private retryDelay(err: VerityError, retry: number): number | null {
    if (err.status === 429) {
      const wait = rateLimitDelay(resetAtOf(err.details, err.headers), Date.now());
      if (wait === null) return backoffDelay(retry, this.cfg.backoff);
      return wait <= this.cfg.maxRateLimitWaitMs ? wait : null;
    }
    if (err.status === 503) return backoffDelay(retry, this.cfg.backoff);
    if (err.status === 409 && err.code === 'idempotency_key_in_use') return backoffDelay(retry, this.cfg.backoff);
    return null;
  }

  /** One try: an answer (body read unless streaming a 2xx), or the network failure. */
  private async once(url: string, init: RequestInit, stream: boolean, signal: AbortSignal | undefined): Promise<Try> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error(`no answer within ${this.cfg.timeoutMs} ms`)), this.cfg.timeoutMs);
    try {
      const res = await this.cfg.fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal });
      if (stream && res.ok) return { kind: 'answer', res, text: null };
      // a body cut off half way is a lost answer like any other: retried with the same Idempotency-Key
      return { kind: 'answer', res, text: await res.text() };
    } catch (error) {
      return { kind: 'network', error };
    } finally {
      clearTimeout(timer);
    }
  }

  private url(path: string, query: object | undefined): string {
    // appended, not resolved: a base URL may carry a path prefix (a gateway behind a proxy)
    const u = new URL(this.cfg.baseUrl.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
    }
    return u.toString();
  }
}

function parseOrNull(text: string | null): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
