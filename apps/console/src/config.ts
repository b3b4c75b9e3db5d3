import { baseEnv, durationEnv, healthEnv, loadConfig, natsEnv, principalSigningEnv, redisEnv, tracingEnv } from '@verity/platform';
import { z } from 'zod';

/** The console's configuration (docs/configuration.md, "Console"), validated at start like every service's. */
export const consoleEnv = {
  ...baseEnv,
  ...natsEnv,
  ...redisEnv,
  ...healthEnv,
  ...tracingEnv,
  /** Signs the principal it acts with for a signed-in person (docs/security.md, "The bus's trust boundary"). Required. */
  ...principalSigningEnv,
  /** Defaults to 8090 in us and 8091 in eu (contract §19). */
  CONSOLE_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  HOST: z.string().default('127.0.0.1'),
  /**
   * The origin people open the console at (`https://console.us.example.com`): a state-changing request whose
   * `Origin` is another is refused, and an https origin makes the session cookie `Secure`. Unset: this console on
   * loopback, `http://127.0.0.1:<CONSOLE_PORT>`.
   */
  CONSOLE_PUBLIC_ORIGIN: z
    .url({ protocol: /^https?$/ })
    .refine((u) => new URL(u).origin === u.replace(/\/+$/, ''), 'must be an origin: scheme, host and port only')
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** How long a signed-in session lasts without use; each page view extends it. */
  CONSOLE_SESSION_IDLE: durationEnv('8h', 60_000, 7 * 86_400_000),
  /** How long a session lasts at most from sign-in, however often it is used; then the person signs in again. */
  CONSOLE_SESSION_MAX_AGE: durationEnv('24h', 300_000, 30 * 86_400_000),
  /** Failed sign-ins allowed per email address, and per client address, within CONSOLE_LOGIN_WINDOW. */
  CONSOLE_LOGIN_MAX_PER_EMAIL: z.coerce.number().int().min(1).default(5),
  CONSOLE_LOGIN_MAX_PER_IP: z.coerce.number().int().min(1).default(20),
  CONSOLE_LOGIN_WINDOW: durationEnv('15m', 60_000, 86_400_000),
  /** Comma-separated addresses or CIDRs of proxies whose X-Forwarded-For is trusted (the sign-in limit per client address). */
  TRUSTED_PROXIES: z.string().default(''),
  /** The region's evidence service (internal HTTP): images of a verification, fetched as the API's image route does. */
  EVIDENCE_URL: z.string().url().optional(),
  /** The region's internal HTTP secret, shared with evidence: signs image requests (docs/security.md). */
  INTERNAL_AUTH_SECRET: z.string().min(32),
};

/** The console's configuration: the variables above and the defaults that depend on the region or the port. */
export const consoleSchema = z
  .object(consoleEnv)
  .transform((cfg) => {
    const port = cfg.CONSOLE_PORT ?? (cfg.REGION === 'us' ? 8090 : 8091);
    return { ...cfg, CONSOLE_PORT: port, CONSOLE_PUBLIC_ORIGIN: cfg.CONSOLE_PUBLIC_ORIGIN ?? `http://127.0.0.1:${port}` };
  })
  .superRefine((cfg, ctx) => {
    if (cfg.CONSOLE_PUBLIC_ORIGIN.startsWith('http://') && !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(cfg.CONSOLE_PUBLIC_ORIGIN)) {
      ctx.addIssue({ code: 'custom', path: ['CONSOLE_PUBLIC_ORIGIN'], message: 'must be https unless it is loopback (session cookies would travel in the clear)' });
    }
  });

/** What the console's code is given (`createConsole`). */
export type ConsoleConfig = z.infer<typeof consoleSchema>;

export function loadConsoleConfig(env: NodeJS.ProcessEnv = process.env): ConsoleConfig {
  return loadConfig(consoleSchema, env);
}
