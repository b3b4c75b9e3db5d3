import { baseEnv, healthEnv, loadConfig, natsEnv, principalSigningEnv, redisEnv, tracingEnv } from '@verity/platform';
import { z } from 'zod';

/** The variables the gateway reads (docs/configuration.md). */
export const gatewayEnv = {
  ...baseEnv,
  ...natsEnv,
  ...redisEnv,
  ...healthEnv,
  ...tracingEnv,
  /** Signs the principal of every request it authenticated (docs/security.md, "The bus's trust boundary"). Required. */
  ...principalSigningEnv,
  PORT: z.coerce.number().int().min(1).max(65535).optional(),
  HOST: z.string().default('127.0.0.1'),
  /** Pre-authentication budget per client IP per 60 s window. */
  RATE_LIMIT_IP_PER_MINUTE: z.coerce.number().int().min(1).default(1000),
  /** Comma-separated addresses or CIDRs of proxies whose X-Forwarded-For is trusted. Empty: none. */
  TRUSTED_PROXIES: z.string().default(''),
  /**
   * Base of every error's `doc_url` (`<DOCS_BASE_URL>/errors#<code>`): the region's public address + `/docs`, where
   * the gateway serves the error reference. Absolute http(s), no query or fragment; a trailing slash is dropped.
   * Unset: this gateway on loopback, `http://127.0.0.1:<PORT>/docs`.
   */
  DOCS_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .refine((u) => !/[?#]/.test(u), 'must have no query or fragment')
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** How long a verified key is served from the gateway's memory; revocation events clear it sooner. */
  KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(5000).default(5000),
  /** Days a past_due subscription keeps working before 403 subscription_required. */
  BILLING_GRACE_DAYS: z.coerce.number().int().min(0).default(7),
  /** Largest JSON body accepted, in bytes. */
  JSON_BODY_LIMIT: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** Internal HTTP base URLs of the services that take or serve byte streams. */
  ID_SCAN_URL: z.string().url().optional(),
  EVIDENCE_URL: z.string().url().optional(),
  /**
   * The region's own secret, shared with its evidence and id-scan services: signs every internal HTTP request
   * (method, path, time, body). Required, no default: the operator creates it per region (docs/security.md).
   */
  INTERNAL_AUTH_SECRET: z.string().min(32),
  /**
   * How many images of an access export `GET /v1/data_subject_requests/{id}` inlines as base64 (the first ones);
   * every image has its own route besides, so the answer stays bounded whatever the export holds.
   */
  DSAR_INLINE_IMAGES: z.coerce.number().int().min(0).max(1000).default(20),
  /** Largest ID-scan body accepted (21 MiB plus multipart framing). */
  ID_SCAN_BODY_LIMIT: z.coerce.number().int().default(21 * 1024 * 1024 + 64 * 1024),
  ID_SCAN_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** How long a capture image upload may take, from its first byte to the evidence service's answer. */
  CAPTURE_UPLOAD_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Timeout of one readiness ping to a service. */
  HEALTH_TIMEOUT_MS: z.coerce.number().int().min(50).default(1000),
  /** How long one readiness fan-out answers every caller of `/health/ready` (0: each call fans out, shared while in flight). */
  HEALTH_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  /** Longest a client may take to send one whole request, headers and body (408 `request_timeout`). */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  /** Longest a client may take to send a request's headers (408 `request_timeout`). */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** How long a kept-alive connection waits for its next request before the gateway closes it. */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(72_000),
  /** A connection with no traffic in either direction for this long is closed, whatever its state. */
  HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
  /** Most connections open at once; one more is closed as soon as it is accepted, before anything is read. */
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(10_000),
};

/**
 * The gateway's configuration: the variables above, the rules between them, and the defaults that depend on the
 * region or the port.
 */
export const gatewaySchema = z
  .object(gatewayEnv)
  .superRefine((cfg, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (cfg.HTTP_HEADERS_TIMEOUT_MS > cfg.HTTP_REQUEST_TIMEOUT_MS) problem('HTTP_HEADERS_TIMEOUT_MS', 'must not be longer than HTTP_REQUEST_TIMEOUT_MS');
    if (cfg.HTTP_KEEP_ALIVE_TIMEOUT_MS > cfg.HTTP_IDLE_TIMEOUT_MS) {
      problem('HTTP_KEEP_ALIVE_TIMEOUT_MS', 'must not be longer than HTTP_IDLE_TIMEOUT_MS (the idle timeout would cut kept-alive connections first)');
    }
    // the idle timeout cuts a connection whatever its state: one waiting for a service's answer must get the 503
    // of its own deadline first, never a connection closed without an answer
    if (cfg.HTTP_IDLE_TIMEOUT_MS <= Math.max(cfg.ID_SCAN_TIMEOUT_MS, cfg.CAPTURE_UPLOAD_TIMEOUT_MS, cfg.RPC_TIMEOUT_MS)) {
      problem(
        'HTTP_IDLE_TIMEOUT_MS',
        'must be longer than ID_SCAN_TIMEOUT_MS, CAPTURE_UPLOAD_TIMEOUT_MS and RPC_TIMEOUT_MS (a request waiting for a service would be cut off without an answer)',
      );
    }
  })
  .transform((cfg) => {
    const port = cfg.PORT ?? (cfg.REGION === 'us' ? 8080 : 8081);
    return {
      ...cfg,
      PORT: port,
      DOCS_BASE_URL: cfg.DOCS_BASE_URL ?? `http://127.0.0.1:${port}/docs`,
      REDIS_KEY_PREFIX: cfg.REDIS_KEY_PREFIX ?? `${cfg.REGION}:`,
    };
  });

/** What `CONFIG` holds in the gateway. */
export type GatewayConfig = z.infer<typeof gatewaySchema>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(gatewaySchema, env);
}
