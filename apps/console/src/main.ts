import { answersWithin, connectNats, createLogger, createRedis, explainStartupFailure, initMetrics, initTracing, natsAnswers, natsCredentialsOf, serveInternalPort } from '@verity/platform';
import { loadConsoleConfig, type ConsoleConfig } from './config.js';
import { createConsole } from './server.js';

let cfg: ConsoleConfig;
try {
  cfg = loadConsoleConfig();
} catch (e) {
  process.stderr.write(`console: ${(e as Error).message}\n`);
  process.exit(78);
}
const log = createLogger('console', cfg.REGION, cfg.LOG_LEVEL);
initMetrics('console');
initTracing('console', cfg.REGION, cfg);

try {
  const nc = await connectNats(cfg.NATS_URL, `console-${cfg.REGION}`, natsCredentialsOf(cfg, 'console'));
  const redis = createRedis(cfg.REDIS_URL, `console-${cfg.REGION}`);
  redis.on('error', () => undefined); // reported through readiness
  const app = await createConsole(cfg, log, nc, redis);
  await app.listen({ port: cfg.CONSOLE_PORT, host: cfg.HOST });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void app.close().finally(() => nc.drain().finally(() => process.exit(0)));
    });
  }
  // ready when it can serve: sign-in and sessions need both NATS and Redis
  if (cfg.HEALTH_PORT) {
    serveInternalPort(cfg.HEALTH_PORT, async () => {
      const [nats, redisUp] = await Promise.all([natsAnswers(nc, 1000), answersWithin(() => redis.ping(), 1000)]);
      return { service: 'console', status: nats && redisUp ? 'ok' : 'degraded', checks: { nats: nats ? 'ok' : 'down', redis: redisUp ? 'ok' : 'down' } };
    });
  }
  log.info({ port: cfg.CONSOLE_PORT }, 'ready');
} catch (e) {
  log.fatal({ err: e }, 'failed to start');
  process.stderr.write(`console: ${explainStartupFailure(e, cfg)}\n`);
  process.exit(1);
}
