import type { ErrorData } from '@verity/errors';
import type { Principal } from './principal.js';

/** The edges that authenticate a request and sign its principal (docs/security.md, "The bus's trust boundary"). */
export const PRINCIPAL_EDGES = ['gateway', 'console'] as const;
export type PrincipalEdge = (typeof PRINCIPAL_EDGES)[number];

/**
 * The signature of a principal by the edge that authenticated the request (the gateway: an API key or a capture
 * link's client secret; the console: a person). Ed25519 over the edge, the key id, the expiry, the request id and the
 * principal (`principalSealText` in @verity/platform); a service that acts for the caller forwards it unchanged.
 */
export interface PrincipalSeal {
  /** Which edge signed. */
  edge: PrincipalEdge;
  /** Which of the edge's keys (PRINCIPAL_VERIFY_KEYS lists them; two during a rotation). */
  kid: string;
  /** Epoch milliseconds after which nobody accepts it: never later than the deadline of the request it was made for. */
  exp: number;
  /** The Ed25519 signature, base64url. */
  sig: string;
}

/** Every NATS request: the payload, the caller (absent for operator tooling) and the caller's deadline. */
export interface RpcRequest<P> {
  principal: Principal | null;
  /** The principal's signature by the edge that authenticated the request; absent on a service's own calls (jobs, sweeps). */
  seal?: PrincipalSeal;
  /** UNIX epoch milliseconds after which the caller no longer waits: a service must not commit after it. */
  deadline: number;
  payload: P;
}

export type RpcReply<R> = { ok: true; data: R } | { ok: false; error: ErrorData };

/** NATS header carrying the request id end to end. */
export const REQUEST_ID_HEADER = 'x-request-id';
