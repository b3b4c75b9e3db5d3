import { pipeline } from 'node:stream/promises';
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { CONFIG, InternalHttpServer, LOGGER, type Logger } from '@verity/platform';
import { EvidenceService } from './artifacts/evidence.service.js';
import type { EvidenceConfig } from './definition.js';

/**
 * The evidence service's internal HTTP side: `GET /sessions/{id}/images/{artifact}`, signed by the gateway,
 * answered with the JPEG bytes streamed (or a JSON error). Images never travel over NATS.
 */
@Injectable()
export class EvidenceHttp implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly server: InternalHttpServer;
  private boundPort = 0;

  constructor(
    @Inject(CONFIG) cfg: EvidenceConfig,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly evidence: EvidenceService,
  ) {
    this.server = new InternalHttpServer({
      name: 'evidence',
      region: cfg.REGION,
      port: cfg.INTERNAL_PORT,
      host: cfg.HOST,
      secret: cfg.INTERNAL_AUTH_SECRET,
      log,
    });
    this.server.route('GET', /^\/sessions\/([^/]*)\/images\/([^/]*)$/, async (_req, res, caller, [id, artifact]) => {
      const blob = await this.evidence.openImage(caller, id!, artifact!);
      res.writeHead(200, {
        'content-type': 'image/jpeg',
        'content-length': blob.size,
        'cache-control': 'no-store, private',
        'x-content-type-options': 'nosniff',
      });
      try {
        await pipeline(blob.stream, res);
      } catch (e) {
        // the client went away, or the bytes vanished mid-read: the response is cut, never completed short
        if (!res.destroyed) res.destroy();
        this.log.warn({ err: e, request_id: caller.requestId }, 'image stream ended early');
      }
    });
  }

  /** The bound port (INTERNAL_PORT 0 picks a free one: tests). */
  get port(): number {
    return this.boundPort;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.boundPort = await this.server.listen();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server.close();
  }
}
