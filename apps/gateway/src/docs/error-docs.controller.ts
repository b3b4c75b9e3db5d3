import { Controller, Get, Req, Res } from '@nestjs/common';
import { ERROR_CATALOGUE } from '@verity/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS_PAGE_CACHE_CONTROL, loadErrorsPage, type ErrorsPage } from './errors-page.js';

/**
 * `GET /docs/errors`: the error reference every `doc_url` points at (docs/errors.md). No key needed. The page is
 * built once at start and is the same for everyone, so it is served like a static asset (cacheable, with a
 * validator) and not counted against the pre-authentication IP limit: answering it costs less than the limit's
 * Redis call would.
 */
@Controller('docs')
export class ErrorDocsController {
  private readonly page: ErrorsPage = loadErrorsPage(ERROR_CATALOGUE);

  @Get('errors')
  errors(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    reply.headers(this.page.headers).header('cache-control', ERRORS_PAGE_CACHE_CONTROL).header('etag', this.page.etag);
    if (req.headers['if-none-match'] === this.page.etag) return reply.code(304).send();
    return reply.code(200).header('content-type', 'text/html; charset=utf-8').send(this.page.html);
  }
}
