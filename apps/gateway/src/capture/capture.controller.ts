import { Body, Controller, Inject, Param, Req, Res } from '@nestjs/common';
import { CAPTURE_IMAGES, capturePrincipal, SUBJECTS, type CaptureImageStored } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { CONFIG, discardRest, RpcClient } from '@verity/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Readable } from 'node:stream';
import { Route } from '../access/routes.js';
import type { GatewayConfig } from '../config.js';
import { CaptureOf, type CaptureCall } from '../http/caller.js';
import { StreamProxy } from '../streams/stream-proxy.js';

/**
 * The capture API (docs/capture.md), for the hosted page or a business's own: authenticated by the
 * session's client secret (resolved by the access hook), never by an API key.
 */
@Controller()
export class CaptureController {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    private readonly proxy: StreamProxy,
    @Inject(CONFIG) private readonly cfg: GatewayConfig,
  ) {}

  @Route('GET /v1/capture', {
    access: { auth: 'capture' },
    tag: 'Capture',
    summary: 'Read the capture',
    description: 'What the applicant has to do: the steps, the switches, what is uploaded so far. The first call notes where the capture started.',
    success: { status: 200, description: 'The capture.', body: { data: 'Capture' } },
  })
  async get(@CaptureOf() c: CaptureCall) {
    return { data: await this.rpc.call(SUBJECTS.sessionsCaptureGet, { caller: c.caller, connection: c.connection }, { principal: null, requestId: c.requestId }) };
  }

  /** The raw image, streamed unread to the evidence service, which enforces every limit; then the session notes it. */
  @Route('PUT /v1/capture/images/:artifact', {
    access: { auth: 'capture' },
    tag: 'Capture',
    summary: 'Upload a capture image',
    description:
      'The raw image as the body (JPEG, PNG or WebP by its bytes, whatever the declared type; at most 10 MiB); replaces an earlier one. The first image moves the session `pending` → `in_progress`. An unserved artifact name is 404 `resource_not_found` without echo.',
    params: { artifact: { description: '`front`, `back` or `selfie`.', schema: z.enum(['front', 'back', 'selfie']) } },
    body: { kind: 'image' },
    success: { status: 200, description: 'The image stored, with its size.', body: { data: 'CaptureImageStored' } },
    // a body declared application/json is parsed as JSON, and refused when it is not
    errors: ['invalid_json', 'resource_not_found', 'file_too_large', 'request_too_large', 'unsupported_file_type', 'invalid_image'],
  })
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

  @Route('POST /v1/capture/submit', {
    access: { auth: 'capture' },
    tag: 'Capture',
    summary: 'Submit the capture',
    description:
      'Marks the capture submitted (the link is used from then on) and queues the live run. A missing required image is 422 `validation_error` naming it (`front`, `selfie`).',
    body: { component: 'CaptureSubmit', optional: true, example: { acquisition: 'camera' } },
    success: { status: 202, description: 'The capture, submitted.', body: { data: 'Capture' } },
  })
  async submit(@Body() body: unknown, @CaptureOf() c: CaptureCall) {
    return { data: await this.rpc.call(SUBJECTS.sessionsCaptureSubmit, { caller: c.caller, body, connection: c.connection }, { principal: null, requestId: c.requestId }) };
  }

  @Route('POST /v1/capture/skip', {
    access: { auth: 'capture' },
    tag: 'Capture',
    summary: 'Skip a step',
    description: 'The applicant gives up at a step: the session ends `skipped` (`kyc.session.skipped_by_applicant` is reserved, not delivered).',
    body: { component: 'CaptureSkip', example: { step: 'selfie' } },
    success: { status: 200, description: 'The capture, skipped.', body: { data: 'Capture' } },
  })
  async skip(@Body() body: unknown, @CaptureOf() c: CaptureCall) {
    return { data: await this.rpc.call(SUBJECTS.sessionsCaptureSkip, { caller: c.caller, body }, { principal: null, requestId: c.requestId }) };
  }
}
