import { Controller, Inject, Param, Res } from '@nestjs/common';
import { idParam } from '@verity/api-schema';
import { CONFIG } from '@verity/platform';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { Route } from '../access/routes.js';
import type { GatewayConfig } from '../config.js';
import { CallerOf, type Caller } from '../http/caller.js';
import { StreamProxy } from './stream-proxy.js';

/** GET /v1/sessions/{id}/idv-image/{artifact}: JPEG bytes streamed from the evidence service. */
@Controller()
export class IdvImageController {
  constructor(
    private readonly proxy: StreamProxy,
    @Inject(CONFIG) private readonly cfg: GatewayConfig,
  ) {}

  @Route('GET /v1/sessions/:id/idv-image/:artifact', {
    access: { scope: 'sessions:read_report', rateClass: 'sessions:read_image' },
    tag: 'Evidence',
    summary: 'Stream an evidence image',
    description:
      'The stored JPEG of one artifact, `Cache-Control: no-store, private`; no public or presigned URL exists. Read `idv.available_images` first: a served artifact with nothing stored is 404 `artifact_not_available` (fall back to another). `back` or any other value is 404 `resource_not_found` without echo. Each request that reaches a session of the organization writes an activity entry.',
    params: {
      id: idParam('session'),
      artifact: { description: '`portrait` (holder photo cropped from the document), `front` (the document as submitted), `selfie`.', schema: z.enum(['portrait', 'front', 'selfie']) },
    },
    success: { status: 200, description: 'The image (always JPEG).', body: { binary: 'image/jpeg' }, headers: { 'Cache-Control': 'no-store, private' } },
    errors: ['resource_not_found', 'artifact_not_available'],
  })
  async image(@Param('id') id: string, @Param('artifact') artifact: string, @CallerOf() c: Caller, @Res() reply: FastifyReply) {
    const base = this.cfg.EVIDENCE_URL;
    const url = base && `${base}/sessions/${encodeURIComponent(id)}/images/${encodeURIComponent(artifact)}`;
    await this.proxy.download(url, c, reply, { 'content-type': 'image/jpeg', 'cache-control': 'no-store, private' }, this.cfg.RPC_TIMEOUT_MS);
  }
}
