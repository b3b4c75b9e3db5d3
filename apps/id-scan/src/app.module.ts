import { Module } from '@nestjs/common';
import { CONFIG } from '@verity/platform';
import { AuditRepository } from './audit/audit.repository.js';
import type { IdScanConfig } from './definition.js';
import { IdScanRpcController } from './id-scan.rpc.controller.js';
import { EXTRACTORS, SyntheticExtractor, UnavailableLiveExtractor, type Extractors } from './scan/extractor.js';
import { configureSharp, ImageDecoder } from './scan/images.js';
import { ScanHttp } from './scan/scan.http.js';
import { IMAGE_DECODER, ScanService } from './scan/scan.service.js';

configureSharp();

@Module({
  providers: [
    { provide: IMAGE_DECODER, inject: [CONFIG], useFactory: (cfg: IdScanConfig) => new ImageDecoder(cfg.ID_SCAN_IMAGE_CONCURRENCY) },
    { provide: EXTRACTORS, useValue: { test: new SyntheticExtractor(), live: new UnavailableLiveExtractor() } satisfies Extractors },
    AuditRepository,
    ScanService,
    IdScanRpcController,
    ScanHttp,
  ],
})
export class IdScanModule {}
