import { Redis } from 'ioredis';

/**
 * A Redis client that fails fast while Redis is away (no offline queue, short command timeout) and keeps
 * reconnecting in the background, so callers can choose to fail open.
 */
export function createRedis(url: string, name: string): Redis {
  return new Redis(url, {
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
  });
}
