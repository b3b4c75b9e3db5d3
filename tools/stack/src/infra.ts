import { spawnSync } from 'node:child_process';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import pg from 'pg';
import { NATS_SERVER_BIN } from './nats.js';

export interface InfraUrls {
  postgresUrl: string;
  redisUrl: string;
  /** The shared open NATS of the integration tests; absent when only stacks (with their own servers) run. */
  natsUrl?: string;
}

export const START_HINTS = {
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  redis: 'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
  nats: 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server',
};

/** Checks that Postgres, Redis and NATS answer; returns one line per missing piece, saying how to start it. */
export async function checkInfrastructure(urls: InfraUrls): Promise<string[]> {
  const problems: string[] = [];
  const pgUrl = new URL(urls.postgresUrl);
  pgUrl.pathname = '/postgres';
  const client = new pg.Client({ connectionString: pgUrl.toString(), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (e) {
    problems.push(`Postgres is not reachable at ${pgUrl.host} (${(e as Error).message}). Start it with: ${START_HINTS.postgres}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  const redis = new Redis(urls.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (e) {
    problems.push(`Redis is not reachable at ${urls.redisUrl} (${(e as Error).message}). Start it with: ${START_HINTS.redis}`);
  } finally {
    redis.disconnect();
  }
  if (urls.natsUrl) {
    try {
      const nc = await connect({ servers: urls.natsUrl, timeout: 2000, reconnect: false });
      await nc.close();
    } catch (e) {
      problems.push(`NATS is not reachable at ${urls.natsUrl} (${(e as Error).message}). Start it with: ${START_HINTS.nats}`);
    }
  }
  // each regional stack runs a nats-server of its own
  const bin = spawnSync(NATS_SERVER_BIN, ['--version'], { encoding: 'utf8' });
  if (bin.status !== 0) problems.push(`${NATS_SERVER_BIN} cannot be run (${bin.error?.message ?? bin.stderr.trim()}). Install it with: apt-get install -y nats-server`);
  return problems;
}
