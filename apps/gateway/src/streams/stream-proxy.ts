import http from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@verity/errors';
import { BodySigner, CONFIG, INTERNAL_HEADERS, InternalHttpClient, LOGGER, RpcClient, STREAMED_BODY, type Logger } from '@verity/platform';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import type { GatewayConfig } from '../config.js';
import type { Caller } from '../http/caller.js';

/**
 * Streams bytes between clients and the services that handle them (ID-scan uploads, evidence images) over the
 * region's internal HTTP, never buffering a whole body in the gateway. Every request is signed over its method,
 * path, time and body by the platform's `InternalHttpClient` (libs/platform/service/src/internal-http-client.ts), which
 * also makes the GETs: an upload's body signature follows its bytes as an HTTP trailer, which is why uploads go
 * through Node's HTTP client (undici sends no request trailers).
 */
@Injectable()
export class StreamProxy {
  private readonly uploadAgent = new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 10_000 });
  private readonly client: InternalHttpClient;

  constructor(
    @Inject(CONFIG) private readonly cfg: GatewayConfig,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(RpcClient) rpc: RpcClient,
  ) {
    this.client = new InternalHttpClient(cfg.INTERNAL_AUTH_SECRET, rpc, log);
  }

  /** Sends the request body stream to `url` (POST, or PUT); relays JSON `{ ok, data | error }` answers. */
  async upload(url: string | undefined, c: Caller, body: Readable, contentType: string, timeoutMs: number, method: 'POST' | 'PUT' = 'POST'): Promise<unknown> {
    if (!url) throw new DomainError('service_unavailable');
    const target = new URL(url);
    const headers = this.client.headers(target, method, c, timeoutMs, STREAMED_BODY);
    // the body passes through the signer, which hashes it for the trailer; the service may answer before reading
    // all of it (an upload refused part-way): then the signer, never the client's request, is torn down, so the
    // client's connection stays open for the answer
    const signer = new BodySigner(this.cfg.INTERNAL_AUTH_SECRET, headers[INTERNAL_HEADERS.signature]!);
    body.pipe(signer);
    // a client that goes away mid-upload ends the upload to the service too
    body.once('close', () => {
      if (!body.readableEnded) signer.destroy(new Error('the client closed the upload'));
    });
    let req: http.ClientRequest | undefined;
    let res: http.IncomingMessage;
    try {
      res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        req = http.request(target, {
          method,
          agent: this.uploadAgent,
          headers: { ...headers, 'content-type': contentType, trailer: INTERNAL_HEADERS.bodySignature },
          signal: AbortSignal.timeout(timeoutMs),
        }, resolve);
        req.once('error', reject);
        signer.once('error', (e) => req!.destroy(e));
        signer.pipe(req, { end: false });
        signer.once('end', () => {
          req!.addTrailers(signer.trailers());
          req!.end();
        });
      });
    } catch (e) {
      signer.destroy();
      this.log.warn({ err: e, request_id: c.requestId }, 'stream upload failed');
      throw new DomainError('service_unavailable');
    }
    try {
      return await this.client.answer(() => readJson(res), c);
    } finally {
      if (!signer.readableEnded) {
        signer.unpipe(req);
        signer.destroy();
        req?.destroy();
      }
    }
  }

  /** Streams a binary answer from `url` to the client, with the given headers; errors arrive as JSON. */
  async download(url: string | undefined, c: Caller, reply: FastifyReply, headers: Record<string, string>, timeoutMs: number): Promise<void> {
    const res = await this.client.get(url, c, timeoutMs);
    reply.headers(headers);
    const length = res.headers['content-length'];
    if (typeof length === 'string') reply.header('content-length', length);
    await reply.send(res.body);
  }

  /**
   * A stored image's bytes from `url`, read whole (for an export's inlined images); null when nothing is stored
   * there any more (`artifact_not_available`, `resource_not_found`).
   */
  async fetchBytes(url: string | undefined, c: Caller, timeoutMs: number): Promise<Buffer | null> {
    let res;
    try {
      res = await this.client.get(url, c, timeoutMs);
    } catch (e) {
      if (e instanceof DomainError && (e.code === 'artifact_not_available' || e.code === 'resource_not_found')) return null;
      throw e;
    }
    try {
      return Buffer.from(await res.body.arrayBuffer());
    } catch (e) {
      this.log.warn({ err: e, request_id: c.requestId }, 'stored image download failed');
      throw new DomainError('service_unavailable');
    }
  }
}

/** The JSON answer of a service (small: the bytes only ever travel the other way). */
async function readJson(res: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 1024 * 1024) throw new Error('internal answer too large');
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
