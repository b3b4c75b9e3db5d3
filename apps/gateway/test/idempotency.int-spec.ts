import 'reflect-metadata';
import http from 'node:http';
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/transport-node';
import { subjectRoot, SUBJECTS, type Principal } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { generateApiKey, hashApiKey, hashCaptureSecret } from '@verity/keys';
import { connectNats, createLogger, createRedis, RpcServer } from '@verity/platform';
import { isolationPrefix, testPrincipal, TEST_NATS_URL, TEST_REDIS_URL, TEST_SERVER_ENV, testPrincipalVerifier } from '@verity/testing';
import type { Redis } from 'ioredis';
import { loadGatewayConfig } from '../src/config.js';
import { recordKey } from '../src/idempotency/idempotency-key.js';
import { createGateway } from '../src/server.js';

/** A loopback port nobody listens on. */
async function freePort(): Promise<number> {
  const s = net.createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const p = (s.address() as AddressInfo).port;
  s.close();
  return p;
}

/**
 * Idempotency-Key (docs/errors.md#idempotency) against real Redis and NATS: the services behind the gateway are stood in by NATS
 * responders on the test's own subject root, which count their calls and can be held or made to fail.
 */
const log = createLogger('gateway', 'us', 'silent');
const RPC_TIMEOUT_MS = 1500;

const scopes: Principal['scopes'] = ['applicants:write', 'sessions:write', 'sessions:read', 'idv:scan'];
const keys = {
  test: generateApiKey('sk', 'us', 'test'),
  live: generateApiKey('sk', 'us', 'live'),
  other: generateApiKey('sk', 'us', 'test'),
  /** Another key of the same organization and mode. */
  sibling: generateApiKey('sk', 'us', 'test'),
};
const org = testPrincipal().org_id;
const principals = new Map<string, Principal>([
  [hashApiKey(keys.test), testPrincipal({ org_id: org, scopes })],
  [hashApiKey(keys.live), testPrincipal({ org_id: org, mode: 'live', scopes })],
  [hashApiKey(keys.other), testPrincipal({ scopes })],
  [hashApiKey(keys.sibling), testPrincipal({ org_id: org, scopes })],
]);
const captureSecret = `vcs_${'C'.repeat(43)}`;
let captureState: 'open' | 'closed' = 'open';

/** Calls of each stood-in route; a held create waits for `release`; `failNext` makes the next create answer 503. */
const calls = { create: 0, applicant: 0, skip: 0 };
let hold: Promise<void> | null = null;
let failNext: 'service_unavailable' | 'validation_error' | null = null;

let app: NestFastifyApplication;
let port: number;
let nc: NatsConnection;
let redis: Redis;
let server: RpcServer;
let prefix: string;

before(async () => {
  prefix = isolationPrefix('gwidem');
  nc = await connectNats(TEST_NATS_URL, 'gateway-idempotency-test');
  server = new RpcServer(nc, subjectRoot('us', prefix), 'stand-ins', log, { principals: testPrincipalVerifier() });
  server.handle(SUBJECTS.accountsVerifyKey, async (req) => ({ principal: principals.get(req.key_hash) ?? null }));
  server.handle(SUBJECTS.sessionsCreate, async (req) => {
    const n = ++calls.create;
    if (hold) await hold;
    const fail = failNext;
    failNext = null;
    if (fail === 'service_unavailable') throw new DomainError('service_unavailable');
    if (fail === 'validation_error') throw DomainError.validation([{ code: 'custom', message: 'refused once', path: ['applicant_id'] }]);
    return { id: `ses_${n}`, object: 'session', body: req.body } as never;
  });
  server.handle(SUBJECTS.applicantsCreate, async () => ({ id: `app_${++calls.applicant}` }) as never);
  server.handle(SUBJECTS.sessionsCaptureResolve, async (req) => {
    if (req.secret_hash !== hashCaptureSecret(captureSecret)) throw new DomainError('invalid_capture_token');
    return { session_id: 'ses_capture', org_id: org, mode: 'live', state: captureState, status: 'pending', expires_at: new Date(Date.now() + 60_000).toISOString() } as never;
  });
  server.handle(SUBJECTS.sessionsCaptureSkip, async () => {
    calls.skip++;
    captureState = 'closed';
    return { object: 'capture', session_id: 'ses_capture', status: 'skipped' } as never;
  });
  redis = createRedis(TEST_REDIS_URL, 'gateway-idempotency-test');
  if (redis.status !== 'ready') await once(redis, 'ready');
  app = await createGateway(gatewayConfig(), log, nc, redis);
  await app.listen(0, '127.0.0.1');
  port = (app.getHttpServer().address() as AddressInfo).port;
});

after(async () => {
  const left = await redis.keys(`${prefix}*`);
  if (left.length > 0) await redis.del(...left);
  await server?.close();
  await app?.close(); // disconnects Redis, drains NATS
});

function gatewayConfig() {
  return loadGatewayConfig({
    ...TEST_SERVER_ENV,
    REGION: 'us',
    INTERNAL_AUTH_SECRET: 'a-test-secret-of-at-least-32-characters',
    LOG_LEVEL: 'silent',
    NATS_SUBJECT_PREFIX: prefix,
    REDIS_KEY_PREFIX: prefix,
    TRUSTED_PROXIES: '127.0.0.1',
    RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
  });
}

interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: { error?: { code: string; param?: string; request_id: string }; data?: Record<string, unknown> };
}

let ipSeq = 0;
/** One request; `headers` as a flat name/value list so that a header can be sent twice. */
function send(method: string, path: string, opts: { key?: string; body?: string; headers?: string[]; at?: number } = {}): Promise<Res> {
  ipSeq++;
  // a flat list is sent as is: Node adds no Host header to it
  const headers = ['host', '127.0.0.1', 'x-forwarded-for', `10.88.${(ipSeq >> 8) & 255}.${ipSeq & 255}`, ...(opts.key ? ['authorization', `Bearer ${opts.key}`] : []), ...(opts.headers ?? [])];
  if (opts.body !== undefined) headers.push('content-type', 'application/json', 'content-length', String(Buffer.byteLength(opts.body)));
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: opts.at ?? port, method, path, headers, agent: false }, (res) => {
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
        resolve({ status: res.statusCode!, headers: res.headers, text, body });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

let keySeq = 0;
const newKey = () => `int-${Date.now()}-${++keySeq}`;
const create = (idem: string | undefined, body = '{"applicant_id":"app_1","workflow_template_id":"wft_1"}', key = keys.test) =>
  send('POST', '/v1/sessions', { key, body, headers: idem === undefined ? [] : ['Idempotency-Key', idem] });

describe('Idempotency-Key: replays', () => {
  it('a retry with the same key, path and body gets the first answer, marked replayed, and nothing runs again', async () => {
    const k = newKey();
    const before = calls.create;
    const first = await create(k);
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await create(k);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.text, first.text);
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.headers['original-request'], first.headers['x-request-id']);
    assert.notEqual(again.headers['x-request-id'], first.headers['x-request-id']);
    assert.equal(calls.create - before, 1);
  });

  it('the path is compared as routed: another spelling of the same path replays', async () => {
    const k = newKey();
    const first = await send('POST', '/v1/applicants', { key: keys.test, body: '{}', headers: ['Idempotency-Key', k] });
    const again = await send('POST', '/v%31/applicants', { key: keys.test, body: '{}', headers: ['Idempotency-Key', k] });
    assert.equal(first.status, 201, first.text);
    assert.equal(again.headers['idempotent-replayed'], 'true', again.text);
    assert.equal(again.text, first.text);
  });

  it('4xx answers of the handler are kept and replayed; 5xx answers are not, so the retry runs again', async () => {
    const refused = newKey();
    failNext = 'validation_error';
    const before = calls.create;
    const first = await create(refused);
    assert.equal(first.status, 422, first.text);
    const again = await create(refused);
    assert.equal(again.status, 422);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.text, first.text);
    assert.equal(calls.create - before, 1);

    const failed = newKey();
    failNext = 'service_unavailable';
    const down = await create(failed);
    assert.equal(down.status, 503, down.text);
    const retry = await create(failed);
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
    assert.equal(calls.create - before, 3);
    assert.equal((await create(failed)).headers['idempotent-replayed'], 'true', 'the success is kept');
  });

  it('keys are per API key: the same key sent with another API key (of another organization, another mode, or the same organization and mode) runs on its own', async () => {
    const k = newKey();
    const before = calls.create;
    const sent = [keys.test, keys.live, keys.other, keys.sibling];
    const answers = [];
    for (const key of sent) answers.push(await create(k, undefined, key));
    assert.deepEqual(answers.map((r) => [r.status, r.headers['idempotent-replayed']]), sent.map(() => [201, undefined]));
    assert.equal(calls.create - before, 4);
    // the sibling key sees its own answer, never the first key's
    assert.notEqual(answers[3]!.text, answers[0]!.text);
    assert.equal((await create(k, undefined, keys.sibling)).text, answers[3]!.text);
  });

  it('without the header every request runs, as before', async () => {
    const before = calls.create;
    const [a, b] = [await create(undefined), await create(undefined)];
    assert.deepEqual([a.status, b.status], [201, 201], a.text);
    assert.notEqual(a.text, b.text);
    assert.equal(calls.create - before, 2);
  });

  it('in Redis: the key only as a hash under the prefix and scope, the answer kept 24 hours', async () => {
    const k = `visible-${newKey()}`;
    assert.equal((await create(k)).status, 201);
    const p = principals.get(hashApiKey(keys.test))!;
    const mine = await redis.keys(`${prefix}idempotency:${p.org_id}:test:${p.key_id}:*`);
    assert.ok(mine.length > 0);
    let newest = -1;
    for (const name of mine) {
      assert.match(name, /:[0-9a-f]{64}$/);
      assert.ok(!name.includes(k), name);
      const value = (await redis.get(name))!;
      assert.ok(!value.includes(k), 'the key is not in the record either');
      assert.ok(!value.includes('ses_') && !value.includes('"object"'), 'the answer is sealed: nothing of it is readable in Redis');
      newest = Math.max(newest, await redis.pttl(name));
    }
    assert.ok(newest > 24 * 3600_000 - 60_000 && newest <= 24 * 3600_000, `expires in ${newest} ms`);
  });
});

describe('Idempotency-Key: conflicts', () => {
  it('the same key with another body or another path is 422 idempotency_key_reused, and nothing runs', async () => {
    const k = newKey();
    assert.equal((await create(k)).status, 201);
    const before = { ...calls };
    const body = await create(k, '{"applicant_id":"app_2","workflow_template_id":"wft_1"}');
    const spacing = await create(k, '{ "applicant_id":"app_1","workflow_template_id":"wft_1"}');
    const path = await send('POST', '/v1/applicants', { key: keys.test, body: '{"applicant_id":"app_1","workflow_template_id":"wft_1"}', headers: ['Idempotency-Key', k] });
    for (const r of [body, spacing, path]) {
      assert.equal(r.status, 422, r.text);
      assert.equal(r.body.error?.code, 'idempotency_key_reused');
      assert.equal(r.headers['idempotent-replayed'], undefined);
    }
    assert.deepEqual(calls, before);
  });

  it('concurrent requests with one key: one runs, the others are 409 idempotency_key_in_use while it runs; then it replays', async () => {
    const k = newKey();
    let release!: () => void;
    hold = new Promise((r) => (release = r));
    const before = calls.create;
    try {
      const first = create(k);
      while (calls.create === before) await new Promise((r) => setTimeout(r, 10));
      const others = await Promise.all(Array.from({ length: 8 }, () => create(k)));
      for (const r of others) {
        assert.equal(r.status, 409, r.text);
        assert.equal(r.body.error?.code, 'idempotency_key_in_use');
      }
      const reused = await create(k, '{}');
      assert.equal(reused.body.error?.code, 'idempotency_key_reused', 'another body is reused even while the first runs');
      release();
      assert.equal((await first).status, 201);
    } finally {
      hold = null;
      release();
    }
    assert.equal((await create(k)).headers['idempotent-replayed'], 'true');
    assert.equal(calls.create - before, 1);
  });

  it('a burst of the same request at once runs it exactly once', async () => {
    const k = newKey();
    const before = calls.create;
    const all = await Promise.all(Array.from({ length: 20 }, () => create(k)));
    assert.equal(calls.create - before, 1);
    for (const r of all) assert.ok([201, 409].includes(r.status), r.text);
    assert.equal(all.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined).length, 1);
  });
});

describe('Idempotency-Key: the header', () => {
  it('a bad value is 422 validation_error naming the header, before anything runs', async () => {
    const before = { ...calls };
    for (const headers of [['Idempotency-Key', ''], ['Idempotency-Key', 'x'.repeat(256)], ['Idempotency-Key', 'caf\u00e9'], ['Idempotency-Key', 'a', 'Idempotency-Key', 'b']]) {
      const r = await send('POST', '/v1/sessions', { key: keys.test, body: '{}', headers });
      assert.equal(r.status, 422, `${JSON.stringify(headers)}: ${r.text}`);
      assert.equal(r.body.error?.code, 'validation_error');
      assert.equal(r.body.error?.param, 'Idempotency-Key');
    }
    assert.deepEqual(calls, before);
  });

  it('authentication comes first, and a GET ignores the header', async () => {
    const r = await send('POST', '/v1/sessions', { body: '{}', headers: ['Idempotency-Key', ''] });
    assert.equal(r.body.error?.code, 'authentication_required');
    const me = await send('GET', '/v1/me', { key: keys.test, headers: ['Idempotency-Key', ''] });
    assert.equal(me.status, 200, me.text);
  });

  it('POST /v1/id-verification validates the header but keeps nothing (a streamed, stateless scan)', async () => {
    const bad = await send('POST', '/v1/id-verification', { key: keys.test, headers: ['Idempotency-Key', ''] });
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.body.error?.param, 'Idempotency-Key');
    const k = newKey();
    for (let i = 0; i < 2; i++) {
      // no id-scan service in this test: 503, and no record of the key either way
      const r = await send('POST', '/v1/id-verification', { key: keys.test, headers: ['Idempotency-Key', k, 'content-type', 'multipart/form-data; boundary=x', 'content-length', '0'] });
      assert.equal(r.body.error?.code, 'service_unavailable', r.text);
    }
    assert.equal(await redis.exists(recordKey(prefix, `${org}:test`, k)), 0);
  });
});

describe('Idempotency-Key: capture routes', () => {
  it('scoped by session; a retried skip replays its first answer after the capture closed, where a new request is 409', async () => {
    captureState = 'open';
    const k = newKey();
    const skip = (idem?: string) => send('POST', '/v1/capture/skip', { key: captureSecret, body: '{"step":"document_front"}', headers: idem === undefined ? [] : ['Idempotency-Key', idem] });
    const first = await skip(k);
    assert.equal(first.status, 200, first.text);
    assert.equal(calls.skip, 1);
    const again = await skip(k);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.text, first.text);
    // the capture has ended: without a key, or with a new one, the usual refusal (a new key keeps it as its answer)
    assert.equal((await skip()).body.error?.code, 'invalid_state_transition');
    const fresh = newKey();
    const refused = await skip(fresh);
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error?.code, 'invalid_state_transition');
    assert.equal((await skip(fresh)).headers['idempotent-replayed'], 'true');
    const other = await send('POST', '/v1/capture/skip', { key: captureSecret, body: '{"step":"selfie"}', headers: ['Idempotency-Key', k] });
    assert.equal(other.body.error?.code, 'idempotency_key_reused');
    assert.equal(calls.skip, 1);
  });
});

describe('Idempotency-Key: Redis unreachable', () => {
  it('a request with a key is 503 service_unavailable and does not run; without a key it runs (the limiter fails open)', async () => {
    const dead = createRedis(`redis://127.0.0.1:${await freePort()}`, 'gateway-idempotency-dead');
    dead.on('error', () => undefined);
    const lone = await createGateway(gatewayConfig(), log, await connectNats(TEST_NATS_URL, 'gateway-idempotency-dead'), dead);
    await lone.listen(0, '127.0.0.1');
    try {
      const at = (lone.getHttpServer().address() as AddressInfo).port;
      const before = calls.create;
      const body = '{"applicant_id":"app_1","workflow_template_id":"wft_1"}';
      const refused = await send('POST', '/v1/sessions', { at, key: keys.test, body, headers: ['Idempotency-Key', newKey()] });
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.body.error?.code, 'service_unavailable');
      assert.equal(refused.headers['retry-after'], '2', 'every 503 says when to try again');
      assert.equal(calls.create, before);
      const plain = await send('POST', '/v1/sessions', { at, key: keys.test, body });
      assert.equal(plain.status, 201, plain.text);
    } finally {
      await lone.close();
      dead.disconnect();
    }
  });
});
