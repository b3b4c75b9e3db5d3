import { availableParallelism } from 'node:os';
import { SUBJECTS } from '@verity/contracts';
import { internalHttpEnv, readingPoolEnv, type ServiceConfigOf, type ServiceDefinition } from '@verity/platform';
import { z } from 'zod';
import { ID_SCAN_MIGRATIONS } from './database/migrations.js';

/**
 * Configuration of the ID-scan service beyond the platform's (validated at start like the rest). The per-image and
 * pixel limits are the API's (docs/id-scan.md), not configuration.
 */
export const idScanEnv = {
  ...internalHttpEnv,
  /** Largest request body, multipart framing included: 21 MiB plus 64 KiB of framing (as the gateway). */
  ID_SCAN_BODY_LIMIT: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(21 * 1024 * 1024 + 64 * 1024),
  /** Uploads read at the same time; more wait unread (their bytes stay in the network's buffers) until a slot frees. */
  ID_SCAN_MAX_CONCURRENT_UPLOADS: z.coerce.number().int().min(1).max(256).default(8),
  /** Images decoded at the same time (sharp work). Defaults to the number of cores. */
  ID_SCAN_IMAGE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(availableParallelism()),
  ...readingPoolEnv,
};

export const ID_SCAN_SERVICE: ServiceDefinition<typeof idScanEnv> = {
  name: 'id-scan',
  migrations: ID_SCAN_MIGRATIONS,
  healthSubject: SUBJECTS.idScanHealth,
  env: idScanEnv,
};

/** What `CONFIG` holds in this service: the platform's variables and the ones above, as loaded. */
export type IdScanConfig = ServiceConfigOf<typeof idScanEnv>;
