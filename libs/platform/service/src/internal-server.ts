import http from 'node:http';
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { DomainError, httpStatusOf, type ErrorData } from '@verity/errors';
import { z } from 'zod';
import type { Readable } from 'node:stream';
import { BodyVerifier, EMPTY_SHA256, verifyInternalRequest, type InternalCaller } from './internal-http.js';
import type { Logger } from './logger.js';
import { attachSeal, PrincipalVerifier, sealLabel } from './principal-seal.js';
import { metrics, routeLabelOf, secondsSince } from './metrics.js';
import { extractHttpTrace, inSpan, SpanKind, tracingEnabled } from './tracing.js';
import { toErrorData } from './nats.js';

/** Configuration of a service that also serves byte streams to the gateway over internal HTTP. */
export const internalHttpEnv = {
  /** Port of the internal HTTP server (the gateway's ID_SCAN_URL / EVIDENCE_URL point at it). */
  INTERNAL_PORT: z.coerce.number().int().min(0).max(65535),
  /** Listen address: loopback locally, 0.0.0.0 in a container. */
  HOST: z.string().default('127.0.0.1'),
  /**
   * The region's own secret, shared by its gateway and the services it streams bytes to: every request must
   * carry the gateway's signature made with it. No default: the operator creates it per region.
   */
  INTERNAL_AUTH_SECRET: z.string().min(32),
};
export type InternalHttpConfig = z.infer<z.ZodObject<typeof internalHttpEnv>>;

/** What a handler gets of a request: its headers, and its body as verified against the signature. */
export interface InternalRequest {
  headers: http.IncomingHttpHeaders;
  /**
   * The body, passed on as it arrives; its end comes only once the whole body matched its signature, otherwise
   * the stream fails (and the request is answered 401 whatever the handler throws).
   */
  body: Readable;
}

export type InternalHandler = (
  req: InternalRequest,
  res: http.ServerResponse,
  caller: InternalCaller,
  params: string[],
) => Promise<void>;

interface Route {
  method: string;
  pattern: RegExp;
  handler: InternalHandler;
  /** The metrics label: the pattern with its parameters named, never a raw path. */
  label: string;
}

export interface InternalServerOptions {
  name: string;
  region: string;
  port: number;
  host: string;
  secret: string;
  /** The edges' public keys: every request's principal must carry an edge's signature (principal-seal.ts). */
  principals: PrincipalVerifier;
  log: Logger;
}

/** Answers `{ ok: true, data }`, the shape the gateway relays. */
export function sendData(res: http.ServerResponse, data: unknown): void {
  const body = JSON.stringify({ ok: true, data });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** How long the rest of a request refused part-way may take to arrive (and be discarded) after the answer. */
export const LINGER_MS = 5000;

/**
 * Answers `{ ok: false, error }` with the catalogue's status. When `req` is given and was not read to its end (an
 * upload refused part-way), the rest of it is discarded once the answer is out (see `discardRest`).
 */
export function sendError(res: http.ServerResponse, error: ErrorData, req?: http.IncomingMessage): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ ok: false, error });
  res.writeHead(httpStatusOf(error.code), { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body, () => {
    if (req && !req.complete) discardRest(req);
  });
}

/**
 * After an early answer: the rest of the request body is read and dropped (never kept), so that the connection
 * can serve the next request, and if it has not all arrived within `ms` the connection is closed. It is not
 * closed at once: closing a socket with unread input makes the kernel send a reset, and a reset can make the
 * peer lose the answer before reading it.
 */
export function discardRest(req: http.IncomingMessage, ms = LINGER_MS): void {
  const socket = req.socket;
  // the answer's end can come after the socket was released (the connection closed meanwhile)
  if (!socket || socket.destroyed) return;
  req.unpipe();
  req.removeAllListeners('data');
  req.resume();
  const timer = setTimeout(() => socket.destroy(), ms);
  timer.unref();
  // a kept-alive connection serves many requests: nothing of this one stays attached to its socket
  const done = () => {
    clearTimeout(timer);
    req.off('end', done);
    socket.off('close', done);
  };
  req.once('end', done);
  socket.once('close', done);
}

/**
 * The internal HTTP side of a service: only requests signed by the region's gateway (method, path and query,
 * time of signing, body digest, principal, request id and deadline: HMAC with the region's secret) of this
 * region, within the signature window and before their deadline, reach a handler; the body reaches it through
 * a `BodyVerifier`. Answers are
 * JSON `{ ok, data | error }` or, for a binary route, the bytes the handler streams. Closing stops accepting,
 * lets requests in flight finish (up to `graceMs`) and then cuts the rest.
 */
export class InternalHttpServer {
  private readonly routes: Route[] = [];
  private readonly server: http.Server;

  constructor(private readonly opts: InternalServerOptions) {
    this.server = http.createServer((req, res) => void this.observed(req, res));
    // a request must arrive whole within a minute: slow bodies are cut off
    this.server.requestTimeout = 60_000;
    this.server.headersTimeout = 10_000;
    // longer than the gateway pool's idle timeout (10 s), so the gateway, not this side, closes idle connections
    this.server.keepAliveTimeout = 15_000;
    // well above a gateway pool's size; connections beyond it are refused
    this.server.maxConnections = 1024;
  }

  route(method: 'GET' | 'POST' | 'PUT', pattern: RegExp, handler: InternalHandler): this {
    this.routes.push({ method, pattern, handler, label: routeLabelOf(pattern) });
    return this;
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port, this.opts.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const port = (this.server.address() as AddressInfo).port;
    this.opts.log.info({ port }, 'internal http listening');
    return port;
  }

  async close(graceMs = 10_000): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const timer = setTimeout(() => this.server.closeAllConnections(), graceMs);
    await closed;
    clearTimeout(timer);
  }

  /**
   * A request counted and timed by route (`verity_http_*`) once its answer is out, and served in a span that
   * continues the gateway's trace (`traceparent`) when tracing is on.
   */
  private async observed(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0]!;
    const route = this.routes.find((r) => r.method === method && r.pattern.test(path))?.label ?? 'unmatched';
    metrics.httpInFlight.inc();
    res.once('close', () => {
      metrics.httpInFlight.dec();
      metrics.httpRequests.inc({ method, route, status: String(res.statusCode) });
      metrics.httpDuration.observe({ method, route }, secondsSince(started));
    });
    if (!tracingEnabled()) return this.dispatch(req, res);
    await inSpan(`HTTP ${method} ${route}`, SpanKind.SERVER, { 'http.request.method': method, 'http.route': route }, async (span) => {
      await this.dispatch(req, res);
      span?.setAttribute('http.response.status_code', res.statusCode);
    }, extractHttpTrace(req.headers));
  }

  private async dispatch(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const requestId = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : 'req_internal';
    const log = this.opts.log.child({ request_id: requestId });
    try {
      const verified = verifyInternalRequest(this.opts.secret, req);
      const caller = verified?.caller;
      if (!verified || !caller || caller.principal.region !== this.opts.region || (verified.contentSha256 === EMPTY_SHA256 && hasBody(req))) {
        log.warn({ method: req.method, path: req.url?.split('?')[0] }, 'internal request without a valid signature refused');
        sendError(res, unsigned(), req);
        return;
      }
      if (!Number.isFinite(caller.deadline) || Date.now() >= caller.deadline) {
        sendError(res, new DomainError('service_unavailable').toData(), req);
        return;
      }
      // the principal itself: signed by the edge that authenticated the request, like on the bus (never unsigned here)
      const refused = this.opts.principals.check(caller.principal, caller.seal, caller.requestId);
      if (refused) {
        log.warn({ method: req.method, path: req.url?.split('?')[0], reason: refused, ...sealLabel(caller.seal) }, 'internal request with a principal refused');
        sendError(res, refused === 'expired' ? new DomainError('service_unavailable').toData() : unsigned(), req);
        return;
      }
      attachSeal(caller.principal, caller.seal!);
      const body = new BodyVerifier(this.opts.secret, verified, () => req.trailers);
      // a request cut off mid-body fails its reader; a reader that stops early leaves the request to sendError
      req.once('error', (e) => body.destroy(e));
      req.once('aborted', () => body.destroy(new Error('the request was aborted')));
      req.pipe(body);
      const path = (req.url ?? '/').split('?')[0]!;
      for (const r of this.routes) {
        const m = r.pattern.exec(path);
        if (!m) continue;
        if (r.method !== req.method) break;
        try {
          await r.handler({ headers: req.headers, body }, res, caller, m.slice(1).map((s) => safeDecode(s)));
        } catch (e) {
          if (!body.failed) throw e;
          log.warn({ method: req.method, path }, 'internal request body did not match its signature');
          sendError(res, unsigned(), req);
        }
        return;
      }
      sendError(res, new DomainError('route_not_found').toData(), req);
    } catch (e) {
      sendError(res, toErrorData(e, log, `${this.opts.name} ${req.method} ${req.url?.split('?')[0] ?? ''}`), req);
    }
  }
}

function unsigned(): ErrorData {
  return new DomainError('authentication_required', { message: 'Internal requests must be signed by the gateway.' }).toData();
}

function hasBody(req: http.IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * A service's internal HTTP side as a Nest provider: the subclass adds its routes to `server`; it listens once
 * the application has started and closes (letting requests in flight finish) before the application stops.
 */
export abstract class InternalHttpHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly server: InternalHttpServer;
  private boundPort = 0;

  protected constructor(name: string, cfg: InternalHttpConfig & { REGION: string; PRINCIPAL_VERIFY_KEYS: string }, log: Logger) {
    this.server = new InternalHttpServer({
      name,
      region: cfg.REGION,
      port: cfg.INTERNAL_PORT,
      host: cfg.HOST,
      secret: cfg.INTERNAL_AUTH_SECRET,
      principals: new PrincipalVerifier(cfg.PRINCIPAL_VERIFY_KEYS),
      log,
    });
  }

  /** The bound port (INTERNAL_PORT 0 picks a free one: tests). */
  get port(): number {
    return this.boundPort;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.boundPort = await this.server.listen();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server.close();
  }
}
