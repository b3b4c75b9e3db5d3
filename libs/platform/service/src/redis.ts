import { Redis, type RedisOptions } from 'ioredis';

/** Where Redis Sentinel says the primary is (`REDIS_SENTINELS`, `REDIS_SENTINEL_MASTER`, `REDIS_SENTINEL_PASSWORD`). */
export interface RedisSentinelConfig {
  REDIS_SENTINELS?: string;
  REDIS_SENTINEL_MASTER?: string;
  REDIS_SENTINEL_PASSWORD?: string;
}

/**
 * A Redis client that fails fast while Redis is away (no offline queue, short command timeout) and keeps
 * reconnecting in the background, so callers can choose to fail open.
 */
export function createRedis(url: string, name: string, sentinel: RedisSentinelConfig = {}): Redis {
  const options: RedisOptions = {
    connectionName: name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1000,
    connectTimeout: 1000,
    lazyConnect: false,
    // commands issued in the same tick share one write: far fewer system calls under concurrency
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(100 * times, 1000),
    reconnectOnError: () => true,
  };
  if (!sentinel.REDIS_SENTINELS) return new Redis(url, options);
  // the servers' credentials, TLS and database from REDIS_URL; their address from the sentinels
  const u = new URL(url);
  return new Redis({
    ...options,
    sentinels: sentinel.REDIS_SENTINELS.split(',').map((hp) => {
      const [host, port] = hp.trim().split(':');
      return { host: host!, port: Number(port) };
    }),
    name: sentinel.REDIS_SENTINEL_MASTER ?? 'verity',
    ...(sentinel.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: sentinel.REDIS_SENTINEL_PASSWORD } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    sentinelRetryStrategy: (times) => Math.min(100 * times, 1000),
  });
}
