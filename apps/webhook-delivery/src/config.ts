import { SUBJECTS } from '@verity/contracts';
import { durationEnv, envBool, eventStreamEnv, type ServiceConfigOf, type ServiceDefinition } from '@verity/platform';
import { resolverOf } from '@verity/ssrf';
import { z } from 'zod';
import { WEBHOOK_DELIVERY_MIGRATIONS } from './database/migrations.js';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, RetryScheduleError } from './delivery/retry-schedule.js';
import { isSecretKey } from './subscriptions/secret-box.js';

/** Configuration of the webhook-delivery service beyond the platform's (validated at start like the rest). */
export const webhookEnv = {
  /**
   * 32 bytes, standard base64: the AES-256-GCM key that encrypts subscription signing secrets at rest.
   * Required; `npm start` supplies a per-checkout development key (docs/configuration.md).
   */
  WEBHOOK_SECRET_KEY: z.string().refine(isSecretKey, 'must be 32 bytes in standard base64 (openssl rand -base64 32)'),
  /** Local development and tests only: lets receivers live at loopback, private, link-local, CGNAT and ULA addresses. */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: envBool.default(false),
  /**
   * Name servers the SSRF guard asks (`address[:port]`, comma-separated), for example the cluster's resolver or a
   * filtering one; empty: the operating system's resolver. Every address of the answer is checked either way.
   */
  WEBHOOK_DNS_SERVERS: z
    .string()
    .default('')
    .superRefine((v, ctx) => {
      try {
        resolverOf(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: `not a list of address[:port]: ${(e as Error).message}` });
      }
    }),
  /** Delays before each retry after a failed attempt (docs/webhooks.md), as milliseconds once loaded. */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE)
    .transform((v, ctx) => {
      try {
        return parseRetrySchedule(v);
      } catch (e) {
        if (!(e instanceof RetryScheduleError)) throw e;
        ctx.addIssue({ code: 'custom', message: e.message });
        return z.NEVER;
      }
    }),
  /** Attempts in flight at once per process. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
  /** How often the dispatcher looks for due attempts besides being woken (retries come due, a crashed process's leases run out). */
  WEBHOOK_POLL_MS: durationEnv('1s', 20, 60_000),
  ...eventStreamEnv,
};

export const WEBHOOK_DELIVERY_SERVICE: ServiceDefinition<typeof webhookEnv> = {
  name: 'webhook-delivery',
  migrations: WEBHOOK_DELIVERY_MIGRATIONS,
  healthSubject: SUBJECTS.webhooksHealth,
  env: webhookEnv,
};

/** What `CONFIG` holds in this service: the platform's variables and the ones above, as loaded. */
export type WebhookConfig = ServiceConfigOf<typeof webhookEnv>;
