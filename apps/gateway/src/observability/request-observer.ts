import { ROOT_CONTEXT, type Context, type Span } from '@opentelemetry/api';
import { markError, metrics, routeLabel, secondsSince, SpanKind, startSpan, tracingEnabled, withContext, type Logger } from '@verity/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const TRACE = Symbol('trace');

type Traced = FastifyRequest & { [TRACE]?: { span: Span; ctx: Context } };

/** What the access log line of a request says: nothing personal, no query string, no body, no secret. */
export interface AccessLogLine {
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  request_id: string;
  org_id?: string;
  key_prefix?: string;
}

/** How much of a key id the access log shows: enough to tell keys apart in a support case, not the whole id. */
const KEY_PREFIX_LENGTH = 12;

export function accessLogLine(req: FastifyRequest, status: number, durationMs: number): AccessLogLine {
  const line: AccessLogLine = {
    method: req.method,
    route: routeLabel(req.routeOptions?.url),
    status,
    duration_ms: Math.round(durationMs * 10) / 10,
    request_id: req.requestId || req.id,
  };
  const org = req.principal?.org_id ?? req.capture?.caller.org_id;
  if (org) line.org_id = org;
  if (req.principal?.key_id) line.key_prefix = req.principal.key_id.slice(0, KEY_PREFIX_LENGTH);
  return line;
}

/**
 * The gateway's per-request observation, registered before any other hook: RED metrics by route template
 * (`verity_http_*`), one access log line per request, and (when tracing is on) the request's server span, the
 * root of its trace, active while the access check and the handler run. A client's own `traceparent` is not
 * followed: the public edge starts every trace, so no caller can join its requests to another's trace.
 */
export function observeRequests(fastify: FastifyInstance, log: Logger): void {
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
      access.info(accessLogLine(req, status, seconds * 1000), 'request');
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
