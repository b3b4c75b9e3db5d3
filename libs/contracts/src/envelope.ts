import type { ErrorData } from '@verity/errors';
import type { Principal } from './principal.js';

/** Every NATS request: the payload, the caller (absent for operator tooling) and the caller's deadline. */
export interface RpcRequest<P> {
  principal: Principal | null;
  /** UNIX epoch milliseconds after which the caller no longer waits: a service must not commit after it. */
  deadline: number;
  payload: P;
}

export type RpcReply<R> = { ok: true; data: R } | { ok: false; error: ErrorData };

/** NATS header carrying the request id end to end. */
export const REQUEST_ID_HEADER = 'x-request-id';
