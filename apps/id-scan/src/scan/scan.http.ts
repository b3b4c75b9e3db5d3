import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { CONFIG, InternalHttpServer, LOGGER, sendData, type Logger } from '@verity/platform';
import type { IdScanConfig } from '../definition.js';
import { ScanService } from './scan.service.js';

/** The ID-scan service's internal HTTP side: `POST /scan` with the raw multipart body, signed by the gateway. */
@Injectable()
export class ScanHttp implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly server: InternalHttpServer;
  private boundPort = 0;

  constructor(
    @Inject(CONFIG) cfg: IdScanConfig,
    @Inject(LOGGER) log: Logger,
    scans: ScanService,
  ) {
    this.server = new InternalHttpServer({
      name: 'id-scan',
      region: cfg.REGION,
      port: cfg.INTERNAL_PORT,
      host: cfg.HOST,
      secret: cfg.INTERNAL_AUTH_SECRET,
      log,
    });
    this.server.route('POST', /^\/scan$/, async (req, res, caller) => {
      sendData(res, await scans.scan(caller, req, req.headers['content-type']));
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
