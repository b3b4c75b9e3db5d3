import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Req, Res } from '@nestjs/common';
import { CAPTURE_IMAGES, capturePrincipal, SUBJECTS, type CaptureImageStored } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { discardRest, RpcClient } from '@verity/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { CaptureOf, type CaptureCall } from '../http/caller.js';
import { StreamProxy } from '../streams/stream-proxy.js';

/**
 * The capture API (docs/capture.md), for the hosted page or a business's own: authenticated by the
 * session's client secret (resolved by the access hook), never by an API key.
 */
@Controller('v1/capture')
export class CaptureController {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    private readonly proxy: StreamProxy,
    @Inject(GATEWAY_CONFIG) private readonly cfg: GatewayConfig,
  ) {}

  @Get()
  async get(@CaptureOf() c: CaptureCall) {
    return { data: await this.rpc.call(SUBJECTS.sessionsCaptureGet, { caller: c.caller, connection: c.connection }, { principal: null, requestId: c.requestId }) };
  }

  /** The raw image, streamed unread to the evidence service, which enforces every limit; then the session notes it. */
  @Put('images/:artifact')
  async image(@Param('artifact') artifact: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @CaptureOf() c: CaptureCall) {
    try {
      // an unserved artifact name is not echoed (like the image endpoint)
      if (!(CAPTURE_IMAGES as readonly string[]).includes(artifact)) throw DomainError.notFound();
      const body = typeof (req.body as Readable | undefined)?.pipe === 'function' ? (req.body as Readable) : req.raw;
      const base = this.cfg.EVIDENCE_URL;
      const url = base && `${base}/captures/${encodeURIComponent(c.caller.session_id)}/images/${artifact}`;
      const principal = capturePrincipal(c.caller, this.cfg.REGION);
      const stored = (await this.proxy.upload(url, { principal, requestId: c.requestId }, body, req.headers['content-type'] ?? 'application/octet-stream', this.cfg.CAPTURE_UPLOAD_TIMEOUT_MS, 'PUT')) as CaptureImageStored;
      await this.rpc.call(SUBJECTS.sessionsCaptureImageStored, { caller: c.caller, artifact: stored.artifact, connection: c.connection }, { principal: null, requestId: c.requestId });
      return { data: stored };
    } catch (e) {
      // refused before the upload was read to its end: the rest is read and dropped, then the connection closes
      if (!req.raw.complete) {
        reply.header('connection', 'keep-alive');
        reply.raw.once('finish', () => discardRest(req.raw));
      }
      throw e;
    }
  }

  @Post('submit')
  @HttpCode(202)
  async submit(@Body() body: unknown, @CaptureOf() c: CaptureCall) {
    return { data: await this.rpc.call(SUBJECTS.sessionsCaptureSubmit, { caller: c.caller, body, connection: c.connection }, { principal: null, requestId: c.requestId }) };
  }

  @Post('skip')
  @HttpCode(200)
  async skip(@Body() body: unknown, @CaptureOf() c: CaptureCall) {
    return { data: await this.rpc.call(SUBJECTS.sessionsCaptureSkip, { caller: c.caller, body }, { principal: null, requestId: c.requestId }) };
  }
}
