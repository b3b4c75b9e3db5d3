import { SUBJECTS } from '@verity/contracts';
import type { ServiceConfig, ServiceDefinition } from '@verity/platform';
import { z } from 'zod';
import { SCREENING_MIGRATIONS } from './database/migrations.js';

export const SCREENING_SERVICE: ServiceDefinition = {
  name: 'screening',
  migrations: SCREENING_MIGRATIONS,
  healthSubject: SUBJECTS.screeningHealth,
};

export const DEFAULT_RULESET_CACHE_SIZE = 1000;

/** Configuration of the screening service beyond the shared groups. */
export const screeningEnv = {
  /** Compiled rule sets (one per template version) kept in memory, least recently used evicted first. */
  SCREENING_RULESET_CACHE_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_RULESET_CACHE_SIZE),
};

export type ScreeningConfig = ServiceConfig & z.infer<z.ZodObject<typeof screeningEnv>>;
