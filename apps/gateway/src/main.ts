import 'reflect-metadata';
import { connectNats, createLogger, createRedis, explainStartupFailure, natsCredentialsOf } from '@verity/platform';
import { loadGatewayConfig, type GatewayConfig } from './config.js';
import { createGateway } from './server.js';

let cfg: GatewayConfig;
try {
  cfg = loadGatewayConfig();
} catch (e) {
  process.stderr.write(`gateway: ${(e as Error).message}\n`);
  process.exit(78);
}
const log = createLogger('gateway', cfg.REGION, cfg.LOG_LEVEL);

try {
  const nc = await connectNats(cfg.NATS_URL, `gateway-${cfg.REGION}`, natsCredentialsOf(cfg, 'gateway'));
  const redis = createRedis(cfg.REDIS_URL, `gateway-${cfg.REGION}`);
  redis.on('error', () => undefined); // reported through readiness; requests fail open

  const app = await createGateway(cfg, log, nc, redis);
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.listen(cfg.PORT, cfg.HOST);
  log.info({ port: cfg.PORT }, 'ready');
} catch (e) {
  log.fatal({ err: e }, 'failed to start');
  process.stderr.write(`gateway: ${explainStartupFailure(e, cfg)}\n`);
  process.exit(1);
}
