import { Body, Controller, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { CAPTURE_IMAGES, capturePrincipal, CHALLENGE_FRAME_LIMITS, SUBJECTS, type CaptureFrameStored, type CaptureImageStored } from '@verity/contracts';
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
      // sessions keeps what the capture needs of what evidence stored
      const image = { object: stored.object, artifact: stored.artifact, width: stored.width, height: stored.height };
      await this.rpc.call(SUBJECTS.sessionsCaptureImageStored, { caller: c.caller, stored: image, connection: c.connection }, { principal: null, requestId: c.requestId });
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

  /** A frame of the liveness challenge, streamed unread to the evidence service like an image. */
  @Route('PUT /v1/capture/challenge/frames/:index', {
    access: { auth: 'capture' },
    tag: 'Capture',
    summary: 'Upload a frame of the liveness challenge',
    description: `The raw image as the body (JPEG, PNG or WebP by its bytes; at most ${CHALLENGE_FRAME_LIMITS.max_bytes / 1024 / 1024} MiB), taken while the applicant turns their head as \`challenge.steps\` of \`GET /v1/capture\` asks; \`offset_ms\` is when it was taken, in milliseconds from the first frame. Indexes \`0\` to \`${CHALLENGE_FRAME_LIMITS.max - 1}\`, in the order taken; a frame replaces an earlier one of its index. A session whose workflow has no \`liveness\` takes none (404).`,
    params: { index: { description: `\`0\` to \`${CHALLENGE_FRAME_LIMITS.max - 1}\`.`, schema: z.coerce.number().int().min(0).max(CHALLENGE_FRAME_LIMITS.max - 1) } },
    query: z.object({ offset_ms: z.coerce.number().int().min(0).max(9_999_999).meta({ description: 'When the frame was taken, in milliseconds from the first frame.' }) }),
    body: { kind: 'image' },
    success: { status: 200, description: 'The frame stored, with its size.', body: { data: 'CaptureFrameStored' } },
    errors: ['invalid_json', 'resource_not_found', 'file_too_large', 'request_too_large', 'unsupported_file_type', 'invalid_image', 'validation_error'],
  })
  async frame(@Param('index') index: string, @Query('offset_ms') offset: unknown, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @CaptureOf() c: CaptureCall) {
    try {
      if (!/^[0-9]$/.test(index) || Number(index) >= CHALLENGE_FRAME_LIMITS.max) throw DomainError.notFound();
      const capture = await this.rpc.call(SUBJECTS.sessionsCaptureGet, { caller: c.caller, connection: c.connection }, { principal: null, requestId: c.requestId });
      if (!capture.challenge) throw new DomainError('resource_not_found', { message: 'This verification has no liveness challenge.' });
      const ms = typeof offset === 'string' && /^[0-9]{1,7}$/.test(offset) ? offset : null;
      if (ms === null) throw DomainError.validation([{ code: 'custom', message: 'offset_ms must be an integer from 0 to 9999999: when the frame was taken, in milliseconds from the first frame', path: ['offset_ms'] }]);
      const body = typeof (req.body as Readable | undefined)?.pipe === 'function' ? (req.body as Readable) : req.raw;
      const base = this.cfg.EVIDENCE_URL;
      const url = base && `${base}/captures/${encodeURIComponent(c.caller.session_id)}/frames/${index}/${ms}`;
      const principal = capturePrincipal(c.caller, this.cfg.REGION);
      const stored = (await this.proxy.upload(url, { principal, requestId: c.requestId }, body, req.headers['content-type'] ?? 'application/octet-stream', this.cfg.CAPTURE_UPLOAD_TIMEOUT_MS, 'PUT')) as CaptureFrameStored;
      const frame = { object: stored.object, index: stored.index, width: stored.width, height: stored.height };
      await this.rpc.call(SUBJECTS.sessionsCaptureImageStored, { caller: c.caller, stored: frame, connection: c.connection }, { principal: null, requestId: c.requestId });
      return { data: stored };
    } catch (e) {
      if (!req.raw.complete) {
        reply.header('connection', 'keep-alive');
        reply.raw.once('finish', () => discardRest(req.raw));
      }
      throw e;
    }
  }

  /** One uploaded image checked by the region's reader while the applicant can still take it again. */
  @Route('POST /v1/capture/images/:artifact/check', {
    access: { auth: 'capture' },
    tag: 'Capture',
    summary: 'Check an uploaded image',
    description:
      'Checks the image uploaded as `artifact` with the region’s reader, so that the applicant can take it again before submitting: a side of the document must read (its machine-readable zone or barcode; the front of a card or a licence, which carries neither, must show one sharp face), a selfie must show one face, large enough, looking at the camera, eyes open, sharp. Changes nothing. An image not uploaded yet is 404.',
    params: { artifact: { description: '`front`, `back` or `selfie`.', schema: z.enum(['front', 'back', 'selfie']) } },
    body: { component: 'CaptureImageCheckInput', optional: true, example: { document_type: 'passport' } },
    success: { status: 200, description: 'Whether the image is usable, why not, and what to tell the applicant.', body: { data: 'CaptureImageCheck' } },
    errors: ['resource_not_found', 'validation_error'],
  })
  async check(@Param('artifact') artifact: string, @Body() body: unknown, @CaptureOf() c: CaptureCall) {
    if (!(CAPTURE_IMAGES as readonly string[]).includes(artifact)) throw DomainError.notFound();
    const principal = capturePrincipal(c.caller, this.cfg.REGION);
    return { data: await this.rpc.call(SUBJECTS.evidenceCaptureCheck, { session_id: c.caller.session_id, artifact, body }, { principal, requestId: c.requestId, timeoutMs: this.cfg.CAPTURE_UPLOAD_TIMEOUT_MS }) };
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
