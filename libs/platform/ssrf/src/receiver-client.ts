import { Agent, type Dispatcher } from 'undici';
import { DestinationError, type DestinationGuard } from './guard.js';

/** Why a request to a receiver failed, as the webhook log names it (docs/webhooks.md). */
export type ReceiverErrorCode = 'timeout' | 'connection_error' | 'dns_error' | 'tls_error' | 'http_status' | 'blocked_destination';

export interface ReceiverResult {
  ok: boolean;
  httpStatus: number | null;
  latencyMs: number;
  errorCode: ReceiverErrorCode | null;
}

const TLS_CODES = new Set([
  'EPROTO',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'ABORT_ERR']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME', 'EAI_FAIL']);

/** The bounded error code of a failed request, from the error and its causes. */
export function receiverErrorCode(e: unknown): ReceiverErrorCode {
  for (let cur: unknown = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (cur instanceof DestinationError) return cur.code;
    const { code, name } = cur as { code?: unknown; name?: unknown };
    if (name === 'TimeoutError' || name === 'AbortError' || (typeof code === 'string' && TIMEOUT_CODES.has(code))) return 'timeout';
    if (typeof code === 'string') {
      if (DNS_CODES.has(code)) return 'dns_error';
      if (TLS_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.includes('CERT')) return 'tls_error';
    }
  }
  return 'connection_error';
}

/** A response body is read (so the connection can be reused) up to this much, and dropped; past it the connection is. */
const RESPONSE_BODY_LIMIT = 64 * 1024;
const timedOut = () => new Error('the attempt took longer than its timeout');

/**
 * POSTs to receivers at URLs users gave. Every new connection goes through the SSRF guard to an address it checked; TLS still verifies the certificate against the URL's host name. Redirects are not followed,
 * the whole attempt (connecting included) ends at `timeoutMs`, and the response body is read up to 64 KiB and
 * dropped. Requests use undici's dispatcher interface with one timer each, its cheapest path.
 */
export class ReceiverClient {
  private readonly agent: Agent;

  constructor(
    guard: DestinationGuard,
    private readonly timeoutMs: number,
    private readonly userAgent: string,
  ) {
    this.agent = new Agent({ keepAliveTimeout: 4000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connect: guard.connector(timeoutMs) });
  }

  /** POSTs a JSON `body` with `headers`; never throws: a failure is an attempt result with its error code. */
  post(url: string, headers: Record<string, string>, body: string): Promise<ReceiverResult> {
    const started = performance.now();
    const elapsed = () => Math.max(0, Math.round(performance.now() - started));
    return new Promise<ReceiverResult>((resolve) => {
      let status: number | null = null;
      let latencyMs = 0;
      let received = 0;
      let controller: Dispatcher.DispatchController | null = null;
      let done = false;
      // once the status is known it decides the attempt, whatever happens to the rest of the body
      const finish = (failure: ReceiverErrorCode | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (status === null) resolve({ ok: false, httpStatus: null, latencyMs: elapsed(), errorCode: failure ?? 'connection_error' });
        else resolve({ ok: status < 300, httpStatus: status, latencyMs, errorCode: status < 300 ? null : 'http_status' });
      };
      const timer = setTimeout(() => {
        finish('timeout');
        controller?.abort(timedOut());
      }, this.timeoutMs);
      try {
        const u = new URL(url);
        this.agent.dispatch(
          {
            origin: u.origin,
            path: `${u.pathname}${u.search}`,
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json', 'user-agent': this.userAgent },
            body,
          },
          {
            onRequestStart: (c) => {
              controller = c;
              if (done) c.abort(timedOut());
            },
            onResponseStart: (_c, code) => {
              if (code < 200 || status !== null) return; // 1xx: informational, the answer follows
              status = code;
              latencyMs = elapsed();
            },
            onResponseData: (c, chunk) => {
              received += chunk.length;
              if (received > RESPONSE_BODY_LIMIT) c.abort(new Error('response body over the limit: connection dropped'));
            },
            onResponseEnd: () => finish(null),
            onResponseError: (_c, err) => finish(receiverErrorCode(err)),
          },
        );
      } catch (e) {
        finish(receiverErrorCode(e));
      }
    });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

