import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, InternalHttpHost, LOGGER, sendData, type Logger } from '@verity/platform';
import type { IdScanConfig } from '../config.js';
import { ScanService } from './scan.service.js';

/** The ID-scan service's internal HTTP side: `POST /scan` with the raw multipart body, signed by the gateway. */
@Injectable()
export class ScanHttp extends InternalHttpHost {
  constructor(
    @Inject(CONFIG) cfg: IdScanConfig,
    @Inject(LOGGER) log: Logger,
    scans: ScanService,
  ) {
    super('id-scan', cfg, log);
    this.server.route('POST', /^\/scan$/, async (req, res, caller) => {
      sendData(res, await scans.scan(caller, req.body, req.headers['content-type']));
    });
  }
}
