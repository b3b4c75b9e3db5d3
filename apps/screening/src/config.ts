import { SUBJECTS } from '@verity/contracts';
import { durationEnv, type ServiceConfigOf, type ServiceDefinition } from '@verity/platform';
import { z } from 'zod';
import { SCREENING_MIGRATIONS } from './database/migrations.js';

export const DEFAULT_RULESET_CACHE_SIZE = 1000;
export const DEFAULT_WATCHLIST_REVIEW_THRESHOLD = 0.8;

/** Configuration of the screening service beyond the platform's (validated at start like the rest). */
export const screeningEnv = {
  /** Compiled rule sets (one per template version) kept in memory, least recently used evicted first. */
  SCREENING_RULESET_CACHE_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_RULESET_CACHE_SIZE),
  /** A watchlist load that no batch reached for this long is abandoned (its loader died); docs/watchlist.md. */
  WATCHLIST_LOAD_IDLE_TIMEOUT: durationEnv('30m', 10_000, 7 * 86_400_000),
  /** A listed person scoring at least this is a hit: the live `watchlist` check goes to `review` (docs/watchlist.md). */
  WATCHLIST_REVIEW_THRESHOLD: z.coerce.number().min(0.5).max(1).default(DEFAULT_WATCHLIST_REVIEW_THRESHOLD),
  /** A hit scoring at least this fails the check; `none` (the default): no score fails it by itself, a person decides. */
  WATCHLIST_FAIL_THRESHOLD: z
    .union([z.literal('none'), z.coerce.number().min(0.5).max(1)])
    .default('none')
    .transform((v) => (v === 'none' ? null : v)),
};

export const SCREENING_SERVICE: ServiceDefinition<typeof screeningEnv> = {
  name: 'screening',
  migrations: SCREENING_MIGRATIONS,
  healthSubject: SUBJECTS.screeningHealth,
  env: screeningEnv,
};

/** What `CONFIG` holds in this service: the platform's variables and the ones above, as loaded. */
export type ScreeningConfig = ServiceConfigOf<typeof screeningEnv>;
