import { Controller, Header, Inject, Req } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import type { FastifyRequest } from 'fastify';
import { Route } from '../access/routes.js';

/** The public keys of the region's erasure certificates as a JWKS, without authentication (docs/privacy.md). */
@Controller()
export class ErasureKeysController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Route('GET /.well-known/erasure-keys.json', {
    access: { auth: 'public', ipLimited: true },
    tag: 'Privacy',
    summary: 'Erasure certificate keys',
    description: "The public Ed25519 keys (JWKS) that verify the region's erasure certificates. No authentication; counts against the pre-authentication IP limit.",
    success: { status: 200, description: 'The key set.', body: { schema: 'ErasureKeySet' }, headers: { 'Cache-Control': 'public, max-age=300' } },
    // a public route that asks a service (applicants), which can be away
    errors: ['service_unavailable'],
  })
  @Header('cache-control', 'public, max-age=300')
  async keys(@Req() req: FastifyRequest) {
    return this.rpc.call(SUBJECTS.applicantsErasureKeys, {}, { principal: null, requestId: req.requestId });
  }
}
