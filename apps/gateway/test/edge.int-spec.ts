import 'reflect-metadata';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/transport-node';
import { subjectRoot, SUBJECTS, type Principal } from '@verity/contracts';
import { generateApiKey, hashApiKey } from '@verity/keys';
import { connectNats, createLogger, createRedis, RpcServer } from '@verity/platform';
import { freshWindow, isolationPrefix, testPrincipal, TEST_NATS_URL, TEST_REDIS_URL, TEST_SERVER_ENV, testPrincipalVerifier } from '@verity/testing';
import type { Redis } from 'ioredis';
import { loadGatewayConfig } from '../src/config.js';
import { REGION_SERVICES } from '../src/health/health.controller.js';
import { createGateway } from '../src/server.js';

/**
 * The gateway's edge against real NATS and Redis: path spellings, the Bearer scheme, Node's timeouts and
 * readiness. The services behind it are stood in by NATS responders on the test's own subject root (key
 * verification, and health pings that count how often they are asked).
 */
const log = createLogger('gateway', 'us', 'silent');
const IP_LIMIT = 8;
// long enough that a flood of probes (80 on a busy machine, load 25 on 2 cores) ends within one cache period
const HEALTH_CACHE_MS = 5000;

let app: NestFastifyApplication;
let port: number;
let nc: NatsConnection;
let redis: Redis;
let server: RpcServer;
const key = generateApiKey('sk', 'us', 'test');
const principal: Principal = testPrincipal({ scopes: ['applicants:write', 'applicants:read', 'sessions:read'] });
const pings = new Map<string, number>();
const stopped = new Set<string>();

before(async () => {
  const prefix = isolationPrefix('gwedge');
  nc = await connectNats(TEST_NATS_URL, 'gateway-edge-test');
  server = new RpcServer(nc, subjectRoot('us', prefix), 'stand-ins', log, { principals: testPrincipalVerifier() });
  server.handle(SUBJECTS.accountsVerifyKey, async (req) => ({ principal: req.key_hash === hashApiKey(key) ? principal : null }));
  for (const s of REGION_SERVICES) {
    server.handle(s.subject, async () => {
      pings.set(s.name, (pings.get(s.name) ?? 0) + 1);
      if (stopped.has(s.name)) await new Promise((r) => setTimeout(r, 2000));
      return { service: s.name, status: 'ok', checks: {} } as never;
    });
  }
  const cfg = loadGatewayConfig({
    ...TEST_SERVER_ENV,
    REGION: 'us',
    INTERNAL_AUTH_SECRET: 'a-test-secret-of-at-least-32-characters',
    LOG_LEVEL: 'silent',
    NATS_SUBJECT_PREFIX: prefix,
    REDIS_KEY_PREFIX: prefix,
    TRUSTED_PROXIES: '127.0.0.1',
    RATE_LIMIT_IP_PER_MINUTE: String(IP_LIMIT),
    HEALTH_TIMEOUT_MS: '300',
    HEALTH_CACHE_MS: String(HEALTH_CACHE_MS),
    HTTP_HEADERS_TIMEOUT_MS: '1000',
    // room for a whole request on a busy machine (a 2 s stall has cut off an ordinary GET); the body-trickle test waits it out
    HTTP_REQUEST_TIMEOUT_MS: '4000',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
    HTTP_IDLE_TIMEOUT_MS: '3000',
    // shorter than the idle timeout (loadGatewayConfig)
    ID_SCAN_TIMEOUT_MS: '2000',
    CAPTURE_UPLOAD_TIMEOUT_MS: '2000',
    RPC_TIMEOUT_MS: '2000',
  });
  redis = createRedis(TEST_REDIS_URL, 'gateway-edge-test');
  app = await createGateway(cfg, log, nc, redis);
  await app.listen(0, '127.0.0.1');
  port = (app.getHttpServer().address() as AddressInfo).port;
});

after(async () => {
  await server?.close();
  await app?.close(); // drains the NATS connection
  redis?.disconnect();
});

let ipSeq = 0;
/** A client address of its own (the gateway trusts X-Forwarded-For from loopback), so budgets never mix. */
function newIp(): string {
  ipSeq++;
  return `10.77.${(ipSeq >> 8) & 255}.${ipSeq & 255}`;
}

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { error?: { code: string; message: string; request_id: string }; data?: Record<string, unknown> } & Record<string, unknown>;
  text: string;
}

/** One request with the path sent exactly as written (fetch would normalise dot segments and escapes). */
function raw(method: string, path: string, headers: Record<string, string> = {}, ip = newIp()): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { 'x-forwarded-for': ip, ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let body = {};
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode!, headers: res.headers, body: body as Raw['body'], text });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Everything a raw connection receives until the gateway closes it, and how long that took. */
async function until_closed(socket: net.Socket): Promise<{ text: string; ms: number }> {
  const t0 = Date.now();
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (text += d));
  await once(socket, 'close');
  return { text, ms: Date.now() - t0 };
}

function envelopeOf(text: string): { status: number; code: string } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { error: { code: string } };
  return { status, code: body.error.code };
}

describe('gateway edge: every spelling of a path is one route, authenticated and limited', () => {
  it('percent-encoded unreserved characters reach the route through authentication: 401 without a key, 200 with it', async () => {
    for (const p of ['/%761/me', '/v%31/me', '/%76%31/%6De', '/v1/m%65']) {
      const res = await raw('GET', p);
      assert.equal(res.status, 401, `${p}: ${res.text}`);
      assert.equal(res.body.error?.code, 'authentication_required', p);
      const ok = await raw('GET', p, { authorization: `Bearer ${key}` });
      assert.equal(ok.status, 200, `${p}: ${ok.text}`);
      assert.equal(ok.body.data?.id, principal.key_id);
    }
    const s = await raw('GET', '/v%31/sessions/x');
    assert.equal(s.status, 401, s.text);
    assert.equal(s.body.error?.code, 'authentication_required');
  });

  it('the pre-authentication IP limit counts every spelling', async () => {
    await freshWindow();
    const ip = newIp();
    const spellings = ['/v1/me', '/%761/me', '/v%31/me', '/v%31/sessions/x'];
    const statuses: number[] = [];
    for (let i = 0; i < IP_LIMIT + 2; i++) statuses.push((await raw('GET', spellings[i % spellings.length]!, {}, ip)).status);
    assert.deepEqual(statuses, [...Array(IP_LIMIT).fill(401), 429, 429]);
    const last = await raw('GET', '/%761/me', {}, ip);
    assert.equal(last.body.error?.code, 'rate_limit_exceeded');
    assert.equal(last.headers['x-ratelimit-limit'], String(IP_LIMIT));
  });

  it('an encoded slash, backslash or NUL, or a dot segment however spelled, is 400 invalid_path without echo', async () => {
    for (const p of ['/v1/sessions/a%2Fb', '/v1/sessions/a%2fb', '/v1%2Fme', '/v1/sessions/a%5Cb', '/v1/sessions/a%00', '/v1/x/../me', '/v1/./me', '/v1/%2e%2e/v1/me', '/v1/%2E/me', '/v1/sessions/.%2E/me', '/x/%2e%2e/v1/me']) {
      const res = await raw('GET', p, { authorization: `Bearer ${key}` });
      assert.equal(res.status, 400, `${p}: ${res.text}`);
      assert.equal(res.body.error?.code, 'invalid_path', p);
      assert.match(res.headers['x-request-id'] as string, /^req_/);
      assert.ok(!res.text.includes('%') && !res.text.includes('sessions'), `${p}: ${res.text}`);
    }
  });

  it('a malformed escape still names no route (404 without echo), and other escapes are not decoded into a route', async () => {
    for (const p of ['/v1/%zz', '/v%2/me', '/v1/me%20']) {
      const res = await raw('GET', p, { authorization: `Bearer ${key}` });
      assert.equal(res.status, 404, `${p}: ${res.text}`);
      assert.equal(res.body.error?.code, 'route_not_found');
    }
  });
});

describe('gateway edge: the Bearer scheme is case-insensitive (RFC 7235)', () => {
  it('bearer, BEARER and BeArEr authenticate like Bearer', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'BeArEr']) {
      const res = await raw('GET', '/v1/me', { authorization: `${scheme} ${key}` });
      assert.equal(res.status, 200, `${scheme}: ${res.text}`);
      assert.equal(res.body.data?.id, principal.key_id);
    }
    const other = await raw('GET', '/v1/me', { authorization: `Basic ${key}` });
    assert.equal(other.body.error?.code, 'authentication_required');
  });
});

describe('gateway edge: slow and idle connections are cut off', () => {
  it('headers trickled one byte at a time: 408 request_timeout in the envelope, then the connection closes', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('GET /v1/me HTTP/1.1\r\nHost: gateway\r\n');
    const trickle = setInterval(() => !socket.destroyed && socket.write('X'), 100);
    try {
      const { text, ms } = await until_closed(socket);
      assert.deepEqual(envelopeOf(text), { status: 408, code: 'request_timeout' });
      assert.match(text, /\r\nx-request-id: req_/i);
      assert.ok(ms < 5000, `closed after ${ms} ms`);
    } finally {
      clearInterval(trickle);
    }
  });

  it('a body trickled slower than the request timeout: 408 request_timeout in the envelope, nothing served', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(`POST /v1/applicants HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\nX-Forwarded-For: ${newIp()}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{`);
    const trickle = setInterval(() => !socket.destroyed && socket.write(' '), 100);
    try {
      const { text, ms } = await until_closed(socket);
      assert.deepEqual(envelopeOf(text), { status: 408, code: 'request_timeout' });
      assert.ok(ms < 9000, `closed after ${ms} ms`);
    } finally {
      clearInterval(trickle);
    }
  });

  it('a request that is not HTTP: 400 malformed_request in the envelope, then the connection closes', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const closed = until_closed(socket);
    socket.write('NOT HTTP AT ALL <script>\r\n\r\n');
    const { text } = await closed;
    assert.deepEqual(envelopeOf(text), { status: 400, code: 'malformed_request' });
    assert.ok(!text.includes('script'), text);
  });

  it('a connection that never sends a byte is closed', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const { ms } = await until_closed(socket);
    assert.ok(ms < 6000, `closed after ${ms} ms`);
  });

  it('a kept-alive connection idle after its answer is closed after the keep-alive timeout, without another answer', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const closed = until_closed(socket);
    socket.write('GET /health/live HTTP/1.1\r\nHost: gateway\r\n\r\n');
    const { text, ms } = await closed;
    assert.equal(text.match(/^HTTP\/1\.1 /gm)?.length, 1, text);
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.ok(ms < 3000, `closed after ${ms} ms`);
  });
});

describe('gateway edge: readiness is cheap and says little', () => {
  const ping = () => [...pings.values()].reduce((a, b) => a + b, 0);

  it('a flood of concurrent probes causes one fan-out; later probes within the cache period cause none', async () => {
    await new Promise((r) => setTimeout(r, HEALTH_CACHE_MS + 50));
    const before = ping();
    const flood = await Promise.all(Array.from({ length: 60 }, () => raw('GET', '/health/ready')));
    assert.deepEqual(new Set(flood.map((r) => r.status)), new Set([200]));
    assert.equal(ping() - before, REGION_SERVICES.length, 'one ping of each service for 60 probes');
    const again = await Promise.all(Array.from({ length: 20 }, () => raw('GET', '/health/ready')));
    assert.deepEqual(new Set(again.map((r) => r.status)), new Set([200]));
    assert.equal(ping() - before, REGION_SERVICES.length, 'still one fan-out within the cache period');
    await new Promise((r) => setTimeout(r, HEALTH_CACHE_MS + 50));
    await raw('GET', '/health/ready');
    assert.equal(ping() - before, 2 * REGION_SERVICES.length, 'a new fan-out once the period is over');
  });

  it('answers only the status of its NATS, Redis and each service, not to be cached by anyone', async () => {
    const res = await raw('GET', '/health/ready');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['nats', 'redis', 'services', 'status']);
    assert.equal(res.body.nats, 'ok');
    assert.deepEqual(res.body.services, Object.fromEntries(REGION_SERVICES.map((s) => [s.name, 'ok'])));
    assert.equal(res.body.status, 'ok');
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  it('a service that does not answer leaves the gateway ready (200), degraded, with that service down', async () => {
    stopped.add('screening');
    try {
      await new Promise((r) => setTimeout(r, HEALTH_CACHE_MS + 50));
      const res = await raw('GET', '/health/ready');
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'degraded');
      assert.equal((res.body.services as Record<string, string>).screening, 'down');
      assert.equal((res.body.services as Record<string, string>).accounts, 'ok');
    } finally {
      stopped.delete('screening');
    }
  });

  it('GET /v1/openapi.json needs no key (and reads none), and counts against the pre-authentication IP limit', async () => {
    await freshWindow();
    const ip = newIp();
    const first = await raw('GET', '/v1/openapi.json', { authorization: 'Bearer idv_sk_us_test_not-a-key' }, ip);
    assert.equal(first.status, 200, first.text.slice(0, 200));
    assert.equal(first.body['openapi'], '3.1.1');
    assert.equal(first.headers['x-ratelimit-limit'], String(IP_LIMIT));
    assert.equal(first.headers['x-ratelimit-remaining'], String(IP_LIMIT - 1));
    const statuses = [first.status];
    for (let i = 1; i < IP_LIMIT + 1; i++) statuses.push((await raw('GET', '/v1/openapi.json', {}, ip)).status);
    assert.deepEqual(statuses.slice(-2), [200, 429]);
    const refused = await raw('GET', '/v1/openapi.json', {}, ip);
    assert.equal(refused.body.error?.code, 'rate_limit_exceeded');
    // only the one route is public: another method on its path names no route
    assert.equal((await raw('POST', '/v1/openapi.json')).body.error?.code, 'route_not_found');
  });

  it('counts against the pre-authentication IP limit: 429 in the envelope past the budget', async () => {
    await freshWindow();
    const ip = newIp();
    const statuses: number[] = [];
    for (let i = 0; i < IP_LIMIT + 1; i++) statuses.push((await raw('GET', '/health/ready', {}, ip)).status);
    assert.deepEqual(statuses.slice(-2).map((s) => s === 429), [false, true]);
    const res = await raw('GET', '/health/ready', {}, ip);
    assert.equal(res.status, 429);
    assert.equal(res.body.error?.code, 'rate_limit_exceeded');
  });
});
