import { SUBJECTS } from '@verity/contracts';
import { durationEnv, eventStreamEnv, type ServiceConfigOf, type ServiceDefinition } from '@verity/platform';
import { z } from 'zod';
import { SESSIONS_MIGRATIONS } from './database/migrations.js';

/** Configuration of the sessions service beyond the platform's (validated at start like the rest). */
export const sessionsEnv = {
  /** SMTP server of live invitations (`smtp://user:pass@host:587`, `smtps://…`). Unset: a log-only JSON transport. */
  SMTP_URL: z.url().optional(),
  SMTP_FROM: z.string().min(3).default('Verity <no-reply@verity.local>'),
  /** Longest wait on the mail server at each step of a send (connecting, its greeting, each reply). */
  SMTP_TIMEOUT: durationEnv('20s', 1000, 300_000),
  /**
   * Where the region's hosted capture page is reached: a live session's `url` is `<CAPTURE_BASE_URL>/verify/<client
   * secret>`, and its invitation carries it. The region's gateway address (local default: us).
   */
  CAPTURE_BASE_URL: z.url().default('http://127.0.0.1:8080'),
  /** How long a capture link works: `expires_at` is creation + this. */
  CAPTURE_LINK_TTL: durationEnv('48h', 60_000, 90 * 86_400_000),
  /**
   * The region's capture key: client secrets are HMAC-SHA256 of the session id under it (docs/capture.md). At least
   * 32 characters, different in every region, from a secret store; no default.
   */
  CAPTURE_SECRET_KEY: z.string().min(32),
  /**
   * How long a live run waits for the region's reader (evidence) to answer: it queues behind other runs, then reads
   * for about a second. Past it the attempt fails and is retried (three attempts), so this bounds how long a run
   * waits on a reader that died mid-read.
   */
  LIVE_READ_TIMEOUT: durationEnv('60s', 5_000, 600_000),
  /** Device intelligence: a file of Tor exit addresses (one IP or CIDR a line, `#` comments); unset: `fraud.ipIsTorExit` resolves to nothing. */
  TOR_EXIT_LIST_FILE: z.string().min(1).optional(),
  /** Device intelligence: a file of networks of poor reputation (same format); unset: `fraud.ipReputation` only from Tor exits. */
  BAD_NETWORKS_LIST_FILE: z.string().min(1).optional(),
  /** How often the outbox relay re-reads unrelayed events (it also runs at once after every commit). */
  OUTBOX_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  /** How often background jobs (test runs, invitations) are re-read (they also start at once after create). */
  JOBS_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /**
   * How long a template's pin (current version, checks, signing document) is kept between creates. A new
   * version drops it at once through an event; this bounds staleness should an event be lost. 0 disables.
   */
  TEMPLATE_PIN_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /**
   * Monitoring (docs/watchlist.md): when a watchlist is loaded or reloaded, the approved live sessions created in this
   * many days before it are screened again against it (contract §21).
   */
  WATCHLIST_MONITOR_DAYS: z.coerce.number().int().min(1).max(3650).default(365),
  ...eventStreamEnv,
};

export const SESSIONS_SERVICE: ServiceDefinition<typeof sessionsEnv> = {
  name: 'sessions',
  migrations: SESSIONS_MIGRATIONS,
  healthSubject: SUBJECTS.sessionsHealth,
  env: sessionsEnv,
};

/** What `CONFIG` holds in this service: the platform's variables and the ones above, as loaded. */
export type SessionsConfig = ServiceConfigOf<typeof sessionsEnv>;
