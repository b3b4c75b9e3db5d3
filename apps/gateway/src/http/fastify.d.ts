import type { Principal } from '@verity/contracts';

declare module 'fastify' {
  interface FastifyRequest {
    requestId: string;
    principal: Principal | null;
  }
}
