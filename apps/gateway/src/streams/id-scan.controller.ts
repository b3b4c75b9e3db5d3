import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { DomainError } from '@verity/errors';
import { discardRest } from '@verity/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { CallerOf, type Caller } from '../http/caller.js';
import { StreamProxy } from './stream-proxy.js';

/** POST /v1/id-verification: the multipart body is streamed to the id-scan service, which enforces every limit. */
@Controller('v1/id-verification')
export class IdScanController {
  constructor(
    private readonly proxy: StreamProxy,
    @Inject(GATEWAY_CONFIG) private readonly cfg: GatewayConfig,
  ) {}

  @Post()
  @HttpCode(200)
  async scan(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @CallerOf() c: Caller) {
    try {
      const type = req.headers['content-type'] ?? '';
      if (!/^multipart\/form-data;\s*boundary=/i.test(type) || typeof (req.body as Readable | undefined)?.pipe !== 'function') {
        throw DomainError.validation([
          { code: 'invalid_type', message: 'send the document as multipart/form-data with a "front" image part', path: ['front'] },
        ]);
      }
      const length = Number(req.headers['content-length'] ?? 0);
      if (length > this.cfg.ID_SCAN_BODY_LIMIT) throw new DomainError('request_too_large');
      return { data: await this.proxy.upload(this.cfg.ID_SCAN_URL && `${this.cfg.ID_SCAN_URL}/scan`, c, req.body as Readable, type, this.cfg.ID_SCAN_TIMEOUT_MS) };
    } catch (e) {
      // Refused before the upload was read to its end: the rest is read and dropped for a few seconds, then the
      // connection closes. Not at once, even when the client asked for it: closing with the client still sending
      // resets the connection, and a reset can lose the answer before the client reads it.
      if (!req.raw.complete) {
        reply.header('connection', 'keep-alive');
        reply.raw.once('finish', () => discardRest(req.raw));
      }
      throw e;
    }
  }
}
