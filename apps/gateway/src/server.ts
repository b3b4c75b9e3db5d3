import type { Socket } from 'node:net';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/transport-node';
import { DomainError, httpStatusOf, toEnvelope, type ErrorCode } from '@verity/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Redis } from 'ioredis';
import { newId } from '@verity/keys';
import type { Logger } from '@verity/platform';
import { errorPage, PAGE_CACHE_CONTROL, SECURITY_HEADERS } from '@verity/capture-page';
import { AccessService } from './access/access.service.js';
import { Routes } from './access/routes.js';
import { GatewayModule } from './app.module.js';
import type { GatewayConfig } from './config.js';
import { EnvelopeFilter } from './http/envelope.filter.js';
import { noteBody, registerIdempotency } from './idempotency/idempotency.hooks.js';
import { IdempotencyStore } from './idempotency/idempotency-store.js';
import { sendError } from './http/errors.js';
import { normalisePath } from './http/path.js';
import { observeRequests } from './observability/request-observer.js';

const INVALID_PATH = Symbol('invalid path');

/**
 * The gateway as a Nest application on Fastify, not yet listening: the edge (path spelling, timeouts, access
 * hook, body parsers) around the controllers. `main.ts` runs it; tests start it on a free port.
 */
export async function createGateway(cfg: GatewayConfig, log: Logger, nc: NatsConnection, redis: Redis): Promise<NestFastifyApplication> {
  const proxies = cfg.TRUSTED_PROXIES.split(',').map((s) => s.trim()).filter(Boolean);
  const adapter = new FastifyAdapter({
    trustProxy: proxies.length > 0 ? proxies : false,
    bodyLimit: cfg.JSON_BODY_LIMIT,
    genReqId: () => newId('request'),
    requestIdHeader: false,
    return503OnClosing: true,
    exposeHeadRoutes: false,
    // Node's own timeouts (docs/configuration.md): the whole request, its headers, the wait for the next request
    // on a kept-alive connection, and a connection with no traffic at all
    requestTimeout: cfg.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: cfg.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    connectionTimeout: cfg.HTTP_IDLE_TIMEOUT_MS,
    http: { headersTimeout: cfg.HTTP_HEADERS_TIMEOUT_MS, connectionsCheckingInterval: Math.min(1000, cfg.HTTP_HEADERS_TIMEOUT_MS) },
    // a request cut off by a timeout is answered 408 in the envelope while nothing of an answer has left yet
    clientErrorHandler: (err: Error & { code?: string }, socket: Socket) => answerClientError(err, socket, cfg.DOCS_BASE_URL),
    // one spelling of every path before routing and authentication; a structure-changing encoding is refused
    rewriteUrl: (req: IncomingMessage) => {
      const n = normalisePath(req.url ?? '/');
      if (n.ok) return n.url;
      (req as IncomingMessage & { [INVALID_PATH]?: boolean })[INVALID_PATH] = true;
      return '/';
    },
    // a long path segment must reach the routes (404 without echo), not the router's 414 that echoes the path
    routerOptions: { maxParamLength: 16 * 1024 },
    // a path the router cannot decode (bad percent-encoding) names no route: 404 in the envelope, never the
    // router's own 400 that echoes the path
    frameworkErrors: (_err: Error, req: FastifyRequest, reply: FastifyReply) => {
      req.requestId = req.id;
      void sendError(reply, req, new DomainError('route_not_found').toData(), cfg.DOCS_BASE_URL);
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(cfg, log, nc, redis), adapter, {
    logger: ['error', 'warn'],
    abortOnError: false,
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  // a bound on open connections: past it Node closes a new connection at once, and those open are still served
  fastify.server.maxConnections = cfg.HTTP_MAX_CONNECTIONS;
  const access = app.get(AccessService);
  const routes = app.get(Routes);
  // first of all hooks: every request is counted, logged once and (when tracing) the root of its trace
  observeRequests(fastify, log);

  fastify.decorateRequest('principal', null);
  fastify.decorateRequest('capture', null);
  fastify.decorateRequest('requestId', '');
  // Only JSON bodies; anything else where JSON is expected is 400 invalid_json.
  fastify.removeAllContentTypeParsers();
  // read as bytes, so that an Idempotency-Key's fingerprint covers the body exactly as sent
  const json = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    noteBody(req, body);
    // the default parser answers through `done`; its type allows a promise, which it never returns
    void json(req, body.toString('utf8'), done);
  });
  // Multipart is streamed, unread, to the routes declared to take it; anywhere else it is not JSON.
  const multipart = routes.withBody('multipart');
  fastify.addContentTypeParser('multipart/form-data', (req, payload, done) => {
    if (multipart.has(`${req.method} ${req.routeOptions.url}`)) done(null, payload);
    else done(new DomainError('invalid_json'), undefined);
  });
  // An image body (a capture image) is the raw body, of whatever declared type: streamed, unread, to the evidence service.
  const image = routes.withBody('image');
  fastify.addContentTypeParser('*', (req, payload, done) => {
    if (image.has(`${req.method} ${req.routeOptions.url}`)) done(null, payload);
    else done(new DomainError('invalid_json'), undefined);
  });
  // Fail closed: a /v1 route not declared with @Route (access/routes.ts) would be reachable unauthenticated.
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (route.url.startsWith('/v1') && !routes.access(method, route.url)) {
        throw new Error(`route ${method} ${route.url} is not declared with @Route (apps/gateway/src/access/routes.ts)`);
      }
    }
  });
  fastify.addHook('onRequest', async (req, reply) => {
    req.requestId = req.id;
    reply.header('x-request-id', req.id);
    if ((req.raw as IncomingMessage & { [INVALID_PATH]?: boolean })[INVALID_PATH]) throw new DomainError('invalid_path');
    const path = req.url.split('?')[0]!;
    // the matched route decides as well as the path, so no spelling of a /v1 route escapes the access check
    if (path === '/v1' || path.startsWith('/v1/') || req.routeOptions.url?.startsWith('/v1')) await access.authorize(req, reply);
    // the hosted capture page counts against the pre-authentication budget per address (its assets do not), and
    // says so as a page of its own
    else if (path.startsWith('/verify/')) {
      if (!path.startsWith('/verify/assets/') && !(await access.pageAllowed(req, reply))) {
        const page = errorPage('busy');
        await reply.code(page.status).headers(SECURITY_HEADERS).header('cache-control', PAGE_CACHE_CONTROL).header('content-type', 'text/html; charset=utf-8').send(page.html);
      }
    }
    // other routes outside /v1 that are declared to count against it (readiness, the erasure key set)
    else {
      const declared = routes.access(req.method, req.routeOptions.url);
      if (declared?.auth === 'public' && declared.ipLimited) await access.limitIp(req, reply);
    }
  });
  // Idempotency-Key on every POST under /v1: after the access hook, so that replays are authenticated and counted
  registerIdempotency(fastify, new IdempotencyStore(redis), { prefix: cfg.REDIS_KEY_PREFIX, rpcTimeoutMs: cfg.RPC_TIMEOUT_MS, log, streamed: routes.streamedPosts() });
  // Nest installs the Fastify error handler at init; it hands hook and parser errors to this filter too.
  app.useGlobalFilters(new EnvelopeFilter(log, cfg.DOCS_BASE_URL));
  return app;
}

/**
 * What the HTTP server itself refuses before there is a request, answered in the envelope with a request id of
 * its own when no answer has started on the connection: a timeout (headers or whole request too slow) is 408
 * `request_timeout`, a request line and headers over the 16 KiB the parser takes 431 `request_header_too_large`,
 * anything else that is not HTTP 400 `malformed_request`. Nothing of the request is repeated; the connection is
 * closed either way.
 */
function answerClientError(err: Error & { code?: string }, socket: Socket, docsBaseUrl: string): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const code: ErrorCode = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : err.code === 'HPE_HEADER_OVERFLOW' ? 'request_header_too_large' : 'malformed_request';
    const requestId = newId('request');
    const body = JSON.stringify(toEnvelope(new DomainError(code).toData(), requestId, docsBaseUrl));
    const status = httpStatusOf(code);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
