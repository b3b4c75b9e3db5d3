import { SUBJECTS } from '@verity/contracts';
import { internalHttpEnv, type InternalHttpConfig, type ServiceConfig, type ServiceDefinition } from '@verity/platform';
import { z } from 'zod';
import { EVIDENCE_MIGRATIONS } from './database/migrations.js';

export const EVIDENCE_SERVICE: ServiceDefinition = {
  name: 'evidence',
  migrations: EVIDENCE_MIGRATIONS,
  healthSubject: SUBJECTS.evidenceHealth,
};

/** The evidence service's own configuration, on top of the platform's. */
export const evidenceEnv = {
  ...internalHttpEnv,
  /** Where artifact bytes live. Only `postgres` (the service's own schema) exists today; an S3-compatible store is planned. */
  EVIDENCE_STORE: z.enum(['postgres']).default('postgres'),
  /** Bytes read from the store per query while streaming an image (memory held per request). */
  EVIDENCE_READ_CHUNK_BYTES: z.coerce.number().int().min(64 * 1024).max(16 * 1024 * 1024).default(1024 * 1024),
};
export type EvidenceConfig = ServiceConfig & InternalHttpConfig & { EVIDENCE_STORE: 'postgres'; EVIDENCE_READ_CHUNK_BYTES: number };
