import { pipeline } from 'node:stream/promises';
import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, InternalHttpHost, LOGGER, sendData, type Logger } from '@verity/platform';
import { EvidenceService } from './artifacts/evidence.service.js';
import { CaptureService } from './capture/capture.service.js';
import type { EvidenceConfig } from './definition.js';

/**
 * The evidence service's internal HTTP side, signed by the gateway: `GET /sessions/{id}/images/{artifact}`,
 * answered with the JPEG bytes streamed (or a JSON error); `PUT /captures/{id}/images/{artifact}`, a live
 * capture's upload, the raw image as the body. Images never travel over NATS.
 */
@Injectable()
export class EvidenceHttp extends InternalHttpHost {
  constructor(
    @Inject(CONFIG) cfg: EvidenceConfig,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly evidence: EvidenceService,
    capture: CaptureService,
  ) {
    super('evidence', cfg, log);
    this.server.route('PUT', /^\/captures\/([^/]*)\/images\/([^/]*)$/, async (req, res, caller, [id, artifact]) => {
      sendData(res, await capture.upload(caller, id!, artifact!, req.body));
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
}
