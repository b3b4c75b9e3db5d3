import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { CallerOf, type Caller } from '../http/caller.js';
import { StreamProxy } from './stream-proxy.js';

/** GET /v1/sessions/{id}/idv-image/{artifact}: JPEG bytes streamed from the evidence service. */
@Controller('v1/sessions')
export class IdvImageController {
  constructor(
    private readonly proxy: StreamProxy,
    @Inject(GATEWAY_CONFIG) private readonly cfg: GatewayConfig,
  ) {}

  @Get(':id/idv-image/:artifact')
  async image(@Param('id') id: string, @Param('artifact') artifact: string, @CallerOf() c: Caller, @Res() reply: FastifyReply) {
    const base = this.cfg.EVIDENCE_URL;
    const url = base && `${base}/sessions/${encodeURIComponent(id)}/images/${encodeURIComponent(artifact)}`;
    await this.proxy.download(url, c, reply, { 'content-type': 'image/jpeg', 'cache-control': 'no-store, private' }, this.cfg.RPC_TIMEOUT_MS);
  }
}
