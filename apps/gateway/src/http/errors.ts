import { DomainError, httpStatusOf, toEnvelope, type ErrorData } from '@verity/errors';
import type { Logger } from '@verity/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Maps anything thrown while serving a request to the public error data; internals never leave. */
export function toPublicError(err: unknown, log: Logger, requestId: string): ErrorData {
  if (err instanceof DomainError) {
    return err.toData();
  }
  const e = err as { code?: string; statusCode?: number; status?: number; name?: string; cause?: unknown; options?: { cause?: unknown } };
  // Fastify body parsing and limits, possibly wrapped by Nest's adapter
  const cause = (e.options?.cause ?? e.cause) as { code?: string } | undefined;
  switch (cause?.code ?? e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new DomainError('invalid_json').toData();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('request_too_large').toData();
  }
  if (err instanceof SyntaxError && (e.statusCode === 400 || e.status === 400)) {
    return new DomainError('invalid_json').toData();
  }
  // Nest's HttpException for unmatched routes
  const status = e.statusCode ?? e.status ?? (typeof (err as { getStatus?: () => number }).getStatus === 'function'
    ? (err as { getStatus: () => number }).getStatus()
    : undefined);
  if (status === 400 || status === 415) return new DomainError('invalid_json').toData();
  if (status === 413) return new DomainError('request_too_large').toData();
  if (status === 404) return new DomainError('route_not_found').toData();
  if (status === 405) return new DomainError('route_not_found').toData();
  log.error({ err, request_id: requestId }, 'unhandled error');
  return new DomainError('internal_error').toData();
}

/** `Retry-After` of every 503 `service_unavailable`. */
export const RETRY_AFTER_SECONDS = 2;

export function sendError(
  reply: FastifyReply,
  req: FastifyRequest,
  data: ErrorData,
  docsBaseUrl: string,
): FastifyReply {
  const requestId = req.requestId;
  // a service busy or out of reach: when to try again (docs/errors.md); the client's backoff may wait longer
  if (data.code === 'service_unavailable') reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return reply
    .code(httpStatusOf(data.code))
    .header('content-type', 'application/json; charset=utf-8')
    .header('x-request-id', requestId)
    .send(toEnvelope(data, requestId, docsBaseUrl));
}
