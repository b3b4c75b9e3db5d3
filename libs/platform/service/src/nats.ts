import {
  connect,
  createInbox,
  headers as natsHeaders,
  nkeyAuthenticator,
  type ConnectionOptions,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import { DomainError, httpStatusOf, isErrorCode, type ErrorData } from '@verity/errors';
import {
  CONSOLE_ROLES,
  natsInboxPrefix,
  qualify,
  type ConsoleActor,
  type ConsoleRole,
  REQUEST_ID_HEADER,
  type EventContracts,
  type EventSubject,
  type Principal,
  type PrincipalSeal,
  type ReqOf,
  type ResOf,
  type RpcReply,
  type RpcRequest,
  type Subject,
} from '@verity/contracts';
import { isDatabaseUnavailable } from './database.js';
import type { Logger } from './logger.js';
import { metrics, secondsSince } from './metrics.js';
import { sealLabel, sealOf, type PrincipalSigner, type PrincipalVerifier } from './principal-seal.js';
import { extractTraceHeaders, injectTraceHeaders, inSpan, SpanKind } from './tracing.js';
import { mayHoldUnstorableText, unstorableInputError } from './storable-text.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

export function encodeJson(v: unknown): Uint8Array {
  return enc.encode(JSON.stringify(v));
}
export function decodeJson<T>(data: Uint8Array): T {
  return JSON.parse(dec.decode(data)) as T;
}

/** How a process proves its NATS identity (docs/security.md, "NATS"): a password or an NKEY seed, over TLS when configured. */
export interface NatsCredentials {
  /** The identity (`NATS_GRANTS` in @verity/contracts): the user name, and the inbox prefix only it may read. */
  identity?: string;
  password?: string;
  /** An NKEY user seed (`SU…`), instead of a password. */
  nkeySeed?: string;
  /** PEM files: the CA that signed the server's certificate, and this client's certificate and key (mutual TLS). */
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
}

/** The credentials of `natsEnv` (NATS_USER, NATS_PASSWORD, NATS_NKEY_SEED, NATS_TLS_*); `identity` when NATS_USER is unset. */
export function natsCredentialsOf(
  cfg: { NATS_USER?: string; NATS_PASSWORD?: string; NATS_NKEY_SEED?: string; NATS_TLS_CA?: string; NATS_TLS_CERT?: string; NATS_TLS_KEY?: string } | NodeJS.ProcessEnv,
  identity: string,
): NatsCredentials {
  return {
    identity: cfg.NATS_USER || identity,
    password: cfg.NATS_PASSWORD || undefined,
    nkeySeed: cfg.NATS_NKEY_SEED || undefined,
    tlsCa: cfg.NATS_TLS_CA || undefined,
    tlsCert: cfg.NATS_TLS_CERT || undefined,
    tlsKey: cfg.NATS_TLS_KEY || undefined,
  };
}

/** The connection options that log in as `creds`: the inbox prefix, the password or NKEY, and TLS. */
function loginOptions(creds: NatsCredentials): Partial<ConnectionOptions> {
  const o: Partial<ConnectionOptions> = {};
  if (creds.identity) o.inboxPrefix = natsInboxPrefix(creds.identity);
  if (creds.nkeySeed) {
    o.authenticator = nkeyAuthenticator(enc.encode(creds.nkeySeed));
  } else if (creds.password !== undefined && creds.identity) {
    o.user = creds.identity;
    o.pass = creds.password;
  }
  if (creds.tlsCa || creds.tlsCert || creds.tlsKey) {
    o.tls = { ...(creds.tlsCa ? { caFile: creds.tlsCa } : {}), ...(creds.tlsCert ? { certFile: creds.tlsCert } : {}), ...(creds.tlsKey ? { keyFile: creds.tlsKey } : {}) };
  }
  return o;
}

/**
 * Connects to NATS as `creds.identity` (with its password or NKEY seed, over TLS when configured); replies come to
 * the identity's own inbox prefix, which the server lets nobody else read.
 */
export async function connectNats(url: string, name: string, creds: NatsCredentials = {}): Promise<NatsConnection> {
  return connect({
    servers: url,
    name,
    noAsyncTraces: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    ...loginOptions(creds),
  });
}

export interface CallOptions {
  principal: Principal | null;
  requestId: string;
  timeoutMs?: number;
}

let outgoing: Array<() => void> = [];

/**
 * Runs `send` (a NATS publish) at the end of this turn of the event loop, together with every other publish
 * made during it. The client library writes to its socket once per microtask turn, and every HTTP request or
 * NATS message is a turn of its own, so under load each publish would cost a system call; gathered here,
 * the requests and replies handled in one turn leave in one write.
 */
function coalesced(send: () => void): void {
  outgoing.push(send);
  if (outgoing.length === 1) {
    setImmediate(() => {
      const batch = outgoing;
      outgoing = [];
      for (const f of batch) {
        try {
          f();
        } catch {
          // the connection is closed: calls fail at once (see RpcClient), events are lost with the connection
        }
      }
    });
  }
}

interface PendingCall {
  resolve: (m: Msg) => void;
  reject: (e: unknown) => void;
  timer: NodeJS.Timeout;
}

/**
 * The one typed NATS client: every call has a timeout, carries the request id in a header and the caller's
 * deadline in the message; a timeout or an absent service becomes 503 `service_unavailable`; an error
 * reply is re-raised as the same DomainError. Replies come back on one wildcard inbox subscription
 * (`<inbox>.<n>`), matched by a counter, rather than through the client library's request multiplexer, which
 * allocates an Error with a stack trace per request (docs/decisions.md, "Platform").
 *
 * A principal travels with its seal (principal-seal.ts): the one it arrived with in this process, forwarded
 * unchanged (and the call's deadline brought forward to the seal's expiry), or at an edge (a client given a
 * `signer`) a new one. A principal a service built itself travels unsigned.
 */
export class RpcClient {
  private inbox: string | null = null;
  private next = 0;
  private readonly pending = new Map<string, PendingCall>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly root: string,
    private readonly defaultTimeoutMs: number,
    private readonly opts: { signer?: PrincipalSigner } = {},
  ) {}

  get connection(): NatsConnection {
    return this.nc;
  }

  /**
   * The seal `principal` travels with on a request `requestId` ending at `deadline`: the one it arrived with, else at
   * an edge a new one; none for a principal a service built. Also for internal HTTP (signInternalRequest).
   */
  sealFor(principal: Principal | null, requestId: string, deadline: number): PrincipalSeal | undefined {
    if (!principal) return undefined;
    return sealOf(principal) ?? this.opts.signer?.seal(principal, requestId, deadline);
  }

  async call<S extends Subject>(subject: S, payload: ReqOf<S>, opts: CallOptions): Promise<ResOf<S>> {
    let timeout = opts.timeoutMs ?? this.defaultTimeoutMs;
    const forwarded = opts.principal ? sealOf(opts.principal) : undefined;
    if (forwarded) {
      // a forwarded principal is good until its seal expires, and so is the call: the request it came with is over
      const left = forwarded.exp - Date.now();
      if (left <= 0) throw new DomainError('service_unavailable');
      timeout = Math.min(timeout, left);
    }
    const deadline = Date.now() + timeout;
    const seal = forwarded ?? this.sealFor(opts.principal, opts.requestId, deadline);
    const req: RpcRequest<ReqOf<S>> = { principal: opts.principal, ...(seal ? { seal } : {}), deadline, payload };
    const data = this.encodeRequest(req, subject.includes('.list.'));
    const h = natsHeaders();
    h.set(REQUEST_ID_HEADER, opts.requestId);
    return inSpan(`rpc.client ${subject}`, SpanKind.CLIENT, { 'rpc.system': 'nats', 'rpc.method': subject }, () => {
      injectTraceHeaders(h);
      return this.exchange(subject, data, h, timeout);
    });
  }

  /** One request and its reply, timed by subject and outcome (`verity_rpc_client_duration_seconds`). */
  private async exchange<S extends Subject>(subject: S, data: Uint8Array, h: MsgHdrs, timeout: number): Promise<ResOf<S>> {
    const started = process.hrtime.bigint();
    let msg: Msg;
    try {
      msg = await this.request(qualify(this.root, subject), data, h, timeout);
    } catch {
      // timeout, no responders, connection closed: the service did not answer
      metrics.rpcClientDuration.observe({ subject, outcome: 'timeout' }, secondsSince(started));
      throw new DomainError('service_unavailable');
    }
    const reply = decodeJson<RpcReply<ResOf<S>>>(msg.data);
    metrics.rpcClientDuration.observe({ subject, outcome: rpcOutcome(reply) }, secondsSince(started));
    if (reply.ok) return reply.data;
    throw DomainError.fromData(reply.error);
  }

  /**
   * The request as it travels, refused before anything reaches NATS when no service may take it: text Postgres
   * cannot store (422 `validation_error` naming the parameter, see storable-text.ts), nesting deeper than JSON can
   * be written (422), or more bytes than the connection carries in one message (413 `request_too_large`).
   */
  private encodeRequest(req: RpcRequest<unknown>, query: boolean): Uint8Array {
    let json: string;
    try {
      json = JSON.stringify(req);
    } catch (e) {
      if (e instanceof RangeError) throw DomainError.validation([{ code: 'too_big', message: 'the body is nested too deeply', path: [] }]);
      throw e;
    }
    if (mayHoldUnstorableText(json)) {
      const refusal = unstorableInputError(req.payload, { query });
      if (refusal) throw refusal;
    }
    const data = enc.encode(json);
    if (data.length > maxPayloadOf(this.nc) - HEADERS_RESERVE) throw new DomainError('request_too_large');
    return data;
  }

  private request(subject: string, data: Uint8Array, headers: MsgHdrs, timeoutMs: number): Promise<Msg> {
    const inbox = this.inbox ?? this.listen();
    const token = (this.next++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(new Error('timeout'));
      }, timeoutMs);
      this.pending.set(token, { resolve, reject, timer });
      coalesced(() => {
        try {
          this.nc.publish(subject, data, { reply: `${inbox}.${token}`, headers });
        } catch (e) {
          clearTimeout(timer);
          this.pending.delete(token);
          reject(e);
        }
      });
    });
  }

  /** Subscribes the reply inbox once; the subscription is sent ahead of the first request on the connection. */
  private listen(): string {
    const inbox = createInbox((this.nc as unknown as { options?: ConnectionOptions }).options?.inboxPrefix);
    this.nc.subscribe(`${inbox}.*`, {
      callback: (err, msg) => {
        if (err) return;
        const token = msg.subject.slice(inbox.length + 1);
        const call = this.pending.get(token);
        if (!call) return; // answered after its timeout
        this.pending.delete(token);
        clearTimeout(call.timer);
        // the server's "no responders" status: nobody serves the subject
        if (msg.data.length === 0 && msg.headers?.code === 503) call.reject(new Error('no responders'));
        else call.resolve(msg);
      },
    });
    // a closed connection answers nothing more: the calls still waiting fail now, not at their timeouts
    void this.nc.closed().then(() => {
      for (const call of this.pending.values()) {
        clearTimeout(call.timer);
        call.reject(new Error('connection closed'));
      }
      this.pending.clear();
    });
    this.inbox = inbox;
    return inbox;
  }

  /** Leaves in order with the calls and replies made before it in this turn (see `coalesced`). */
  publish<E extends EventSubject>(subject: E, event: EventContracts[E]): void {
    const data = encodeJson(event);
    coalesced(() => this.nc.publish(qualify(this.root, subject), data));
  }

  subscribe<E extends EventSubject>(subject: E, handler: (event: EventContracts[E]) => void): Subscription {
    return this.nc.subscribe(qualify(this.root, subject), {
      callback: (err, msg) => {
        if (!err) handler(decodeJson<EventContracts[E]>(msg.data));
      },
    });
  }

  /**
   * Calls `drop` whenever the connection is lost and again when it comes back: events published in between
   * never arrive, so whatever they would have invalidated must go.
   */
  onConnectionGap(drop: () => void): void {
    void (async () => {
      for await (const s of this.nc.status()) {
        if (s.type === 'disconnect' || s.type === 'reconnect') drop();
      }
    })();
  }
}

/** Room left in a message for its headers (the request id), which count against the same limit. */
const HEADERS_RESERVE = 1024;

/** The largest message the server takes (its `max_payload`; 1 MiB unless configured otherwise). */
export function maxPayloadOf(nc: NatsConnection): number {
  return nc.info?.max_payload ?? 1024 * 1024;
}

/** What a handler receives besides its payload. */
export interface RpcContext {
  principal: Principal | null;
  requestId: string;
  /**
   * The last moment (epoch ms, this host's clock) at which the handler may still commit: the caller's deadline
   * less the clock-skew margin (`DEADLINE_MARGIN_MS`). Writes are fenced on it (`assertBeforeDeadline`, the
   * statements that compare it with the database's clock), so that nothing commits after the caller answered
   * 503, even with clocks a little apart and the reply still on its way.
   */
  deadline: number;
  log: Logger;
}

export type RpcHandler<S extends Subject> = (payload: ReqOf<S>, ctx: RpcContext) => Promise<ResOf<S>>;

/** The principal of a request that must come from the gateway; a message without one is refused. */
export function requirePrincipal(ctx: RpcContext): Principal {
  if (!ctx.principal) throw new DomainError('internal_error', { message: 'missing principal' });
  return ctx.principal;
}

/** The person a console subject acts for: the principal the console signed, and the person and role it carries. */
export interface ConsolePerson {
  principal: Principal;
  actor: ConsoleActor;
}

/**
 * The caller of a console subject (`<service>.console.…`): a principal signed by the console (not the gateway, not
 * unsigned) that names the person signed in (`actor`), whose role is one of `roles`. The organization and mode are the
 * principal's, never a field of the request. No principal, or one the console did not sign or that names nobody, is
 * refused as `internal_error` (a caller that is not the console); a role that may not do this, `insufficient_scope`.
 */
export function requireConsolePerson(ctx: RpcContext, roles: readonly ConsoleRole[]): ConsolePerson {
  const principal = requirePrincipal(ctx);
  if (sealOf(principal)?.edge !== 'console') throw new DomainError('internal_error', { message: 'a console subject takes a principal the console signed' });
  const actor = principal.actor;
  if (!actor || typeof actor.user_id !== 'string' || actor.user_id !== principal.key_id || !(CONSOLE_ROLES as readonly string[]).includes(actor.role)) {
    throw new DomainError('internal_error', { message: 'a console subject takes a principal that names the person' });
  }
  if (!roles.includes(actor.role)) throw new DomainError('insufficient_scope', { message: `A console ${actor.role} may not do this.` });
  return { principal, actor };
}

/**
 * An operator subject (`*.admin.*`): only the operator tool calls it, without a principal. A call carrying one came
 * from the wrong caller and is refused, the mirror of `requirePrincipal`.
 */
export function requireOperator(ctx: RpcContext): RpcContext {
  if (ctx.principal) throw new DomainError('internal_error', { message: 'an operator subject takes no principal' });
  return ctx;
}

/** Throws 503 when the caller has stopped waiting, so that nothing is committed after the gateway answered. */
export function assertBeforeDeadline(ctx: RpcContext): void {
  if (Date.now() >= ctx.deadline) throw new DomainError('service_unavailable');
}

/**
 * Serves handlers on `<root>.<subject>` in a queue group named after the service, so replicas share the load.
 * Domain errors travel back as data; anything else is logged with the request id and answered as internal_error.
 * Handlers see the caller's deadline brought forward by `deadlineMarginMs` (see RpcContext.deadline).
 *
 * Before any handler runs, a request carrying a principal is admitted by `principals` (principal-seal.ts): an edge's
 * valid signature of it for this request id, or an unsigned principal on a subject services call on their own
 * account. Anything else is refused as `internal_error` (like a missing principal; an expired signature as the
 * 503 of a request past its deadline) and logged with the reason, the signing edge and key id, never the principal.
 */
export class RpcServer {
  private readonly subs: Subscription[] = [];
  private readonly deadlineMarginMs: number;
  private readonly principals: PrincipalVerifier;

  constructor(
    private readonly nc: NatsConnection,
    private readonly root: string,
    private readonly queue: string,
    private readonly log: Logger,
    opts: { principals: PrincipalVerifier; deadlineMarginMs?: number },
  ) {
    this.principals = opts.principals;
    this.deadlineMarginMs = opts.deadlineMarginMs ?? 0;
  }

  handle<S extends Subject>(subject: S, handler: RpcHandler<S>): void {
    const sub = this.nc.subscribe(qualify(this.root, subject), {
      queue: this.queue,
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err, subject }, 'subscription error');
          return;
        }
        void this.dispatch(subject, handler, msg);
      },
    });
    this.subs.push(sub);
  }

  private async dispatch<S extends Subject>(subject: S, handler: RpcHandler<S>, msg: Msg): Promise<void> {
    const requestId = msg.headers?.get(REQUEST_ID_HEADER) || 'req_internal';
    const log = this.log.child({ request_id: requestId });
    const started = process.hrtime.bigint();
    metrics.rpcInFlight.inc();
    let reply: RpcReply<ResOf<S>>;
    let deadline = Infinity;
    try {
      const req = decodeJson<RpcRequest<ReqOf<S>>>(msg.data);
      deadline = req.deadline;
      const refused = this.principals.admit(subject, req.principal, req.seal, requestId);
      if (refused) {
        log.warn({ subject, reason: refused, ...sealLabel(req.seal) }, 'request with a principal refused');
        throw new PrincipalRefused(refused === 'expired' ? 'service_unavailable' : 'internal_error');
      }
      const ctx = { principal: req.principal, requestId, deadline: req.deadline - this.deadlineMarginMs, log };
      const data = await inSpan(`rpc.server ${subject}`, SpanKind.SERVER, { 'rpc.system': 'nats', 'rpc.method': subject }, () => handler(req.payload, ctx), extractTraceHeaders(msg.headers));
      reply = { ok: true, data };
    } catch (e) {
      reply = { ok: false, error: e instanceof PrincipalRefused ? new DomainError(e.code).toData() : toErrorData(e, log, subject) };
    }
    metrics.rpcInFlight.dec();
    // answered after the caller stopped waiting: the caller saw a timeout, whatever the handler concluded
    const outcome = Date.now() > deadline ? 'timeout' : rpcOutcome(reply);
    metrics.rpcRequests.inc({ subject, outcome });
    metrics.rpcDuration.observe({ subject }, secondsSince(started));
    let data = encodeJson(reply);
    if (data.length > maxPayloadOf(this.nc) - HEADERS_RESERVE) {
      // a reply the connection cannot carry would leave the caller waiting for its timeout (a misleading 503)
      log.error({ subject, bytes: data.length }, 'reply larger than the largest NATS message');
      data = encodeJson({ ok: false, error: new DomainError('internal_error').toData() } satisfies RpcReply<never>);
    }
    coalesced(() => {
      try {
        msg.respond(data);
      } catch (err) {
        // the connection is closing: the caller times out and answers 503
        log.warn({ err, subject }, 'reply not sent');
      }
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.subs.map((s) => s.drain()));
  }
}

/** A request refused before its handler (logged there already). */
class PrincipalRefused extends Error {
  constructor(readonly code: 'internal_error' | 'service_unavailable') {
    super('principal refused');
  }
}

/**
 * How a reply counts: `ok`, `rejected` (a refusal the caller caused: a 4xx of the catalogue, such as not found
 * or a validation error) or `error` (the service failed: a 5xx).
 */
export function rpcOutcome(reply: RpcReply<unknown>): 'ok' | 'rejected' | 'error' {
  if (reply.ok) return 'ok';
  return isErrorCode(reply.error.code) && httpStatusOf(reply.error.code) < 500 ? 'rejected' : 'error';
}

export function toErrorData(e: unknown, log: Logger, subject: string): ErrorData {
  if (e instanceof DomainError) {
    if (e.code === 'internal_error') log.error({ err: e, subject }, 'internal error');
    return e.toData();
  }
  if (isDatabaseUnavailable(e)) {
    // Postgres refused, lost or did not answer in time: a passing condition, retried by the caller
    log.warn({ err: e, subject }, 'database unavailable');
    return new DomainError('service_unavailable').toData();
  }
  log.error({ err: e, subject }, 'unhandled error');
  return new DomainError('internal_error').toData();
}
