import { loadConfig, type ServiceConfig } from '@verity/platform';
import { z } from 'zod';

/** Configuration of the sessions service beyond the platform's (validated at start like the rest). */
export const sessionsEnv = {
  /** SMTP server of live invitations (`smtp://user:pass@host:587`, `smtps://…`). Unset: a log-only JSON transport. */
  SMTP_URL: z.url().optional(),
  SMTP_FROM: z.string().min(3).default('Verity <no-reply@verity.local>'),
  /** Base of the link in an invitation: `<INVITE_URL_BASE>/<session id>`. */
  INVITE_URL_BASE: z.url().default('http://127.0.0.1:8080/verify'),
  /** How often the outbox relay re-reads unrelayed events (it also runs at once after every commit). */
  OUTBOX_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  /** How often background jobs (test runs, invitations) are re-read (they also start at once after create). */
  JOBS_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /**
   * How long a template's pin (current version, checks, signing document) is kept between creates. A new
   * version drops it at once through an event; this bounds staleness should an event be lost. 0 disables.
   */
  TEMPLATE_PIN_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** JetStream duplicate window of the events stream when this service creates it (at least 2 minutes). */
  EVENTS_DUPLICATE_WINDOW_MS: z.coerce.number().int().min(120_000).max(86_400_000).default(600_000),
  /** How long the events stream keeps a message when this service creates it. */
  EVENTS_MAX_AGE_MS: z.coerce.number().int().min(60_000).default(7 * 86_400_000),
};

export type SessionsConfig = z.infer<z.ZodObject<typeof sessionsEnv>>;

export const SESSIONS_CONFIG = Symbol('SESSIONS_CONFIG');

/** The sessions part of a service configuration; defaults apply to what an in-process caller leaves out. */
export function sessionsConfigOf(cfg: ServiceConfig): SessionsConfig {
  const raw = Object.fromEntries(Object.entries(cfg).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
  return loadConfig(sessionsEnv, raw);
}
