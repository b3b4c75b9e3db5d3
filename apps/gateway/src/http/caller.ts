import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { CaptureCaller, CaptureConnection, Principal } from '@verity/contracts';
import type { CallOptions } from '@verity/platform';
import type { FastifyRequest } from 'fastify';

export interface Caller extends CallOptions {
  principal: Principal;
  requestId: string;
}

/** The authenticated caller of a /v1 route, as the access hook attached it: what every service call carries. */
export const CallerOf = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const req = ctx.switchToHttp().getRequest<FastifyRequest>();
  if (!req.principal) throw new Error('route reached without a principal');
  return { principal: req.principal, requestId: req.requestId };
});

/** The caller of a capture route: the session its client secret resolved to, and what the connection showed. */
export interface CaptureCall {
  caller: CaptureCaller;
  connection: CaptureConnection;
  requestId: string;
}

export const CaptureOf = createParamDecorator((_: unknown, ctx: ExecutionContext): CaptureCall => {
  const req = ctx.switchToHttp().getRequest<FastifyRequest>();
  if (!req.capture) throw new Error('capture route reached without a resolved client secret');
  // an ended capture let through for an idempotent replay never reaches a handler (fail closed)
  if (req.capture.refusal) throw req.capture.refusal;
  return { caller: req.capture.caller, connection: req.capture.connection, requestId: req.requestId };
});
