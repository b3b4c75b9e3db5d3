import type { NatsConnection } from '@nats-io/transport-node';
import type { Redis } from 'ioredis';
import { createLogger, type Logger } from './logger.js';
import { initMetrics } from './metrics.js';
import { connectNats, natsCredentialsOf } from './nats.js';
import { createRedis, type RedisSentinelConfig } from './redis.js';
import { explainStartupFailure } from './service.js';
import { initTracing, type TracingConfig } from './tracing.js';

/** What an HTTP app of the stack needs of its configuration to start. */
export type HttpAppConfig = { REGION: string; LOG_LEVEL: string; NATS_URL: string; REDIS_URL: string } & RedisSentinelConfig & Partial<TracingConfig> &
  Parameters<typeof natsCredentialsOf>[0];

/**
 * Starts an HTTP app of the stack (the gateway, the console): its configuration (exit 78 when it is invalid), logger,
 * metrics and tracing, its NATS connection under its own identity and its Redis; then `start`. A failure on the way
 * is logged and explained on stderr, and the process exits 1.
 */
export async function runHttpApp<C extends HttpAppConfig>(
  name: string,
  load: () => C,
  start: (deps: { cfg: C; log: Logger; nc: NatsConnection; redis: Redis }) => Promise<void>,
): Promise<void> {
  let cfg: C;
  try {
    cfg = load();
  } catch (e) {
    process.stderr.write(`${name}: ${(e as Error).message}\n`);
    process.exit(78);
  }
  const log = createLogger(name, cfg.REGION, cfg.LOG_LEVEL);
  initMetrics(name, cfg.REGION);
  initTracing(name, cfg.REGION, cfg);
  try {
    const nc = await connectNats(cfg.NATS_URL, `${name}-${cfg.REGION}`, natsCredentialsOf(cfg, name));
    const redis = createRedis(cfg.REDIS_URL, `${name}-${cfg.REGION}`, cfg);
    redis.on('error', () => undefined); // reported through readiness
    await start({ cfg, log, nc, redis });
  } catch (e) {
    log.fatal({ err: e }, 'failed to start');
    process.stderr.write(`${name}: ${explainStartupFailure(e, cfg)}\n`);
    process.exit(1);
  }
}
