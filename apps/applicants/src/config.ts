import { SUBJECTS } from '@verity/contracts';
import { durationEnv, type ServiceConfigOf, type ServiceDefinition } from '@verity/platform';
import { z } from 'zod';
import { APPLICANTS_MIGRATIONS } from './database/migrations.js';

/** An Ed25519 private key as the base64 of its 32-byte seed (`openssl rand -base64 32`). */
const seed = z.string().refine((s) => Buffer.from(s, 'base64').length === 32 && /^[A-Za-z0-9+/]{43}=$/.test(s), {
  message: 'must be 32 random bytes in base64 (openssl rand -base64 32)',
});

/** A retired key's public half: the `x` of its entry in /.well-known/erasure-keys.json (base64url, 32 bytes). */
const publicX = z.string().regex(/^[A-Za-z0-9_-]{43}$/, { message: 'must be the base64url x of an Ed25519 public key' });

/** Configuration of the applicants service beyond the platform's (validated at start like the rest). */
export const applicantsEnv = {
  /** Signs the region's erasure certificates (docs/privacy.md). Each region has its own; never committed. */
  ERASURE_SIGNING_KEY: seed,
  /**
   * Public keys of earlier signing keys, comma-separated: still published, so certificates they signed verify
   * after a rotation (docs/operations.md, "Rotating every secret").
   */
  ERASURE_RETIRED_PUBLIC_KEYS: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
    .pipe(z.array(publicX)),
  /** How often a replica looks for data subject requests to run (a new request is also started at once). */
  DSAR_POLL_MS: durationEnv('1s', 50, 60_000),
};

export const APPLICANTS_SERVICE: ServiceDefinition<typeof applicantsEnv> = {
  name: 'applicants',
  migrations: APPLICANTS_MIGRATIONS,
  healthSubject: SUBJECTS.applicantsHealth,
  env: applicantsEnv,
};

/** What `CONFIG` holds in this service: the platform's variables and the ones above, as loaded. */
export type ApplicantsConfig = ServiceConfigOf<typeof applicantsEnv>;
