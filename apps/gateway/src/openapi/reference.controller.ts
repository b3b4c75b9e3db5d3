import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { DomainError } from '@verity/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { loadReference, STATIC_CACHE_CONTROL, type StaticFile } from './document.js';

/**
 * `GET /docs` and `GET /docs/`: the API reference rendered from the OpenAPI document at build time, one static
 * page with its stylesheet inline and nothing from another origin. No key; like the error page beside it, served
 * as a static asset and not counted against the IP limit.
 */
@Controller('docs')
export class ReferenceController {
  private readonly file: StaticFile = loadReference();

  @Get()
  reference(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    reply.headers(this.file.headers).header('cache-control', STATIC_CACHE_CONTROL).header('etag', this.file.etag);
    if (req.headers['if-none-match'] === this.file.etag) return reply.code(304).send();
    return reply.code(200).send(this.file.body);
  }

  /**
   * `/docs/` (Nest strips a trailing slash from a route, so it is the empty rest of a wildcard here); any other
   * page under /docs that no route serves is the usual 404, never echoed. Routes of their own under /docs (the
   * error catalogue) win over the wildcard.
   */
  @Get('*')
  withSlash(@Param('*') rest: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    if (rest !== '') throw new DomainError('route_not_found');
    return this.reference(req, reply);
  }
}
