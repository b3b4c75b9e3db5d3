import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DomainError } from '@verity/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { newId } from '@verity/keys';
import { connectNats, createLogger, createRedis, explainStartupFailure } from '@verity/platform';
import { errorPage, PAGE_CACHE_CONTROL, SECURITY_HEADERS } from '@verity/capture-page';
import { AccessService } from './access/access.service.js';
import { ROUTES } from './access/routes.js';
import { GatewayModule } from './app.module.js';
import { loadGatewayConfig, type GatewayConfig } from './config.js';
import { EnvelopeFilter } from './http/envelope.filter.js';
import { clientErrorHandler } from './http/client-error.js';
import { sendError } from './http/errors.js';

let cfg: GatewayConfig;
try {
  cfg = loadGatewayConfig();
} catch (e) {
  process.stderr.write(`gateway: ${(e as Error).message}\n`);
  process.exit(78);
}
const log = createLogger('gateway', cfg.REGION, cfg.LOG_LEVEL);

try {
  const nc = await connectNats(cfg.NATS_URL, `gateway-${cfg.REGION}`);
  const redis = createRedis(cfg.REDIS_URL, `gateway-${cfg.REGION}`);
  redis.on('error', () => undefined); // reported through readiness; requests fail open

  const proxies = cfg.TRUSTED_PROXIES.split(',').map((s) => s.trim()).filter(Boolean);
  const adapter = new FastifyAdapter({
    trustProxy: proxies.length > 0 ? proxies : false,
    bodyLimit: cfg.JSON_BODY_LIMIT,
    genReqId: () => newId('request'),
    requestIdHeader: false,
    return503OnClosing: true,
    exposeHeadRoutes: false,
    // a long path segment must reach the routes (404 without echo), not the router's 414 that echoes the path
    routerOptions: { maxParamLength: 16 * 1024 },
    // a path the router cannot decode (bad percent-encoding) names no route: 404 in the envelope, never the
    // router's own 400 that echoes the path
    // what the HTTP parser refuses (headers over 16 KiB, not HTTP) is answered in the envelope too
    clientErrorHandler: clientErrorHandler(cfg.DOCS_BASE_URL),
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
  const access = app.get(AccessService);

  fastify.decorateRequest('principal', null);
  fastify.decorateRequest('capture', null);
  fastify.decorateRequest('requestId', '');
  // Only JSON bodies; anything else where JSON is expected is 400 invalid_json.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, fastify.getDefaultJsonParser('error', 'error'));
  // Multipart is streamed, unread, to the one route that takes it; anywhere else it is not JSON.
  fastify.addContentTypeParser('multipart/form-data', (req, payload, done) => {
    if (req.routeOptions.url === '/v1/id-verification') done(null, payload);
    else done(new DomainError('invalid_json'), undefined);
  });
  // A capture image is the raw body, of whatever declared type: streamed, unread, to the evidence service.
  fastify.addContentTypeParser('*', (req, payload, done) => {
    if (req.method === 'PUT' && req.routeOptions.url === '/v1/capture/images/:artifact') done(null, payload);
    else done(new DomainError('invalid_json'), undefined);
  });
  // Fail closed: a /v1 route without an entry in the access table would be reachable unauthenticated.
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (route.url.startsWith('/v1') && !ROUTES[`${method} ${route.url}`]) {
        throw new Error(`route ${method} ${route.url} has no entry in the access table (apps/gateway/src/access/routes.ts)`);
      }
    }
  });
  fastify.addHook('onRequest', async (req, reply) => {
    req.requestId = req.id;
    reply.header('x-request-id', req.id);
    if (req.url === '/v1' || req.url.startsWith('/v1/')) await access.authorize(req, reply);
    // the hosted capture page counts against the same pre-authentication budget per address (its assets do not)
    else if (req.url.startsWith('/verify/') && !req.url.startsWith('/verify/assets/') && !(await access.pageAllowed(req, reply))) {
      const page = errorPage('busy');
      await reply.code(page.status).headers(SECURITY_HEADERS).header('cache-control', PAGE_CACHE_CONTROL).header('content-type', 'text/html; charset=utf-8').send(page.html);
    }
  });
  // Nest installs the Fastify error handler at init; it hands hook and parser errors to this filter too.
  app.useGlobalFilters(new EnvelopeFilter(log, cfg.DOCS_BASE_URL));
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.listen(cfg.PORT, cfg.HOST);
  log.info({ port: cfg.PORT }, 'ready');
} catch (e) {
  log.fatal({ err: e }, 'failed to start');
  process.stderr.write(`gateway: ${explainStartupFailure(e, cfg)}\n`);
  process.exit(1);
}
