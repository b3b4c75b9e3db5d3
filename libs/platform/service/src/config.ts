import { availableParallelism } from 'node:os';
import { NATS_PASSWORD_FORMAT } from '@verity/contracts';
import { z } from 'zod';

/**
 * Validated configuration, fail fast. Each app composes the shared groups below with its own and calls
 * `loadConfig` once at start; a bad value stops the process with one clear line per problem.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

export const baseEnv = {
  REGION: z.enum(['us', 'eu']),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

export const natsEnv = {
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Prefix of the region's subject root (`<prefix><region>.`); empty in production, set by tests to isolate runs. */
  NATS_SUBJECT_PREFIX: z.string().regex(/^[A-Za-z0-9_-]*$/).default(''),
  RPC_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(5000),
  /** This process's NATS identity (docs/security.md, "NATS"); defaults to the service's name. */
  NATS_USER: z.string().regex(/^[a-z0-9-]+$/).optional(),
  /** Its password; or NATS_NKEY_SEED, an NKEY user seed. Neither: the server must be open (local integration tests). */
  NATS_PASSWORD: z.string().regex(NATS_PASSWORD_FORMAT, 'must be at least 24 letters and digits, starting with a letter').optional(),
  NATS_NKEY_SEED: z.string().regex(/^SU[A-Z2-7]{56}$/, 'must be an NKEY user seed (SU…)').optional(),
  /** PEM files for TLS to NATS: the CA of the server's certificate; this client's certificate and key when the server verifies clients. */
  NATS_TLS_CA: z.string().min(1).optional(),
  NATS_TLS_CERT: z.string().min(1).optional(),
  NATS_TLS_KEY: z.string().min(1).optional(),
};

/** Fencing of writes on the caller's deadline, in every service that answers requests. */
export const deadlineEnv = {
  /**
   * How long before the caller's deadline a service stops committing: room for clock skew between the caller,
   * the service and Postgres, and for the reply's way back, so that nothing commits after the caller answered 503.
   */
  DEADLINE_MARGIN_MS: z.coerce.number().int().min(0).max(10_000).default(250),
};

export const postgresEnv = {
  /** Defaults to the regional database on loopback: postgres://postgres@127.0.0.1:5432/verity_<region>. */
  DATABASE_URL: z.string().optional(),
  PG_POOL_MAX: z.coerce.number().int().min(1).max(100).default(5),
  /** Longest wait for a connection: opening one (TCP and start-up) or a free one from the pool. */
  PG_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  /**
   * Longest statement: Postgres cancels it (`statement_timeout`). The client stops waiting a second later, for
   * a server that answers nothing at all (stopped, hung, cut off).
   */
  PG_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** Longest a transaction may sit idle (`idle_in_transaction_session_timeout`): Postgres ends the session and frees its locks. */
  PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  /** Longest a health check waits for Postgres before it reports it down. */
  PG_HEALTH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
};

export const redisEnv = {
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** Defaults to `<region>:`. */
  REDIS_KEY_PREFIX: z.string().optional(),
  /**
   * Redis Sentinel (docs/operations.md, "Redis"): the sentinels as `host:port,host:port`. Set, the primary of
   * `REDIS_SENTINEL_MASTER` is asked of them and followed through a failover; `REDIS_URL` then gives only the user,
   * password, TLS (`rediss://`) and database of the Redis servers, not their address.
   */
  REDIS_SENTINELS: z
    .string()
    .regex(/^\s*[^\s:,]+:\d{1,5}\s*(,\s*[^\s:,]+:\d{1,5}\s*)*$/, 'must be host:port, comma-separated')
    .optional(),
  /** The name the sentinels monitor the primary under. */
  REDIS_SENTINEL_MASTER: z.string().min(1).default('verity'),
  /** The sentinels' own password, when they ask for one. */
  REDIS_SENTINEL_PASSWORD: z.string().optional(),
};

/** The region's event stream, as whichever of its users (sessions, webhook-delivery) starts first creates it. */
export const eventStreamEnv = {
  /** JetStream duplicate window of the events stream (at least 2 minutes). */
  EVENTS_DUPLICATE_WINDOW_MS: z.coerce.number().int().min(120_000).max(86_400_000).default(600_000),
  /** How long the events stream keeps a message. */
  EVENTS_MAX_AGE_MS: z.coerce.number().int().min(60_000).default(7 * 86_400_000),
  /**
   * Replicas of the events stream when it is created: 1 on one server, 3 (or 5) on a clustered NATS (deploy/
   * overlays). An existing stream keeps its own (docs/operations.md, "Scaling").
   */
  EVENTS_STREAM_REPLICAS: z.coerce
    .number()
    .int()
    .refine((n) => n === 1 || n === 3 || n === 5, 'must be 1, 3 or 5')
    .default(1),
};

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration as configuration spells it, `<whole number><ms|s|m|h|d>` (`5s`, `30m`, `48h`), in milliseconds; null when it is not one. */
export function parseDuration(text: string): number | null {
  const m = /^([0-9]{1,10})(ms|s|m|h|d)$/.exec(text.trim());
  return m ? Number(m[1]) * DURATION_UNITS[m[2]!]! : null;
}

/** A configured duration (see `parseDuration`, or a whole number of milliseconds) from `min` to `max` milliseconds. */
export function durationEnv(defaultText: string, min: number, max: number) {
  return z
    .string()
    .default(defaultText)
    .transform((t, ctx) => {
      const ms = /^[0-9]{1,13}$/.test(t.trim()) ? Number(t) : parseDuration(t);
      if (ms === null || ms < min || ms > max) {
        ctx.addIssue({ code: 'custom', message: `"${t.slice(0, 20)}" is not a duration such as 30m or 48h, from ${min} ms to ${max} ms` });
        return z.NEVER;
      }
      return ms;
    });
}

/** The document reader's pool (`@verity/reading`), in the services that read: its threads and its admission. */
export const readingPoolEnv = {
  /** Threads of the document reader, each with its own engines; also the reads run at a time. Defaults to the number of cores. */
  READING_THREADS: z.coerce.number().int().min(1).max(64).default(availableParallelism()),
  /**
   * Start every reader thread and load its engines before the service takes its first request (true), or start a
   * thread and load its engines on the first read that needs it (false: a quicker, lighter start, and a slower
   * first read; what test stacks that never read use).
   */
  READING_WARM: bool.default(true),
  /** Reads waiting for a reader thread; one more is refused at once (503). */
  READING_MAX_WAITING: z.coerce.number().int().min(0).max(1024).default(8),
  /** Longest wait for a reader thread (never past the caller's own deadline); then 503. */
  READING_QUEUE_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
};

/** Where face results turn into outcomes (docs/reading.md): pass at or above the first, review at or above the second. */
export const faceThresholdsEnv = {
  FACE_MATCH_THRESHOLD: z.coerce.number().min(0).max(1).default(0.6),
  FACE_MATCH_REVIEW_THRESHOLD: z.coerce.number().min(0).max(1).default(0.45),
  LIVENESS_THRESHOLD: z.coerce.number().min(0).max(1).default(0.65),
  LIVENESS_REVIEW_THRESHOLD: z.coerce.number().min(0).max(1).default(0.45),
  /** The selfie's face at least this share of the image's shorter side. */
  FACE_MIN_SIZE: z.coerce.number().min(0).max(1).default(0.2),
  /** The selfie's face turned or tilted at most this many degrees. */
  FACE_MAX_ANGLE: z.coerce.number().min(0).max(90).default(20),
  /** Eyelid gap over eye width of the less open eye at least this. */
  EYES_OPEN_THRESHOLD: z.coerce.number().min(0).max(1).default(0.12),
  /** Sharpness (Laplacian over contrast, of the aligned face) at least this. */
  SHARPNESS_THRESHOLD: z.coerce.number().min(0).max(10_000).default(10),
  /** Picture similarity with the document's face at or above which the selfie is a copy of it (`face_match` fails). */
  DOCUMENT_COPY_THRESHOLD: z.coerce.number().min(-1).max(1).default(0.8),
  /** From here up to the copy threshold, the selfie may be a copy (`face_match` goes to review). */
  DOCUMENT_COPY_REVIEW_THRESHOLD: z.coerce.number().min(-1).max(1).default(0.65),
  /** Degrees of yaw that count as a turn of the liveness challenge. */
  CHALLENGE_TURN_DEGREES: z.coerce.number().min(1).max(90).default(6),
  /** Similarity with the selfie under which a challenge frame shows someone else. */
  CHALLENGE_FRAME_MATCH_THRESHOLD: z.coerce.number().min(0).max(1).default(0.45),
};

export const healthEnv = {
  /** When set, a service also answers GET /health/live and /health/ready over HTTP on this port (Kubernetes probes). */
  HEALTH_PORT: z.coerce.number().int().min(1).max(65535).optional(),
};

export const envBool = bool;

/**
 * Validates `env` against a shape of variables (or a whole schema, for checks across variables and values derived
 * from others): the values as the schema turns them out, or a `ConfigError` naming every problem.
 */
export function loadConfig<T extends z.ZodRawShape>(shape: T, env?: NodeJS.ProcessEnv): z.infer<z.ZodObject<T>>;
export function loadConfig<S extends z.ZodType>(schema: S, env?: NodeJS.ProcessEnv): z.infer<S>;
export function loadConfig(shapeOrSchema: z.ZodRawShape | z.ZodType, env: NodeJS.ProcessEnv = process.env): unknown {
  const schema = shapeOrSchema instanceof z.ZodType ? shapeOrSchema : z.object(shapeOrSchema);
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  }
  return result.data;
}

/**
 * A section of an already loaded configuration: the values of `shape` that `cfg` holds are taken as loaded, and
 * those it leaves out get their defaults (an in-process caller, such as a test, need not spell out every one); a
 * required one left out is a `ConfigError`.
 */
export function configSection<T extends z.ZodRawShape>(shape: T, cfg: object): z.infer<z.ZodObject<T>> {
  const loaded = cfg as Record<string, unknown>;
  const missing = Object.fromEntries(Object.entries(shape).filter(([k]) => loaded[k] === undefined));
  const present = Object.fromEntries(Object.keys(shape).filter((k) => loaded[k] !== undefined).map((k) => [k, loaded[k]]));
  return { ...loadConfig(missing, {}), ...present } as z.infer<z.ZodObject<T>>;
}

export function defaultDatabaseUrl(region: string): string {
  return `postgres://postgres@127.0.0.1:5432/verity_${region}`;
}
