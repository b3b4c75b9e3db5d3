import { Controller, Get, Header, Inject, Req } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import type { FastifyRequest } from 'fastify';

/** The public keys of the region's erasure certificates as a JWKS, without authentication (docs/privacy.md). */
@Controller('.well-known')
export class ErasureKeysController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Get('erasure-keys.json')
  @Header('cache-control', 'public, max-age=300')
  async keys(@Req() req: FastifyRequest) {
    return this.rpc.call(SUBJECTS.applicantsErasureKeys, {}, { principal: null, requestId: req.requestId });
  }
}
