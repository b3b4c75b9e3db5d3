import { connect, headers as natsHeaders, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { DomainError, type ErrorData } from '@verity/errors';
import {
  qualify,
  REQUEST_ID_HEADER,
  type EventContracts,
  type EventSubject,
  type Principal,
  type ReqOf,
  type ResOf,
  type RpcReply,
  type RpcRequest,
  type Subject,
} from '@verity/contracts';
import type { Logger } from './logger.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

export function encodeJson(v: unknown): Uint8Array {
  return enc.encode(JSON.stringify(v));
}
export function decodeJson<T>(data: Uint8Array): T {
  return JSON.parse(dec.decode(data)) as T;
}

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({
    servers: url,
    name,
    noAsyncTraces: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
}

export interface CallOptions {
  principal: Principal | null;
  requestId: string;
  timeoutMs?: number;
}

/**
 * The one typed NATS client: every call has a timeout, carries the request id in a header and the caller's
 * deadline in the message; a timeout or an absent service becomes 503 `service_unavailable`; an error
 * reply is re-raised as the same DomainError.
 */
export class RpcClient {
  constructor(
    private readonly nc: NatsConnection,
    private readonly root: string,
    private readonly defaultTimeoutMs: number,
  ) {}

  get connection(): NatsConnection {
    return this.nc;
  }

  async call<S extends Subject>(subject: S, payload: ReqOf<S>, opts: CallOptions): Promise<ResOf<S>> {
    const timeout = opts.timeoutMs ?? this.defaultTimeoutMs;
    const req: RpcRequest<ReqOf<S>> = { principal: opts.principal, deadline: Date.now() + timeout, payload };
    const h = natsHeaders();
    h.set(REQUEST_ID_HEADER, opts.requestId);
    let msg: Msg;
    try {
      msg = await this.nc.request(qualify(this.root, subject), encodeJson(req), { timeout, headers: h });
    } catch {
      // timeout, no responders, connection closed: the service did not answer
      throw new DomainError('service_unavailable');
    }
    const reply = decodeJson<RpcReply<ResOf<S>>>(msg.data);
    if (reply.ok) return reply.data;
    throw DomainError.fromData(reply.error);
  }

  publish<E extends EventSubject>(subject: E, event: EventContracts[E]): void {
    this.nc.publish(qualify(this.root, subject), encodeJson(event));
  }

  subscribe<E extends EventSubject>(subject: E, handler: (event: EventContracts[E]) => void): Subscription {
    return this.nc.subscribe(qualify(this.root, subject), {
      callback: (err, msg) => {
        if (!err) handler(decodeJson<EventContracts[E]>(msg.data));
      },
    });
  }
}

/** What a handler receives besides its payload. */
export interface RpcContext {
  principal: Principal | null;
  requestId: string;
  deadline: number;
  log: Logger;
}

export type RpcHandler<S extends Subject> = (payload: ReqOf<S>, ctx: RpcContext) => Promise<ResOf<S>>;

/** The principal of a request that must come from the gateway; a message without one is refused. */
export function requirePrincipal(ctx: RpcContext): Principal {
  if (!ctx.principal) throw new DomainError('internal_error', { message: 'missing principal' });
  return ctx.principal;
}

/** Throws 503 when the caller has stopped waiting, so that nothing is committed after the gateway answered. */
export function assertBeforeDeadline(ctx: RpcContext): void {
  if (Date.now() >= ctx.deadline) throw new DomainError('service_unavailable');
}

/**
 * Serves handlers on `<root>.<subject>` in a queue group named after the service, so replicas share the load.
 * Domain errors travel back as data; anything else is logged with the request id and answered as internal_error.
 */
export class RpcServer {
  private readonly subs: Subscription[] = [];

  constructor(
    private readonly nc: NatsConnection,
    private readonly root: string,
    private readonly queue: string,
    private readonly log: Logger,
  ) {}

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
    let reply: RpcReply<ResOf<S>>;
    try {
      const req = decodeJson<RpcRequest<ReqOf<S>>>(msg.data);
      const data = await handler(req.payload, { principal: req.principal, requestId, deadline: req.deadline, log });
      reply = { ok: true, data };
    } catch (e) {
      reply = { ok: false, error: toErrorData(e, log, subject) };
    }
    msg.respond(encodeJson(reply));
  }

  async close(): Promise<void> {
    await Promise.all(this.subs.map((s) => s.drain()));
  }
}

export function toErrorData(e: unknown, log: Logger, subject: string): ErrorData {
  if (e instanceof DomainError) {
    if (e.code === 'internal_error') log.error({ err: e, subject }, 'internal error');
    return e.toData();
  }
  log.error({ err: e, subject }, 'unhandled error');
  return new DomainError('internal_error').toData();
}
