import { configSection, envBool, eventStreamEnv, redisEnv, type ServiceConfig } from '@verity/platform';
import { z } from 'zod';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, RetryScheduleError } from './delivery/retry-schedule.js';
import { resolverOf } from './delivery/receiver.client.js';
import { isSecretKey } from './subscriptions/secret-box.js';

/** Configuration of the webhook-delivery service beyond the platform's (validated at start like the rest). */
export const webhookEnv = {
  ...redisEnv,
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
  /** Delays before each retry after a failed attempt (docs/webhooks.md). */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE)
    .superRefine((v, ctx) => {
      try {
        parseRetrySchedule(v);
      } catch (e) {
        if (!(e instanceof RetryScheduleError)) throw e;
        ctx.addIssue({ code: 'custom', message: e.message });
      }
    }),
  /** Attempts in flight at once per process. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
  /** How often the sweeper looks for due deliveries without a queued job (after a Redis loss) and stale attempts. */
  WEBHOOK_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  /** How long past its due time a delivery may wait in the queue before the sweeper enqueues it again. */
  WEBHOOK_SWEEP_GRACE_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  ...eventStreamEnv,
};

type WebhookEnv = z.infer<z.ZodObject<typeof webhookEnv>>;

export interface WebhookConfig extends Omit<WebhookEnv, 'WEBHOOK_RETRY_SCHEDULE'> {
  REGION: ServiceConfig['REGION'];
  /** Redis key prefix of the region (`<region>:` unless configured). */
  REDIS_KEY_PREFIX: string;
  /** Retry delays in milliseconds. */
  WEBHOOK_RETRY_SCHEDULE: number[];
}

export const WEBHOOK_CONFIG = Symbol('WEBHOOK_CONFIG');

/** The webhook-delivery part of a service configuration; defaults apply to what an in-process caller leaves out. */
export function webhookConfigOf(cfg: ServiceConfig): WebhookConfig {
  const w = configSection(webhookEnv, cfg);
  return {
    ...w,
    REGION: cfg.REGION,
    REDIS_KEY_PREFIX: w.REDIS_KEY_PREFIX ?? `${cfg.REGION}:`,
    WEBHOOK_RETRY_SCHEDULE: parseRetrySchedule(w.WEBHOOK_RETRY_SCHEDULE),
  };
}
