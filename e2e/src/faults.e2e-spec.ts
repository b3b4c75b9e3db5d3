import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS, subjectRoot } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { Stack } from '@verity/stack';
import { api, cloneTestDatabase, isolationPrefix, query, waitFor, type ApiResponse } from '@verity/testing';
import { errorOf, freePort, rateLimitOf } from './support.js';

/**
 * Faults, on a us stack of this file's own (own database, subjects, ports and Redis server) so that stopping
 * a service or Redis never touches the stacks other test files use.
 */
const RPC_TIMEOUT_MS = 1500;
/** What "within the timeout" allows beyond the RPC timeout itself: the rest of one request's path. */
const SLACK_MS = 1000;

/** Answers true once something at `port` replies +PONG to PING. */
function redisAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(500, () => done(false));
    s.once('error', () => done(false));
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

async function startRedis(port: number): Promise<ChildProcess> {
  const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await waitFor(() => redisAnswers(port), 10_000);
  return p;
}

async function stopProcess(p: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  const exited = once(p, 'exit');
  p.kill(signal);
  await exited;
}

describe('faults on a stack of its own', () => {
  let stack: Stack;
  let redis: ChildProcess | undefined;
  let redisPort: number;
  let db: Awaited<ReturnType<typeof cloneTestDatabase>> | undefined;
  let nc: Awaited<ReturnType<Stack['connectNats']>> | undefined;
  let ops: RpcClient;
  let base: string;

  before(async () => {
    const prefix = isolationPrefix('faults');
    db = await cloneTestDatabase('faults');
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    stack = new Stack({
      // its database is a clone of the migrated template
      migrate: false,
      regions: ['us'],
      ports: { us: await freePort(), eu: 0 },
      databaseUrl: () => db!.url,
      redisUrl: `redis://127.0.0.1:${redisPort}`,
      isolationPrefix: prefix,
      env: { LOG_LEVEL: 'error', RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) },
      output: (r, s, line) => process.stderr.write(`[faults ${r}/${s}] ${line}\n`),
    });
    await stack.start();
    base = stack.baseUrl('us');
    nc = await stack.connectNats('us', 'operator', 'e2e-faults');
    ops = new RpcClient(nc, subjectRoot('us', prefix), 5000);
  });

  after(async () => {
    await nc?.close();
    await stack?.stop();
    await stopProcess(redis, 'SIGKILL');
    await db?.drop();
  });

  const op = { principal: null, requestId: 'req_e2e_faults' };
  async function newKey(): Promise<{ orgId: string; key: string }> {
    const org = await ops.call(SUBJECTS.accountsOrgCreate, { name: 'faults' }, op);
    const k = await ops.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes: ['applicants:read', 'applicants:write'] }, op);
    return { orgId: org.id, key: k.key };
  }
  const call = (key: string | undefined) => <T = Record<string, unknown>>(method: string, p: string, body?: unknown) => api<T>(base, method, p, { key, body });
  async function storedNames(orgId: string): Promise<string[]> {
    const r = await query<{ family_name: string }>(db!.url, 'SELECT family_name FROM applicants.applicants WHERE org_id = $1 ORDER BY seq', [orgId]);
    return r.map((x) => x.family_name);
  }
  type Ready = { status: string; services: Record<string, string>; redis: string; nats: string };
  const ready = () => api<Ready>(base, 'GET', '/health/ready');
  /** Readiness once it shows `until`: the gateway shares and caches its fan-out for HEALTH_CACHE_MS (1 s). */
  const readyOnce = (until: (r: ApiResponse<Ready>) => boolean) =>
    waitFor(async () => {
      const r = await ready();
      return until(r) ? r : undefined;
    }, 5000, 100);

  it('applicants stopped: POST is 503 service_unavailable within the timeout and writes nothing, readiness stays 200 and says degraded; restarted, the same gateway serves again', async () => {
    const { orgId, key } = await newKey();
    const c = call(key);
    assert.equal((await c('GET', '/v1/applicants')).status, 200);
    const gatewayPid = stack.process('us', 'gateway')!.pid;

    await stack.stopService('us', 'applicants');
    const t0 = Date.now();
    const res = await c('POST', '/v1/applicants', { family_name: 'Nobody home' });
    const elapsed = Date.now() - t0;
    assert.equal(res.status, 503, res.text);
    const e = errorOf(res);
    assert.equal(e.code, 'service_unavailable');
    assert.equal(e.type, 'api_error');
    assert.ok(elapsed <= RPC_TIMEOUT_MS + SLACK_MS, `answered in ${elapsed} ms`);
    assert.equal((await c('GET', '/v1/applicants')).status, 503);
    assert.deepEqual(await storedNames(orgId), []);

    // the gateway can still serve every other route: it stays ready (in its load balancer), and says what is down
    const r = await readyOnce((x) => x.body.services.applicants === 'down');
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'degraded');
    assert.equal(r.body.nats, 'ok');
    assert.equal(r.body.services.applicants, 'down');
    assert.equal(r.body.services.accounts, 'ok');
    assert.equal((await api(base, 'GET', '/health/live')).status, 200, 'the gateway itself is up');

    stack.startService('us', 'applicants');
    await stack.waitReady('us', 60_000);
    const created = await c<{ data: { family_name: string } }>('POST', '/v1/applicants', { family_name: 'Back again' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(await storedNames(orgId), ['Back again']);
    assert.equal(stack.process('us', 'gateway')!.pid, gatewayPid, 'the gateway was not restarted');
  });

  it('applicants hung: POST is 503 within the timeout, and the request it reads late is not written', async () => {
    const { orgId, key } = await newKey();
    const c = call(key);
    assert.equal((await c('GET', '/v1/applicants')).status, 200);
    const service = stack.process('us', 'applicants')!;
    let res: ApiResponse;
    let elapsed: number;
    service.kill('SIGSTOP');
    try {
      const t0 = Date.now();
      res = await c('POST', '/v1/applicants', { family_name: 'Too late' });
      elapsed = Date.now() - t0;
    } finally {
      service.kill('SIGCONT');
    }
    assert.equal(res.status, 503, res.text);
    assert.equal(errorOf(res).code, 'service_unavailable');
    assert.ok(elapsed <= RPC_TIMEOUT_MS + SLACK_MS, `answered in ${elapsed} ms`);

    // resumed, the service reads the stale request first, past its deadline: it must not commit it
    await waitFor(async () => (await c('POST', '/v1/applicants', { family_name: 'On time' })).status === 201, 30_000);
    const names = await storedNames(orgId);
    assert.ok(names.includes('On time'));
    assert.ok(!names.includes('Too late'), 'the request answered 503 left nothing behind');
  });

  /** Remaining of two creates counted in one rate-limit window (tried again if the window rolled over between them). */
  async function pairInOneWindow(c: ReturnType<typeof call>): Promise<[number, number]> {
    for (;;) {
      const a = await c('POST', '/v1/applicants', { family_name: 'Counted' });
      const b = await c('POST', '/v1/applicants', { family_name: 'Counted' });
      assert.deepEqual([a.status, b.status], [201, 201]);
      if (rateLimitOf(a).reset === rateLimitOf(b).reset) return [rateLimitOf(a).remaining, rateLimitOf(b).remaining];
    }
  }

  it('Redis down: requests still answer (fail open) and readiness is degraded; Redis back on the same port: counting resumes', async () => {
    const { key } = await newKey();
    const c = call(key);
    const [a, b] = await pairInOneWindow(c);
    assert.ok(a < 60 && b === a - 1, `counted: ${a}, ${b}`);

    await stopProcess(redis, 'SIGKILL');
    assert.equal(await redisAnswers(redisPort), false);
    const created = await c('POST', '/v1/applicants', { family_name: 'Redis away' });
    assert.equal(created.status, 201, created.text);
    assert.match(created.headers.get('x-ratelimit-limit') ?? '', /^[0-9]+$/);
    assert.equal((await c('GET', '/v1/applicants')).status, 200);
    const { key: unseen } = await newKey();
    assert.equal((await call(unseen)('GET', '/v1/me')).status, 200, 'a key not yet cached is verified too');
    assert.equal((await call(undefined)('GET', '/v1/me')).status, 401, 'authentication still applies');

    const degraded = await readyOnce((x) => x.body.redis !== 'ok');
    assert.equal(degraded.status, 200);
    assert.equal(degraded.body.status, 'degraded');
    assert.equal(degraded.body.redis, 'down');
    assert.ok(Object.values(degraded.body.services).every((s) => s === 'ok'));
    // the probe Kubernetes reads, on the gateway's internal port: still ready, Redis reported down
    const probe = await api<{ status: string; checks: Record<string, string> }>(stack.healthUrl('us', 'gateway'), 'GET', '/health/ready');
    assert.equal(probe.status, 200, probe.text);
    assert.deepEqual(probe.body.checks, { nats: 'ok', redis: 'down' });

    redis = await startRedis(redisPort);
    await waitFor(async () => (await ready()).body.redis === 'ok', 10_000);
    const back = await ready();
    assert.deepEqual([back.status, back.body.status], [200, 'ok']);
    // the new Redis started empty: the count starts over and decreases again
    const [c1, c2] = await pairInOneWindow(c);
    assert.ok(c1 < 60 && c2 === c1 - 1, `counted again: ${c1}, ${c2}`);
  });
});
