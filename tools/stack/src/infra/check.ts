import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import pg from 'pg';

/** Servers given by the environment, to be checked before anything starts on them. */
export interface GivenServers {
  postgresUrl?: string;
  redisUrl?: string;
  natsUrl?: string;
}

/** Why a Postgres connection failed, in words that point the right way (a refused login is not "unreachable"). */
export function postgresProblem(url: string, e: unknown): string {
  const where = new URL(url);
  const code = (e as { code?: string }).code;
  const message = (e as Error).message;
  if (code === '28P01' || code === '28000') {
    return `Postgres at ${where.host} refused the login of "${decodeURIComponent(where.username) || '(none)'}" (${message}): put the right user and password in the URL`;
  }
  if (code === '3D000') return `Postgres at ${where.host} has no database ${where.pathname.slice(1)} (${message})`;
  return `Postgres is not reachable at ${where.host} (${message})`;
}

/** Checks that each given server answers; one line per problem. Servers of our own are not checked here. */
export async function checkGivenServers(given: GivenServers): Promise<string[]> {
  const problems: string[] = [];
  if (given.postgresUrl) {
    const client = new pg.Client({ connectionString: given.postgresUrl, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
    } catch (e) {
      problems.push(`${postgresProblem(given.postgresUrl, e)} (from DATABASE_URL)`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  if (given.redisUrl) {
    const redis = new Redis(given.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 3000, retryStrategy: () => null });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      await redis.ping();
    } catch (e) {
      problems.push(`Redis at ${new URL(given.redisUrl).host} does not answer (${(e as Error).message}) (from REDIS_URL)`);
    } finally {
      redis.disconnect();
    }
  }
  if (given.natsUrl) {
    try {
      const nc = await connect({ servers: given.natsUrl, timeout: 3000, reconnect: false });
      await nc.close();
    } catch (e) {
      problems.push(`NATS at ${given.natsUrl} does not answer (${(e as Error).message}) (from NATS_URL)`);
    }
  }
  return problems;
}
