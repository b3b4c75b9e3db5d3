import type { Principal } from '@verity/contracts';
import { DomainError, isErrorCode, type ErrorData } from '@verity/errors';
import { Agent, request, type Dispatcher } from 'undici';
import { signInternalRequest, type STREAMED_BODY } from './internal-http.js';
import type { Logger } from './logger.js';
import type { RpcClient } from './nats.js';
import { traceHttpHeaders } from './tracing.js';

/** Who an edge's internal request is made for: the principal it authenticated, and the request's id. */
export interface InternalHttpCaller {
  principal: Principal;
  requestId: string;
}

/**
 * An edge's client of the region's internal HTTP (the byte streams NATS cannot carry: evidence images, uploads),
 * used by the gateway's `StreamProxy` and the console's evidence images. Every request is signed
 * (`signInternalRequest`) with the principal and the edge's seal of it, as on the bus, so the service forwards the
 * seal with its own calls; a service's answer `{ ok, data | error }` is read as its data or the `DomainError` it
 * carries.
 */
export class InternalHttpClient {
  private readonly agent: Agent;

  constructor(
    private readonly secret: string,
    /** The edge's RPC client: its signer seals the principal of each request. */
    private readonly rpc: Pick<RpcClient, 'sealFor'>,
    private readonly log: Logger,
    connections = 64,
  ) {
    this.agent = new Agent({ keepAliveTimeout: 10_000, connections });
  }

  /** The headers of a request to `url`: the trace's context beside the signed headers (not part of what is signed). */
  headers(url: URL, method: string, c: InternalHttpCaller, timeoutMs: number, body: Buffer | typeof STREAMED_BODY = Buffer.alloc(0)): Record<string, string> {
    const deadline = Date.now() + timeoutMs;
    const seal = this.rpc.sealFor(c.principal, c.requestId, deadline);
    return {
      ...traceHttpHeaders(),
      ...signInternalRequest(this.secret, { method, path: url.pathname + url.search }, { principal: c.principal, requestId: c.requestId, deadline, ...(seal ? { seal } : {}) }, body),
    };
  }

  /**
   * A signed GET answered 200, its body not yet read. No address (the service is not configured) or no answer is
   * `service_unavailable`; any other status is the service's error, thrown as it sent it.
   */
  async get(url: string | URL | undefined, c: InternalHttpCaller, timeoutMs: number): Promise<Dispatcher.ResponseData> {
    if (!url) throw new DomainError('service_unavailable');
    const target = new URL(url);
    let res: Dispatcher.ResponseData;
    try {
      res = await request(target, { method: 'GET', dispatcher: this.agent, headers: this.headers(target, 'GET', c, timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    } catch (e) {
      this.log.warn({ err: e, request_id: c.requestId }, 'internal GET failed');
      throw new DomainError('service_unavailable');
    }
    if (res.statusCode !== 200) {
      await this.answer(() => res.body.json(), c);
      throw new DomainError('internal_error');
    }
    return res;
  }

  /** A service's JSON answer: its `data`, or its error thrown as a `DomainError` (an unreadable answer: `internal_error`). */
  async answer(json: () => Promise<unknown>, c: InternalHttpCaller): Promise<unknown> {
    let parsed: { ok?: boolean; data?: unknown; error?: ErrorData };
    try {
      parsed = (await json()) as typeof parsed;
    } catch (e) {
      this.log.error({ err: e, request_id: c.requestId }, 'internal service answered non-JSON');
      throw new DomainError('internal_error');
    }
    if (parsed.ok) return parsed.data;
    if (parsed.error && isErrorCode(parsed.error.code)) throw DomainError.fromData(parsed.error);
    throw new DomainError('internal_error');
  }
}
