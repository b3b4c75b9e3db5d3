import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import {
  ASSET_CACHE_CONTROL,
  PAGE_CACHE_CONTROL,
  SECURITY_HEADERS,
  assetVariant,
  capturePage,
  errorPage,
  type PageKind,
} from '@verity/capture-page';
import { SUBJECTS } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { hashCaptureSecret, isCaptureSecret } from '@verity/keys';
import { LOGGER, RpcClient, type Logger } from '@verity/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Route } from '../access/routes.js';
import { deviceCookie, newDeviceId, readDeviceId } from './device-cookie.js';

/**
 * The hosted capture page (docs/capture.md "The hosted page"): `GET /verify/<client_secret>` serves
 * the flow while the link is usable and a page that says why not otherwise; `GET /verify/assets/<file>` serves its
 * script, stylesheet and pictures. No API key: the page's script calls /v1/capture with the secret itself.
 * Every answer is HTML or a static file with the page's CSP, never the error envelope, never a stack trace, and
 * never the secret echoed anywhere but the page that may use it.
 */
@Controller()
export class CapturePageController {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  @Get('verify/assets/:file')
  async asset(@Param('file') file: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    reply.headers(SECURITY_HEADERS);
    // gzip when the browser takes it (the face guide's model and WebAssembly are megabytes)
    const a = await assetVariant(file, req.headers['accept-encoding']);
    if (!a) {
      return reply.code(404).header('cache-control', PAGE_CACHE_CONTROL).header('content-type', 'text/plain; charset=utf-8').send('Not found.\n');
    }
    reply.header('cache-control', ASSET_CACHE_CONTROL).headers(a.headers);
    if (req.headers['if-none-match'] === a.etag) return reply.code(304).send();
    return reply.code(200).send(a.body);
  }

  @Route('GET /verify/:secret', {
    access: { auth: 'public', ipLimited: true },
    tag: 'Capture',
    summary: 'The hosted capture page',
    description:
      "The page a live session's `url` points at: consent, the document, a selfie when the workflow needs one, submit. HTML with a strict Content-Security-Policy, nothing from another origin. No key; counts against the pre-authentication IP limit (past it, a page that says so, 429). Never the error envelope.",
    params: { secret: { description: "The session's `client_secret` (`vcs_` + 43 characters)." } },
    success: { status: 200, description: 'The capture page.', body: { html: true } },
    other: [
      { status: 404, description: 'The link is unknown.', body: { html: true } },
      { status: 410, description: 'The link has expired, or was used.', body: { html: true } },
      { status: 429, description: 'Too many requests from this address.', body: { html: true } },
      { status: 500, description: 'Something failed; nothing of the link is shown.', body: { html: true } },
      { status: 503, description: 'The region cannot serve the page now.', body: { html: true } },
    ],
  })
  async page(@Param('secret') secret: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    const state = await this.resolve(secret, req.requestId || req.id);
    reply
      .headers(SECURITY_HEADERS)
      .header('cache-control', PAGE_CACHE_CONTROL)
      .header('content-type', 'text/html; charset=utf-8');
    if (readDeviceId(req.headers.cookie) === null) reply.header('set-cookie', deviceCookie(newDeviceId(), req.protocol === 'https'));
    if (state === 'open') return reply.code(200).send(capturePage(secret));
    const p = errorPage(state);
    return reply.code(p.status).send(p.html);
  }

  /**
   * What the link is worth now. A secret of the wrong shape is unknown without asking anyone; otherwise the
   * sessions service resolves its SHA-256 hash (the secret itself never leaves the gateway).
   */
  private async resolve(secret: string, requestId: string): Promise<'open' | PageKind> {
    if (!isCaptureSecret(secret)) return 'unknown';
    const secretHash = hashCaptureSecret(secret);
    try {
      const r = await this.rpc.call(SUBJECTS.sessionsCaptureResolve, { secret_hash: secretHash }, { principal: null, requestId });
      switch (r.state) {
        case 'open':
          return 'open';
        case 'expired':
          return 'expired';
        case 'closed':
          return 'used';
      }
      this.log.error({ request_id: requestId, state: String(r.state) }, 'capture link: unexpected resolve state');
      return 'error';
    } catch (e) {
      const code: string | null = e instanceof DomainError ? e.code : null;
      switch (code) {
        case 'invalid_capture_token':
        case 'resource_not_found':
          return 'unknown';
        case 'capture_expired':
          return 'expired';
        case 'invalid_state_transition':
          return 'used';
        case 'service_unavailable':
          return 'unavailable';
      }
      // the cause is logged with the request id; the applicant sees a plain page (the secret is in neither)
      this.log.error({ err: e, request_id: requestId }, 'capture link: resolve failed');
      return 'error';
    }
  }
}
