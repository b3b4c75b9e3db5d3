import { Controller, Inject, Req, Res } from '@nestjs/common';
import { DomainError } from '@verity/errors';
import { CONFIG, discardRest } from '@verity/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { Route } from '../access/routes.js';
import type { GatewayConfig } from '../config.js';
import { CallerOf, type Caller } from '../http/caller.js';
import { StreamProxy } from './stream-proxy.js';

/** POST /v1/id-verification: the multipart body is streamed to the id-scan service, which enforces every limit. */
@Controller()
export class IdScanController {
  constructor(
    private readonly proxy: StreamProxy,
    @Inject(CONFIG) private readonly cfg: GatewayConfig,
  ) {}

  @Route('POST /v1/id-verification', {
    access: { scope: 'idv:scan', rateClass: 'global' },
    tag: 'ID scan',
    summary: 'Read a document image',
    description:
      'Extracts identity fields without creating a verification. Test mode: a synthetic result by `expected_outcome` (`pass`, `review`: 200; `fail`, `doc_quality`: 422 `document_unreadable`); the image is validated, then discarded. Live mode: the document is read from its machine-readable zone or PDF417 barcode. `document_unreadable` carries `details.mode`. Missing `front` or an unrecognized part: 422 `validation_error`; one image over 10 MiB: 413 `file_too_large`; the body over 21 MiB: 413 `request_too_large`; not JPEG, PNG or WebP by its bytes: 415 `unsupported_file_type`; bytes that do not decode, or over 100 megapixels: 422 `invalid_image`. The body is streamed, never kept: an `Idempotency-Key` is checked but not honoured here (a scan changes nothing and can be sent again).',
    body: { component: 'IdScanUpload', kind: 'multipart', streamed: true },
    success: { status: 200, description: 'What was read.', body: { data: 'IdScanResult' } },
    // a JSON body is parsed (and refused) before the route asks for multipart
    errors: ['invalid_json', 'file_too_large', 'request_too_large', 'unsupported_file_type', 'invalid_image', 'document_unreadable'],
  })
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
