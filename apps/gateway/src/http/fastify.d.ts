import type { CaptureCaller, CaptureConnection, Principal } from '@verity/contracts';

declare module 'fastify' {
  interface FastifyRequest {
    requestId: string;
    principal: Principal | null;
    /** A capture route's caller, once its client secret resolved (contract §14). */
    capture: { caller: CaptureCaller; connection: CaptureConnection } | null;
  }
}
