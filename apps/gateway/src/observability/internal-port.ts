import type { NatsConnection } from '@nats-io/transport-node';
import type { Health } from '@verity/contracts';
import { answersWithin, natsAnswers } from '@verity/platform';
import type { Redis } from 'ioredis';

/**
 * The readiness the gateway's internal port (`HEALTH_PORT`) reports to its orchestrator: its own connections
 * only, each answering within `timeoutMs`; the services behind it are not asked (the public `/health/ready`
 * reports on them), and a probe never hangs. Ready when NATS answers: Redis is reported, but the rate limiter
 * fails open without it, so a Redis outage must not take every gateway out of its Service (docs/decisions.md,
 * "Readiness").
 */
export async function gatewayOwnReadiness(nc: NatsConnection, redis: Redis, timeoutMs: number): Promise<Health> {
  const [nats, redisUp] = await Promise.all([natsAnswers(nc, timeoutMs), redis.status === 'ready' ? answersWithin(() => redis.ping(), timeoutMs) : Promise.resolve(false)]);
  const checks = { nats: nats ? ('ok' as const) : ('down' as const), redis: redisUp ? ('ok' as const) : ('down' as const) };
  return { service: 'gateway', status: nats ? 'ok' : 'degraded', checks };
}
