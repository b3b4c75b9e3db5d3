import { Controller, Get, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { loadDocument, STATIC_CACHE_CONTROL, type StaticFile } from './document.js';

/**
 * `GET /v1/openapi.json` (docs/openapi.md): the OpenAPI 3.1 document of this gateway, generated at build time. No
 * credential: the route table declares it public, and the access hook counts it against the pre-authentication
 * IP limit only.
 */
@Controller('v1/openapi.json')
export class OpenApiController {
  private readonly file: StaticFile = loadDocument();

  @Get()
  document(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    reply.headers(this.file.headers).header('cache-control', STATIC_CACHE_CONTROL).header('etag', this.file.etag);
    if (req.headers['if-none-match'] === this.file.etag) return reply.code(304).send();
    return reply.code(200).send(this.file.body);
  }
}
