import { Controller, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Route } from '../access/routes.js';
import { loadDocument, STATIC_CACHE_CONTROL, type StaticFile } from './document.js';

/**
 * `GET /v1/openapi.json` (docs/openapi.md): the OpenAPI 3.1 document of this gateway, generated at build time. No
 * credential: its declaration makes it public, and the access hook counts it against the pre-authentication
 * IP limit only.
 */
@Controller()
export class OpenApiController {
  private readonly file: StaticFile = loadDocument();

  @Route('GET /v1/openapi.json', {
    access: { auth: 'public', ipLimited: true },
    tag: 'Reference',
    summary: 'This document',
    description: 'The OpenAPI 3.1 document of the region\'s gateway, generated at build time. No authentication; counts against the pre-authentication IP limit.',
    success: { status: 200, description: 'The document.', body: { openapi: true } },
  })
  document(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    reply.headers(this.file.headers).header('cache-control', STATIC_CACHE_CONTROL).header('etag', this.file.etag);
    if (req.headers['if-none-match'] === this.file.etag) return reply.code(304).send();
    return reply.code(200).send(this.file.body);
  }
}
