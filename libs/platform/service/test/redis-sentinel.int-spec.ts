/**
 * Redis behind Sentinel (docs/operations.md, "Redis"): with `REDIS_SENTINELS`, the client asks the sentinels where
 * the primary is and follows a failover. Real servers of its own: a primary, a replica and one sentinel watching
 * them; the primary is killed, the sentinel promotes the replica, and the same client writes again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { createRedis } from '../src/redis.js';
import { freePort, startRedisServer } from './redis-servers.js';

const MASTER = 'verity-test';
const PASSWORD = 'a-redis-password';
const procs: ChildProcess[] = [];
let dir: string;
let ports: { primary: number; replica: number; sentinel: number };

/** Starts a redis-server (or a sentinel) of this test's; stopped at the end. */
async function start(args: string[]): Promise<ChildProcess> {
  const p = await startRedisServer(args);
  procs.push(p);
  return p;
}

const common = (port: number) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', PASSWORD, '--masterauth', PASSWORD];

let primary: ChildProcess;
let client: Redis;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'verity-sentinel-'));
  ports = { primary: await freePort(), replica: await freePort(), sentinel: await freePort() };
  primary = await start(common(ports.primary));
  await start([...common(ports.replica), '--replicaof', '127.0.0.1', String(ports.primary)]);
  // one sentinel (quorum 1), quick to judge the primary down and to fail over
  const conf = path.join(dir, 'sentinel.conf');
  writeFileSync(
    conf,
    [
      `port ${ports.sentinel}`,
      'bind 127.0.0.1',
      `sentinel monitor ${MASTER} 127.0.0.1 ${ports.primary} 1`,
      `sentinel auth-pass ${MASTER} ${PASSWORD}`,
      `sentinel down-after-milliseconds ${MASTER} 500`,
      `sentinel failover-timeout ${MASTER} 5000`,
      '',
    ].join('\n'),
  );
  await start([conf, '--sentinel']);
});

after(() => {
  client?.disconnect();
  for (const p of procs) p.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Until `fn` holds or `ms` pass. */
async function eventually(fn: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await fn().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('REDIS_SENTINELS', () => {
  it("finds the primary through the sentinels (REDIS_URL's address ignored, its password used)", async () => {
    // the URL names a port nothing listens on: only the sentinels say where the servers are
    client = createRedis(`redis://:${PASSWORD}@127.0.0.1:9/`, 'sentinel-test', { REDIS_SENTINELS: `127.0.0.1:${ports.sentinel}`, REDIS_SENTINEL_MASTER: MASTER });
    client.on('error', () => undefined);
    assert.ok(await eventually(async () => (await client.set('k', 'before')) === 'OK', 5000), 'a write through the sentinel-found primary');
    assert.equal(await client.get('k'), 'before');
    const role = (await client.call('ROLE')) as [string, ...unknown[]];
    assert.equal(role[0], 'master');
  });

  it('follows a failover: the primary killed, the promoted replica takes the writes', async () => {
    primary.kill('SIGKILL');
    assert.ok(await eventually(async () => (await client.set('k', 'after')) === 'OK', 20_000), 'a write after the failover');
    assert.equal(await client.get('k'), 'after');
    const role = (await client.call('ROLE')) as [string, ...unknown[]];
    assert.equal(role[0], 'master', 'the server it now writes to is the promoted one');
  });

  it('refuses a malformed REDIS_SENTINELS at start', async () => {
    const { loadConfig, redisEnv, baseEnv } = await import('../src/index.js');
    assert.throws(() => loadConfig({ ...baseEnv, ...redisEnv }, { REGION: 'us', REDIS_SENTINELS: 'sentinel-without-port' }), /REDIS_SENTINELS/);
  });
});
