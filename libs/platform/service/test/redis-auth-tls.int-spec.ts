/**
 * A Redis that asks who connects and speaks only TLS (docs/operations.md, "Redis"): `REDIS_URL` carries an ACL user
 * and password (`rediss://user:password@host:port`), and the client verifies the server's certificate against the
 * trusted ones (`NODE_EXTRA_CA_CERTS`). A real redis-server of its own, started with an ACL user, TLS only.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import type { Redis } from 'ioredis';
import { createRedis } from '../src/redis.js';
import { freePort, startRedisServer } from './redis-servers.js';

const USER = 'verity-console';
const PASSWORD = 'a-redis-password-from-a-secret';

let server: ChildProcess;
let port: number;

before(async () => {
  const cert = process.env.WEBHOOK_TEST_TLS_CERT;
  const key = process.env.WEBHOOK_TEST_TLS_KEY;
  assert.ok(cert && key, 'run with npm test: it makes the loopback certificate the services trust');
  port = await freePort();
  // no plain port, TLS only; the default user off, one ACL user with every command on every key
  server = await startRedisServer([
    '--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1',
    '--tls-cert-file', cert, '--tls-key-file', key, '--tls-auth-clients', 'no',
    '--save', '', '--appendonly', 'no',
    '--user', 'default', 'off',
    '--user', USER, 'on', `>${PASSWORD}`, '~*', '&*', '+@all',
  ]);
});

after(() => {
  server?.kill('SIGKILL');
});

/** The answer to PING over a client of `url`, or the error that ended it. */
async function ping(url: string): Promise<string> {
  const redis: Redis = createRedis(url, 'redis-auth-tls-test');
  const errors: string[] = [];
  redis.on('error', (e: Error) => errors.push(e.message));
  try {
    const deadline = Date.now() + 3000;
    while (redis.status !== 'ready' && Date.now() < deadline && errors.length === 0) await new Promise((r) => setTimeout(r, 20));
    if (redis.status !== 'ready') return `not ready: ${errors[0] ?? redis.status}`;
    return await redis.ping();
  } catch (e) {
    return `failed: ${(e as Error).message}`;
  } finally {
    redis.disconnect();
  }
}

describe('REDIS_URL with an ACL user over TLS', () => {
  it('rediss:// with the user and password: connected, the server certificate verified', async () => {
    assert.equal(await ping(`rediss://${USER}:${PASSWORD}@127.0.0.1:${port}`), 'PONG');
  });

  it('a wrong password, no user, or plain redis:// to the TLS port: no connection', async () => {
    assert.match(await ping(`rediss://${USER}:wrong-password@127.0.0.1:${port}`), /WRONGPASS|invalid username-password/);
    assert.match(await ping(`rediss://127.0.0.1:${port}`), /not ready|NOAUTH|failed/);
    assert.doesNotMatch(await ping(`redis://${USER}:${PASSWORD}@127.0.0.1:${port}`), /^PONG$/);
  });
});
