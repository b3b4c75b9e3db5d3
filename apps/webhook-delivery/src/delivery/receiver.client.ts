import { lookup, Resolver } from 'node:dns/promises';
import type { WebhookAttempt } from '@verity/contracts';
import { classifyAddress, classifyHost, isAllowedRange, type AddressRange } from '@verity/ssrf';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import type { WebhookHeaders } from './signing.js';
import { ATTEMPT_TIMEOUT_MS } from './retry-schedule.js';

export type AttemptErrorCode = NonNullable<WebhookAttempt['error_code']>;

/** A destination the SSRF guard refused, or a name that did not resolve. */
export class DestinationError extends Error {
  constructor(
    readonly code: 'blocked_destination' | 'dns_error',
    message: string,
  ) {
    super(message);
    this.name = 'DestinationError';
  }
}

/**
 * The name servers of `WEBHOOK_DNS_SERVERS` (`address[:port]`, comma-separated), as a resolver; null when none are
 * named (the operating system's resolver is used). Throws on a malformed entry.
 */
export function resolverOf(servers: string): Resolver | null {
  const list = servers.split(',').map((x) => x.trim()).filter(Boolean);
  if (list.length === 0) return null;
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers(list);
  return resolver;
}

/**
 * The SSRF guard (docs/webhooks.md): resolves a host and checks EVERY address it resolves to; one refused
 * address refuses the host. Returns the checked addresses, which are the only ones a connection may use: the
 * name is resolved once per attempt, so an answer that changes between the check and the connection (DNS
 * rebinding) cannot lead the connection elsewhere.
 */
export class DestinationGuard {
  /**
   * @param resolver name servers to ask (`WEBHOOK_DNS_SERVERS`); null: the operating system's resolver
   *   (`getaddrinfo`, which also reads /etc/hosts).
   */
  constructor(
    private readonly allowPrivateNetworks: boolean,
    private readonly resolver: Resolver | null = null,
  ) {}

  async addresses(hostname: string): Promise<string[]> {
    const host = classifyHost(hostname);
    if (host.kind === 'invalid') throw new DestinationError('blocked_destination', 'the host is not a valid host name or address');
    if (host.kind === 'ip') {
      this.check(host.address.address, host.address.range);
      return [host.address.address];
    }
    if (host.kind === 'loopback_name' && !this.allowPrivateNetworks) {
      throw new DestinationError('blocked_destination', `${hostname} is a loopback name`);
    }
    const name = host.kind === 'name' ? host.name : hostname;
    let resolved: Array<{ address: string }>;
    try {
      resolved = this.resolver ? await this.resolveBoth(this.resolver, name) : await lookup(name, { all: true, verbatim: true });
    } catch (e) {
      throw new DestinationError('dns_error', `${name} did not resolve (${(e as { code?: string }).code ?? 'error'})`);
    }
    if (resolved.length === 0) throw new DestinationError('dns_error', `${name} has no address`);
    const out: string[] = [];
    for (const r of resolved) {
      const c = classifyAddress(r.address);
      if (!c) throw new DestinationError('blocked_destination', `${name} resolved to an unusable address`);
      this.check(c.address, c.range, name);
      out.push(c.address);
    }
    return out;
  }

  /** The A and AAAA records of `name`; fails only when neither family has an answer. */
  private async resolveBoth(resolver: Resolver, name: string): Promise<Array<{ address: string }>> {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
    if (v4.status === 'rejected' && v6.status === 'rejected') throw v4.reason;
    return [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])].map((address) => ({ address }));
  }

  private check(address: string, range: AddressRange, name?: string): void {
    if (!isAllowedRange(range, this.allowPrivateNetworks)) {
      const what = name ? `${name} resolves to ${address}` : address;
      throw new DestinationError('blocked_destination', `${what}, a ${range.replace('_', '-')} address: receivers must be on the public internet`);
    }
  }
}

export interface AttemptResult {
  ok: boolean;
  httpStatus: number | null;
  latencyMs: number;
  errorCode: AttemptErrorCode | null;
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

/** The bounded error code of a failed attempt (docs/webhooks.md), from the error and its causes. */
export function attemptErrorCode(e: unknown): AttemptErrorCode {
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

const RETRY_NEXT_ADDRESS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
const USER_AGENT = 'Verity-Webhooks/1.0 (+https://docs.verity.dev/webhooks)';
/** A response body is read (so the connection can be reused) up to this much, and dropped; past it the connection is. */
const RESPONSE_BODY_LIMIT = 64 * 1024;

/** Why a request is aborted once its attempt's time is up (the attempt's result is `timeout` by then). */
const timedOut = () => new Error('the attempt took longer than its timeout');

/**
 * The only code that talks HTTP to receivers. Every new connection goes through the guard: the host is
 * resolved, every address checked, and the socket is opened to a checked address (no second resolution,
 * so no DNS rebinding); TLS still verifies the certificate against the URL's host name. Redirects are not
 * followed, the whole attempt (connecting included) is bounded by `timeoutMs` (10 s), and the response body
 * is read up to 64 KiB and dropped, never stored.
 *
 * Requests go through undici's dispatcher interface with one timer each: the `request()` interface with an
 * `AbortSignal.timeout` and a body stream cost twice the CPU per attempt.
 */
export class ReceiverClient {
  private readonly agent: Agent;
  private readonly targets = new Map<string, { origin: string; path: string }>();

  constructor(
    private readonly guard: DestinationGuard,
    private readonly timeoutMs = ATTEMPT_TIMEOUT_MS,
  ) {
    const base = buildConnector({ timeout: timeoutMs });
    this.agent = new Agent({
      keepAliveTimeout: 4000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: (opts, callback) => {
        this.guard.addresses(opts.hostname).then(
          (addresses) => connectFirst(base, opts, addresses, 0, callback),
          (e: Error) => callback(e, null),
        );
      },
    });
  }

  /** POSTs `body` with the signing headers; never throws: a failure is an attempt result with its error code. */
  post(url: string, signing: WebhookHeaders, body: string): Promise<AttemptResult> {
    const started = performance.now();
    return new Promise<AttemptResult>((resolve) => {
      let status: number | null = null;
      let latencyMs = 0;
      let received = 0;
      let controller: Dispatcher.DispatchController | null = null;
      let done = false;
      const byStatus = (): AttemptResult => {
        const ok = status! >= 200 && status! < 300;
        return { ok, httpStatus: status, latencyMs, errorCode: ok ? null : 'http_status' };
      };
      const failed = (errorCode: AttemptErrorCode): AttemptResult => ({
        ok: false,
        httpStatus: null,
        latencyMs: Math.max(0, Math.round(performance.now() - started)),
        errorCode,
      });
      // once the status is known it decides the attempt, whatever happens to the rest of the body
      const finish = (failure: AttemptErrorCode | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(status !== null ? byStatus() : failed(failure ?? 'connection_error'));
      };
      const timer = setTimeout(() => {
        finish('timeout');
        // still connecting: the request is aborted as soon as it starts
        controller?.abort(timedOut());
      }, this.timeoutMs);
      try {
        const { origin, path } = this.target(url);
        this.agent.dispatch(
          {
            origin,
            path,
            method: 'POST',
            headers: { ...signing, 'content-type': 'application/json', 'user-agent': USER_AGENT },
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
              latencyMs = Math.max(0, Math.round(performance.now() - started));
            },
            onResponseData: (c, chunk) => {
              received += chunk.length;
              if (received > RESPONSE_BODY_LIMIT) c.abort(new Error('response body over the limit: connection dropped'));
            },
            onResponseEnd: () => finish(null),
            onResponseError: (_c, err) => finish(attemptErrorCode(err)),
          },
        );
      } catch (e) {
        finish(attemptErrorCode(e));
      }
    });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private target(url: string): { origin: string; path: string } {
    let t = this.targets.get(url);
    if (!t) {
      const u = new URL(url);
      t = { origin: u.origin, path: `${u.pathname}${u.search}` };
      if (this.targets.size >= 10_000) this.targets.clear();
      this.targets.set(url, t);
    }
    return t;
  }
}

type Connector = ReturnType<typeof buildConnector>;
type ConnectOptions = Parameters<Connector>[0];
type ConnectCallback = buildConnector.Callback;

/** Opens the connection to the first checked address that answers, trying the next on refusal or no route. */
function connectFirst(base: Connector, opts: ConnectOptions, addresses: string[], i: number, callback: ConnectCallback): void {
  base({ ...opts, hostname: addresses[i]! }, (err, socket) => {
    const code = (err as { code?: string } | null)?.code;
    if (err && i + 1 < addresses.length && code && RETRY_NEXT_ADDRESS.has(code)) {
      connectFirst(base, opts, addresses, i + 1, callback);
      return;
    }
    if (err) callback(err, null);
    else callback(null, socket!);
  });
}
