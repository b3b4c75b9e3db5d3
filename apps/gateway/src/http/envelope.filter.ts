import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Logger } from '@verity/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError, toPublicError } from './errors.js';

/** Every error a controller (or the router) raises leaves as the error envelope. */
@Catch()
export class EnvelopeFilter implements ExceptionFilter {
  constructor(
    private readonly log: Logger,
    private readonly docsBaseUrl: string,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendError(reply, req, toPublicError(exception, this.log, req.requestId), this.docsBaseUrl);
  }
}
