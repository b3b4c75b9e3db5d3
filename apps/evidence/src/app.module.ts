import { Module } from '@nestjs/common';
import { CONFIG, Sql } from '@verity/platform';
import sharp from 'sharp';
import { ActivityRepository } from './activity/activity.repository.js';
import { ARTIFACT_STORE, DEFAULT_CHUNK_BYTES, PostgresArtifactStore } from './artifacts/artifact-store.js';
import { objectStoreOptions } from './artifacts/object-store-config.js';
import { S3ArtifactStore } from './artifacts/s3-artifact-store.js';
import { EvidenceRepository } from './artifacts/evidence.repository.js';
import { EvidenceService } from './artifacts/evidence.service.js';
import type { EvidenceConfig } from './config.js';
import { EvidenceHttp } from './evidence.http.js';
import { EvidenceRpcController } from './evidence.rpc.controller.js';
import { CAPTURE_DECODER, CaptureService } from './capture/capture.service.js';
import { CaptureReader } from './capture/reader.js';
import { UploadsRepository } from './capture/uploads.repository.js';
import { ImageDecoder } from '@verity/images';
import { PrivacyService } from './privacy/privacy.service.js';
import { StoredImagesRepository } from './privacy/stored-images.repository.js';
import { RetentionJob } from './retention/retention.job.js';

// once per process: every image is new (synthetic ones are rendered once), and concurrency is decided by the
// decoder's slots and the reader's threads, not multiplied inside libvips
sharp.cache(false);
sharp.concurrency(1);

@Module({
  providers: [
    {
      provide: ARTIFACT_STORE,
      inject: [Sql, CONFIG],
      useFactory: async (sql: Sql, cfg: EvidenceConfig) => {
        const inPostgres = new PostgresArtifactStore(sql.pool, cfg.EVIDENCE_READ_CHUNK_BYTES ?? DEFAULT_CHUNK_BYTES);
        const objects = objectStoreOptions(cfg);
        if (!objects) return inPostgres;
        const store = new S3ArtifactStore(sql.pool, S3ArtifactStore.client(objects), objects, inPostgres);
        await store.assertReachable();
        return store;
      },
    },
    EvidenceRepository,
    ActivityRepository,
    UploadsRepository,
    { provide: CAPTURE_DECODER, inject: [CONFIG], useFactory: (cfg: EvidenceConfig) => new ImageDecoder(cfg.EVIDENCE_IMAGE_CONCURRENCY) },
    { provide: CaptureReader, inject: [CONFIG], useFactory: (cfg: EvidenceConfig) => CaptureReader.start(cfg) },
    CaptureService,
    EvidenceService,
    StoredImagesRepository,
    PrivacyService,
    RetentionJob,
    EvidenceRpcController,
    EvidenceHttp,
  ],
})
export class EvidenceModule {}
