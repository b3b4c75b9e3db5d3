import { Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CONFIG, observeReadingPool } from '@verity/platform';
import { ReadingPool } from '@verity/reading';
import { AuditRepository } from './audit/audit.repository.js';
import type { IdScanConfig } from './config.js';
import { IdScanRpcController } from './id-scan.rpc.controller.js';
import { EXTRACTORS, SyntheticExtractor, type Extractors } from './scan/extractor.js';
import { configureSharp, ImageDecoder } from '@verity/images';
import { LiveExtractor } from './scan/live-extractor.js';
import { ScanHttp } from './scan/scan.http.js';
import { IMAGE_DECODER, ScanService } from './scan/scan.service.js';

configureSharp();

const READING_POOL = Symbol('READING_POOL');

/** The live document reader: its threads load their engines before the service takes its first request (READING_WARM). */
async function startReadingPool(cfg: IdScanConfig): Promise<ReadingPool> {
  const pool = await ReadingPool.start({ threads: cfg.READING_THREADS, warm: cfg.READING_WARM });
  observeReadingPool(pool);
  return pool;
}

/**
 * Closes the reader after the internal HTTP server has closed (`beforeApplicationShutdown`, which lets scans in
 * flight finish), so that no read in progress loses its thread.
 */
@Injectable()
class ReadingPoolShutdown implements OnApplicationShutdown {
  constructor(@Inject(READING_POOL) private readonly pool: ReadingPool) {}

  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
  }
}

@Module({
  providers: [
    { provide: IMAGE_DECODER, inject: [CONFIG], useFactory: (cfg: IdScanConfig) => new ImageDecoder(cfg.ID_SCAN_IMAGE_CONCURRENCY) },
    { provide: READING_POOL, inject: [CONFIG], useFactory: startReadingPool },
    ReadingPoolShutdown,
    {
      provide: EXTRACTORS,
      inject: [CONFIG, READING_POOL],
      useFactory: (cfg: IdScanConfig, pool: ReadingPool): Extractors => ({
        test: new SyntheticExtractor(),
        live: new LiveExtractor(pool, { slots: pool.threads, maxWaiting: cfg.READING_MAX_WAITING, queueTimeoutMs: cfg.READING_QUEUE_TIMEOUT_MS }),
      }),
    },
    AuditRepository,
    ScanService,
    IdScanRpcController,
    ScanHttp,
  ],
})
export class IdScanModule {}
