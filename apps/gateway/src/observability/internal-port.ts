import type { NatsConnection } from '@nats-io/transport-node';
import type { Health } from '@verity/contracts';
import { answersWithin, natsAnswers } from '@verity/platform';
import type { Redis } from 'ioredis';

/**
 * The readiness the gateway's internal port (`HEALTH_PORT`) reports to its orchestrator: its own connections
 * only, NATS and Redis, each answering within `timeoutMs`. The services behind it are not asked (the public
 * `/health/ready` reports on them); a probe never hangs.
 */
export async function gatewayOwnReadiness(nc: NatsConnection, redis: Redis, timeoutMs: number): Promise<Health> {
  const [nats, redisUp] = await Promise.all([natsAnswers(nc, timeoutMs), redis.status === 'ready' ? answersWithin(() => redis.ping(), timeoutMs) : Promise.resolve(false)]);
  const checks = { nats: nats ? ('ok' as const) : ('down' as const), redis: redisUp ? ('ok' as const) : ('down' as const) };
  return { service: 'gateway', status: nats && redisUp ? 'ok' : 'degraded', checks };
}
