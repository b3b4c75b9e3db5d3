import { DomainError } from '@verity/errors';
import type { Logger } from '@verity/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  decideOnRecord,
  fingerprint,
  IDEMPOTENCY_HEADER,
  IDEMPOTENCY_TTL_MS,
  LEASE_MARGIN_MS,
  openBody,
  ORIGINAL_REQUEST_HEADER,
  readIdempotencyKey,
  recordKey,
  REPLAYED_HEADER,
  sealBody,
} from './idempotency-key.js';
import { IdempotencyStoreUnavailable, type IdempotencyStore } from './idempotency-store.js';

const STATE = Symbol('idempotency');

interface State {
  key: string;
  /** The fingerprint: set by the JSON body parser, else (no body) by the preHandler. */
  fp?: string;
  /** The Redis key this request holds the lease of, until its answer is stored or the key released. */
  held?: string;
  /** Whose key it is: `org_…:mode:key_…` (the API key that sent it), or `capture:ses_…`. */
  scope?: string;
}

type WithState = FastifyRequest & { [STATE]?: State };

/**
 * True for a POST that sends an Idempotency-Key (valid or not: the idempotency hook judges it). The access hook
 * lets such a capture request past a closed or expired capture, so that a retry can still get its first answer.
 */
export function carriesIdempotencyKey(req: FastifyRequest): boolean {
  return req.method === 'POST' && req.headers[IDEMPOTENCY_HEADER] !== undefined;
}

/** Called by the JSON body parser with the body's exact bytes: fingerprinted when the request has a key. */
export function noteBody(req: FastifyRequest, body: Buffer): void {
  const s = (req as WithState)[STATE];
  if (s) s.fp = fingerprint(req.method, req.url, body);
}

/**
 * Idempotency-Key (docs/errors.md#idempotency, docs/decisions.md "Idempotency") for every POST under /v1, registered after the
 * access hook so that a replay is authenticated and counted like any request:
 * - onRequest: the header is validated (422 `validation_error` naming it);
 * - preHandler (the body is read): the key is claimed in Redis with a lease, or the request is answered from
 *   the record that holds it (replay, 422 `idempotency_key_reused`, 409 `idempotency_key_in_use`);
 * - onSend: the answer is kept for 24 hours, a 5xx releases the key.
 */
export function registerIdempotency(
  fastify: FastifyInstance,
  store: IdempotencyStore,
  opts: {
    prefix: string;
    rpcTimeoutMs: number;
    log: Logger;
    /** Paths whose body is streamed, never buffered: the header is validated there but not honoured (docs/decisions.md). */
    streamed: ReadonlySet<string>;
  },
): void {
  const leaseMs = opts.rpcTimeoutMs + LEASE_MARGIN_MS;

  fastify.addHook('onRequest', async (req) => {
    const route = req.routeOptions.url;
    if (req.method !== 'POST' || !route?.startsWith('/v1')) return;
    const key = readIdempotencyKey(req.headers[IDEMPOTENCY_HEADER], req.raw.rawHeaders);
    if (key !== undefined && !opts.streamed.has(route)) (req as WithState)[STATE] = { key };
  });

  fastify.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    const s = (req as WithState)[STATE];
    if (!s) return;
    // one API key's records: another key of the organization (a publishable one, say) never replays its answers
    const scope = req.principal ? `${req.principal.org_id}:${req.principal.mode}:${req.principal.key_id}` : req.capture ? `capture:${req.capture.caller.session_id}` : null;
    if (scope === null) throw new Error('idempotent request reached without a caller');
    const fp = (s.fp ??= fingerprint(req.method, req.url, null));
    const key = recordKey(opts.prefix, scope, s.key);
    s.scope = scope;
    let held;
    try {
      held = await store.claim(key, req.requestId, fp, leaseMs);
    } catch (e) {
      if (!(e instanceof IdempotencyStoreUnavailable)) throw e;
      // not logged per request: the access log has the 503, readiness and the rate limiter report Redis
      throw new DomainError('service_unavailable', { message: 'The Idempotency-Key cannot be checked right now; nothing was run. Retry with backoff.' });
    }
    if (held === null) {
      s.held = key;
      // a capture past its end, let through by the access hook for a possible replay: the refusal is this key's answer
      if (req.capture?.refusal) throw req.capture.refusal;
      return;
    }
    const { replay } = decideOnRecord(held, fp);
    reply.code(replay.status).header(REPLAYED_HEADER, 'true').header(ORIGINAL_REQUEST_HEADER, replay.owner);
    if (replay.content_type !== null) reply.header('content-type', replay.content_type);
    return reply.send(openBody(scope, s.key, replay.body));
  });

  fastify.addHook('onSend', async (req, reply, payload) => {
    const s = (req as WithState)[STATE];
    const key = s?.held;
    if (!key) return payload;
    s.held = undefined;
    const status = reply.statusCode;
    const storable = payload === null || payload === undefined || typeof payload === 'string' || Buffer.isBuffer(payload);
    try {
      if (status >= 500 || !storable) {
        await store.release(key, req.requestId);
      } else {
        const type = reply.getHeader('content-type');
        const stored = await store.finish(
          key,
          {
            state: 'done',
            owner: req.requestId,
            fp: s.fp!,
            status,
            content_type: typeof type === 'string' ? type : null,
            body: sealBody(s.scope!, s.key, Buffer.isBuffer(payload) ? payload : Buffer.from((payload as string | null | undefined) ?? '')),
          },
          IDEMPOTENCY_TTL_MS,
        );
        if (!stored) opts.log.warn({ request_id: req.requestId }, 'idempotency: the lease ran out and the key was taken; answer not kept');
      }
    } catch (e) {
      // the answer goes out anyway; the lease expires by itself
      opts.log.warn({ err: e, request_id: req.requestId }, 'idempotency: the answer could not be kept');
    }
    return payload;
  });
}
