import type http from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, InternalHttpHost, LOGGER, sendData, type InternalCaller, type Logger } from '@verity/platform';
import type { OpenedBlob } from './artifacts/artifact-store.js';
import { EvidenceService } from './artifacts/evidence.service.js';
import { CaptureService } from './capture/capture.service.js';
import type { EvidenceConfig } from './config.js';
import { PrivacyService } from './privacy/privacy.service.js';

/**
 * The evidence service's internal HTTP side, signed by the gateway: `GET /sessions/{id}/images/{artifact}`,
 * answered with the JPEG bytes streamed (or a JSON error); `GET /sessions/{id}/stored-images/{source}/{artifact}`,
 * any stored image of a session for a data subject request's export, the same way; `PUT
 * /captures/{id}/images/{artifact}`, a live capture's upload, the raw image as the body; `PUT
 * /captures/{id}/frames/{index}/{offset_ms}`, a frame of its liveness challenge, the same way. Images never travel
 * over NATS.
 */
@Injectable()
export class EvidenceHttp extends InternalHttpHost {
  constructor(
    @Inject(CONFIG) cfg: EvidenceConfig,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly evidence: EvidenceService,
    capture: CaptureService,
    privacy: PrivacyService,
  ) {
    super('evidence', cfg, log);
    this.server.route('PUT', /^\/captures\/([^/]*)\/images\/([^/]*)$/, async (req, res, caller, [id, artifact]) => {
      sendData(res, await capture.upload(caller, id!, artifact!, req.body));
    });
    this.server.route('PUT', /^\/captures\/([^/]*)\/frames\/([^/]*)\/([^/]*)$/, async (req, res, caller, [id, index, offset]) => {
      sendData(res, await capture.frame(caller, id!, index!, offset!, req.body));
    });
    this.server.route('GET', /^\/sessions\/([^/]*)\/images\/([^/]*)$/, async (_req, res, caller, [id, artifact]) => {
      await this.sendJpeg(res, caller, await this.evidence.openImage(caller, id!, artifact!));
    });
    this.server.route('GET', /^\/sessions\/([^/]*)\/stored-images\/([^/]*)\/([^/]*)$/, async (_req, res, caller, [id, source, artifact]) => {
      await this.sendJpeg(res, caller, await privacy.openStoredImage(caller, id!, source!, artifact!));
    });
  }

  /** Streams an opened image as the 200 answer. */
  private async sendJpeg(res: http.ServerResponse, caller: InternalCaller, blob: OpenedBlob): Promise<void> {
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
  }
}
