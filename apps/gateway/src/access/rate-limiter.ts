import { expirySeconds, INCREMENT_SCRIPT, type Bucket } from '@verity/ratelimit';
import type { Logger } from '@verity/platform';
import type { Redis } from 'ioredis';

type WithIncrement = Redis & { rlIncrement(numKeys: number, ...args: (string | number)[]): Promise<number[]> };

/**
 * Counts requests in Redis: every bucket of one request is incremented by one atomic script call.
 * When Redis cannot answer, it fails open (returns null) and reports itself unhealthy; it never turns an
 * outage of Redis into an outage of the API.
 */
export class RateLimiter {
  private readonly redis: WithIncrement;
  private healthy = true;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly log: Logger,
  ) {
    redis.defineCommand('rlIncrement', { lua: INCREMENT_SCRIPT });
    this.redis = redis as WithIncrement;
    redis.on('ready', () => {
      if (!this.healthy) this.log.info('rate limiter: redis is back');
      this.healthy = true;
    });
    redis.on('error', () => this.markUnhealthy());
    redis.on('end', () => this.markUnhealthy());
  }

  private markUnhealthy(): void {
    if (this.healthy) this.log.warn('rate limiter: redis unreachable, letting requests through');
    this.healthy = false;
  }

  get isHealthy(): boolean {
    return this.healthy && this.redis.status === 'ready';
  }

  /** Increments the buckets and returns their counts, or null when Redis did not answer. */
  async increment(buckets: Bucket[], nowMs: number): Promise<number[] | null> {
    if (buckets.length === 0) return [];
    if (this.redis.status !== 'ready') {
      this.markUnhealthy();
      return null;
    }
    try {
      const keys = buckets.map((b) => `${this.prefix}${b.key}`);
      const ttls = buckets.map((b) => expirySeconds(b, nowMs));
      return await this.redis.rlIncrement(keys.length, ...keys, ...ttls);
    } catch {
      this.markUnhealthy();
      return null;
    }
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }
}
