import { answersWithin, natsAnswers, runHttpApp, serveInternalPort } from '@verity/platform';
import { loadConsoleConfig } from './config.js';
import { createConsole } from './server.js';

await runHttpApp('console', loadConsoleConfig, async ({ cfg, log, nc, redis }) => {
  const app = await createConsole(cfg, log, nc, redis);
  await app.listen({ port: cfg.CONSOLE_PORT, host: cfg.HOST });
  // stop taking requests, let those in flight end, leave NATS, exit (whatever one of them answers)
  const stop = async () => {
    await app.close().catch(() => undefined);
    await nc.drain().catch(() => undefined);
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void stop());
  // ready when it can serve: sign-in and sessions need both NATS and Redis
  if (cfg.HEALTH_PORT) {
    serveInternalPort(cfg.HEALTH_PORT, async () => {
      const [nats, redisUp] = await Promise.all([natsAnswers(nc, 1000), answersWithin(() => redis.ping(), 1000)]);
      return { service: 'console', status: nats && redisUp ? 'ok' : 'degraded', checks: { nats: nats ? 'ok' : 'down', redis: redisUp ? 'ok' : 'down' } };
    });
  }
  log.info({ port: cfg.CONSOLE_PORT }, 'ready');
});
