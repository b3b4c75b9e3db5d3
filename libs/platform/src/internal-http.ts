import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Principal } from '@verity/contracts';

/**
 * Byte streams (uploads, evidence images) travel between the gateway and a service over internal HTTP, since
 * NATS messages are capped at 1 MB. The gateway attaches the principal, request id and deadline in headers,
 * signed with a secret shared inside the region's stack, so a service trusts nothing it cannot verify.
 */
export const INTERNAL_HEADERS = {
  principal: 'x-verity-principal',
  requestId: 'x-request-id',
  deadline: 'x-verity-deadline',
  signature: 'x-verity-signature',
} as const;

function mac(secret: string, principalB64: string, requestId: string, deadline: string): Buffer {
  return createHmac('sha256', secret).update(`${principalB64}.${requestId}.${deadline}`).digest();
}

export function signInternalRequest(secret: string, principal: Principal, requestId: string, deadline: number): Record<string, string> {
  const p = Buffer.from(JSON.stringify(principal)).toString('base64url');
  const d = String(deadline);
  return {
    [INTERNAL_HEADERS.principal]: p,
    [INTERNAL_HEADERS.requestId]: requestId,
    [INTERNAL_HEADERS.deadline]: d,
    [INTERNAL_HEADERS.signature]: mac(secret, p, requestId, d).toString('base64url'),
  };
}

export interface InternalCaller {
  principal: Principal;
  requestId: string;
  deadline: number;
}

/** Verifies the signed headers of an internal request; null when anything is missing or does not match. */
export function verifyInternalRequest(secret: string, headers: Record<string, string | string[] | undefined>): InternalCaller | null {
  const get = (h: string) => {
    const v = headers[h];
    return typeof v === 'string' ? v : undefined;
  };
  const p = get(INTERNAL_HEADERS.principal);
  const requestId = get(INTERNAL_HEADERS.requestId);
  const d = get(INTERNAL_HEADERS.deadline);
  const sig = get(INTERNAL_HEADERS.signature);
  if (!p || !requestId || !d || !sig) return null;
  const expected = mac(secret, p, requestId, d);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    return { principal: JSON.parse(Buffer.from(p, 'base64url').toString()) as Principal, requestId, deadline: Number(d) };
  } catch {
    return null;
  }
}
