import { ROOT_CONTEXT, type Context, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from './logger.js';
import { metrics, routeLabel, secondsSince } from './metrics.js';
import { markError, SpanKind, startSpan, tracingEnabled, withContext } from './tracing.js';

const TRACE = Symbol('trace');

type Traced = FastifyRequest & { [TRACE]?: { span: Span; ctx: Context } };

/**
 * Per-request observation of a public HTTP server (the gateway, the console), registered before any other hook:
 * RED metrics by route template (`verity_http_*`), one access log line per request (`lineOf` says what it holds:
 * nothing personal), and (when tracing is on) the request's server span, the root of its trace, active while the
 * hooks and the handler run. A client's own `traceparent` is not followed: the public edge starts every trace, so
 * no caller can join its requests to another's trace.
 */
export function observeHttpRequests(fastify: FastifyInstance, log: Logger, lineOf: (req: FastifyRequest, status: number, durationMs: number) => object): void {
  const access = log.child({ log: 'access' });
  fastify.addHook('onRequest', (req, reply, done) => {
    const started = process.hrtime.bigint();
    metrics.httpInFlight.inc();
    reply.raw.once('close', () => {
      metrics.httpInFlight.dec();
      const route = routeLabel(req.routeOptions?.url);
      const status = reply.raw.statusCode;
      const seconds = secondsSince(started);
      metrics.httpRequests.inc({ method: req.method, route, status: String(status) });
      metrics.httpDuration.observe({ method: req.method, route }, seconds);
      access.info(lineOf(req, status, seconds * 1000), 'request');
      const t = (req as Traced)[TRACE];
      if (t) {
        t.span.setAttribute('http.response.status_code', status);
        if (status >= 500) markError(t.span);
        t.span.end();
      }
    });
    if (!tracingEnabled()) {
      done();
      return;
    }
    const route = routeLabel(req.routeOptions?.url);
    const t = startSpan(`HTTP ${req.method} ${route}`, SpanKind.SERVER, { 'http.request.method': req.method, 'http.route': route }, ROOT_CONTEXT)!;
    (req as Traced)[TRACE] = t;
    withContext(t.ctx, done);
  });
  // the body is read between onRequest and the handler, in the socket's callbacks: the span is made active again
  fastify.addHook('preHandler', (req, _reply, done) => {
    const t = (req as Traced)[TRACE];
    if (t) withContext(t.ctx, done);
    else done();
  });
}
