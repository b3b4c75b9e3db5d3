import 'reflect-metadata';
import { connectNats, createLogger, createRedis, explainStartupFailure, initMetrics, initTracing, natsCredentialsOf, serveInternalPort } from '@verity/platform';
import { loadGatewayConfig, type GatewayConfig } from './config.js';
import { gatewayOwnReadiness } from './observability/internal-port.js';
import { createGateway } from './server.js';

let cfg: GatewayConfig;
try {
  cfg = loadGatewayConfig();
} catch (e) {
  process.stderr.write(`gateway: ${(e as Error).message}\n`);
  process.exit(78);
}
const log = createLogger('gateway', cfg.REGION, cfg.LOG_LEVEL);
initMetrics('gateway');
initTracing('gateway', cfg.REGION, cfg);

try {
  const nc = await connectNats(cfg.NATS_URL, `gateway-${cfg.REGION}`, natsCredentialsOf(cfg, 'gateway'));
  const redis = createRedis(cfg.REDIS_URL, `gateway-${cfg.REGION}`);
  redis.on('error', () => undefined); // reported through readiness; requests fail open

  const app = await createGateway(cfg, log, nc, redis);
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.listen(cfg.PORT, cfg.HOST);
  // health and metrics for the orchestrator and Prometheus, on a port of their own, never the public one
  if (cfg.HEALTH_PORT) serveInternalPort(cfg.HEALTH_PORT, () => gatewayOwnReadiness(nc, redis, cfg.HEALTH_TIMEOUT_MS));
  log.info({ port: cfg.PORT }, 'ready');
} catch (e) {
  log.fatal({ err: e }, 'failed to start');
  process.stderr.write(`gateway: ${explainStartupFailure(e, cfg)}\n`);
  process.exit(1);
}
