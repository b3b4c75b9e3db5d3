import { Inject, Injectable } from '@nestjs/common';
import { DomainError, isErrorCode, type ErrorData } from '@verity/errors';
import { signInternalRequest, type Logger } from '@verity/platform';
import type { FastifyReply } from 'fastify';
import { PassThrough, type Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import type { Caller } from '../http/caller.js';
import { GATEWAY_LOGGER } from '../tokens.js';

/**
 * Streams bytes between clients and the services that handle them (ID-scan uploads, evidence images) over the
 * region's internal HTTP, never buffering a whole body in the gateway. The caller travels in signed headers.
 */
@Injectable()
export class StreamProxy {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly cfg: GatewayConfig,
    @Inject(GATEWAY_LOGGER) private readonly log: Logger,
  ) {}

  private headers(c: Caller, timeoutMs: number): Record<string, string> {
    if (!this.cfg.INTERNAL_AUTH_SECRET) throw new DomainError('service_unavailable');
    return signInternalRequest(this.cfg.INTERNAL_AUTH_SECRET, c.principal, c.requestId, Date.now() + timeoutMs);
  }

  /** Sends the request body stream to `url` (POST, or PUT); relays JSON `{ ok, data | error }` answers. */
  async upload(url: string | undefined, c: Caller, body: Readable, contentType: string, timeoutMs: number, method: 'POST' | 'PUT' = 'POST'): Promise<unknown> {
    if (!url) throw new DomainError('service_unavailable');
    // undici destroys the body stream it was given when the service answers before reading all of it (an upload
    // refused part-way); destroying the client's request would close the client's connection before the
    // answer is relayed, so undici gets a pass-through
    const pass = new PassThrough();
    body.pipe(pass);
    // a client that goes away mid-upload ends the upload to the service too
    body.once('close', () => {
      if (!body.readableEnded) pass.destroy(new Error('the client closed the upload'));
    });
    let res;
    try {
      res = await request(url, {
        method,
        dispatcher: this.agent,
        headers: { ...this.headers(c, timeoutMs), 'content-type': contentType },
        body: pass,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (e) {
      this.log.warn({ err: e, request_id: c.requestId }, 'stream upload failed');
      throw new DomainError('service_unavailable');
    }
    return this.relayJson(res.body, c);
  }

  /** Streams a binary answer from `url` to the client, with the given headers; errors arrive as JSON. */
  async download(url: string | undefined, c: Caller, reply: FastifyReply, headers: Record<string, string>, timeoutMs: number): Promise<void> {
    if (!url) throw new DomainError('service_unavailable');
    let res;
    try {
      res = await request(url, { method: 'GET', dispatcher: this.agent, headers: this.headers(c, timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    } catch (e) {
      this.log.warn({ err: e, request_id: c.requestId }, 'stream download failed');
      throw new DomainError('service_unavailable');
    }
    if (res.statusCode !== 200) {
      await this.relayJson(res.body, c);
      throw new DomainError('internal_error');
    }
    reply.headers(headers);
    const length = res.headers['content-length'];
    if (typeof length === 'string') reply.header('content-length', length);
    await reply.send(res.body);
  }

  private async relayJson(body: Readable & { json(): Promise<unknown> }, c: Caller): Promise<unknown> {
    let parsed: { ok?: boolean; data?: unknown; error?: ErrorData };
    try {
      parsed = (await body.json()) as typeof parsed;
    } catch (e) {
      this.log.error({ err: e, request_id: c.requestId }, 'internal service answered non-JSON');
      throw new DomainError('internal_error');
    }
    if (parsed.ok) return parsed.data;
    if (parsed.error && isErrorCode(parsed.error.code)) throw DomainError.fromData(parsed.error);
    throw new DomainError('internal_error');
  }
}
