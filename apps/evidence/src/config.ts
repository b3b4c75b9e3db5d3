import { availableParallelism } from 'node:os';
import { SUBJECTS } from '@verity/contracts';
import { faceThresholdsEnv, internalHttpEnv, readingPoolEnv, type ServiceConfigOf, type ServiceDefinition } from '@verity/platform';
import { z } from 'zod';
import { objectStoreEnv } from './artifacts/object-store-config.js';
import { EVIDENCE_MIGRATIONS } from './database/migrations.js';

/** Retention of stored images (docs/privacy.md): the service deletes them itself once they are this old. */
export const retentionEnv = {
  /** Days an image (a session's artifact or a capture upload) is kept after it was stored. */
  EVIDENCE_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(90),
  /** Rows deleted per statement (each with its blobs, in its own short transaction). */
  EVIDENCE_RETENTION_BATCH: z.coerce.number().int().min(1).max(10_000).default(100),
  /** How often the retention pass runs (and once shortly after start). */
  EVIDENCE_RETENTION_INTERVAL_MS: z.coerce.number().int().min(50).max(7 * 86_400_000).default(3_600_000),
};
export type RetentionConfig = z.infer<z.ZodObject<typeof retentionEnv>>;

/** Configuration of the evidence service beyond the platform's (validated at start like the rest). */
export const evidenceEnv = {
  ...internalHttpEnv,
  ...objectStoreEnv,
  /** Bytes read from the store per query while streaming an image (memory held per request). */
  EVIDENCE_READ_CHUNK_BYTES: z.coerce.number().int().min(64 * 1024).max(16 * 1024 * 1024).default(1024 * 1024),
  /**
   * Capture uploads (images and challenge frames) read at the same time, each buffered up to its size limit
   * (10 MiB, a frame 2 MiB) while it arrives.
   */
  EVIDENCE_MAX_CONCURRENT_UPLOADS: z.coerce.number().int().min(1).max(256).default(8),
  /** Uploads waiting unread (their bytes left in the network's buffers) for a slot, each until its deadline; one more is refused at once (503). */
  EVIDENCE_UPLOADS_WAITING: z.coerce.number().int().min(0).max(1024).default(16),
  /** Capture uploads decoded at the same time (sharp work). Defaults to the number of cores. */
  EVIDENCE_IMAGE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(availableParallelism()),
  /**
   * Threads of the reader of live runs (with face engines). Runs wait for a thread as long as their caller does:
   * the sessions service's job slots bound how many can wait.
   */
  READING_THREADS: readingPoolEnv.READING_THREADS,
  READING_WARM: readingPoolEnv.READING_WARM,
  ...faceThresholdsEnv,
  ...retentionEnv,
};

export const EVIDENCE_SERVICE: ServiceDefinition<typeof evidenceEnv> = {
  name: 'evidence',
  migrations: EVIDENCE_MIGRATIONS,
  healthSubject: SUBJECTS.evidenceHealth,
  env: evidenceEnv,
};

/** What `CONFIG` holds in this service: the platform's variables and the ones above, as loaded. */
export type EvidenceConfig = ServiceConfigOf<typeof evidenceEnv>;
