import { observeHttpRequests, routeLabel, type Logger } from '@verity/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';

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

/** The gateway's per-request observation: RED metrics, its access log line and the root span of each request. */
export function observeRequests(fastify: FastifyInstance, log: Logger): void {
  observeHttpRequests(fastify, log, accessLogLine);
}
