import 'reflect-metadata';
import { runHttpApp, serveInternalPort } from '@verity/platform';
import { loadGatewayConfig } from './config.js';
import { gatewayOwnReadiness } from './observability/internal-port.js';
import { createGateway } from './server.js';

await runHttpApp('gateway', loadGatewayConfig, async ({ cfg, log, nc, redis }) => {
  // requests fail open while Redis is away
  const app = await createGateway(cfg, log, nc, redis);
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.listen(cfg.PORT, cfg.HOST);
  // health and metrics for the orchestrator and Prometheus, on a port of their own, never the public one
  if (cfg.HEALTH_PORT) serveInternalPort(cfg.HEALTH_PORT, () => gatewayOwnReadiness(nc, redis, cfg.HEALTH_TIMEOUT_MS));
  log.info({ port: cfg.PORT }, 'ready');
});
