import type { CaptureCaller, CaptureConnection, Principal } from '@verity/contracts';
import type { DomainError } from '@verity/errors';

declare module 'fastify' {
  interface FastifyRequest {
    requestId: string;
    principal: Principal | null;
    /**
     * A capture route's caller, once its client secret resolved (docs/capture.md). `refusal`: the capture has ended,
     * and the request (a POST with an Idempotency-Key) is refused with it unless its key replays an answer.
     */
    capture: { caller: CaptureCaller; connection: CaptureConnection; refusal?: DomainError } | null;
  }
}
