import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { CONTENT_SECURITY_POLICY, captureAsset } from '@verity/capture-page';
import { SUBJECTS, type CaptureResolveReply } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { LOGGER, RpcClient, type CallOptions, type Logger } from '@verity/platform';
import type { FastifyInstance } from 'fastify';
import { CapturePageController } from './capture-page.controller.js';
import { deviceCookie, newDeviceId, readDeviceId } from './device-cookie.js';

const SECRET = `vcs_${'Zq9'.repeat(14)}x`;

/** The sessions service as the page route sees it: each test says what resolve answers. */
const calls: Array<{ subject: string; payload: unknown; opts: CallOptions }> = [];
let answer: () => Promise<CaptureResolveReply> = async () => {
  throw new DomainError('service_unavailable');
};
const rpc = {
  call: async (subject: string, payload: unknown, opts: CallOptions) => {
    calls.push({ subject, payload, opts });
    return answer();
  },
};
const logged: unknown[] = [];
const log = { error: (o: unknown) => logged.push(o), warn: () => undefined, info: () => undefined } as unknown as Logger;

function reply(state: CaptureResolveReply['state']): () => Promise<CaptureResolveReply> {
  return async () => ({ state, session_id: 'ses_1', org_id: 'org_1', mode: 'live', status: 'pending', expires_at: '2026-11-27T10:00:00.000Z' });
}

@Module({
  controllers: [CapturePageController],
  providers: [
    { provide: RpcClient, useValue: rpc },
    { provide: LOGGER, useValue: log },
  ],
})
class TestModule {}

let app: NestFastifyApplication;
let fastify: FastifyInstance;

before(async () => {
  app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter({ trustProxy: ['127.0.0.1'], routerOptions: { maxParamLength: 16 * 1024 } }), { logger: false });
  fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  fastify.decorateRequest('requestId', '');
  fastify.addHook('onRequest', async (req, res) => {
    req.requestId = 'req_test';
    res.header('x-request-id', 'req_test');
  });
  await app.init();
  await fastify.ready();
});

after(async () => {
  await app.close();
});

beforeEach(() => {
  calls.length = 0;
  logged.length = 0;
});

function get(url: string, headers: Record<string, string> = {}) {
  return fastify.inject({ method: 'GET', url, headers });
}

function assertPageHeaders(headers: Record<string, unknown>): void {
  assert.equal(headers['content-security-policy'], CONTENT_SECURITY_POLICY);
  assert.equal(headers['x-content-type-options'], 'nosniff');
  assert.equal(headers['referrer-policy'], 'no-referrer');
  assert.equal(headers['cache-control'], 'no-store');
  assert.equal(headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(headers['x-request-id'], 'req_test');
}

describe('GET /verify/:secret', () => {
  it('an open link: the page, 200, with the secret for the script, after resolving its SHA-256 hash', async () => {
    answer = reply('open');
    const res = await get(`/verify/${SECRET}`);
    assert.equal(res.statusCode, 200);
    assertPageHeaders(res.headers);
    assert.ok(res.body.includes(`<meta name="capture-secret" content="${SECRET}">`));
    assert.deepEqual(calls, [
      {
        subject: SUBJECTS.sessionsCaptureResolve,
        payload: { secret_hash: createHash('sha256').update(SECRET).digest('hex') },
        opts: { principal: null, requestId: 'req_test' },
      },
    ]);
  });

  it('an expired link: 410 and the expired page', async () => {
    answer = reply('expired');
    const res = await get(`/verify/${SECRET}`);
    assert.equal(res.statusCode, 410);
    assertPageHeaders(res.headers);
    assert.match(res.body, /This link has expired/);
    assert.equal(res.body.includes(SECRET), false);
  });

  it('a used link: 410 and the used page', async () => {
    answer = reply('closed');
    const res = await get(`/verify/${SECRET}`);
    assert.equal(res.statusCode, 410);
    assert.match(res.body, /This verification is already done/);
    assert.equal(res.body.includes(SECRET), false);
  });

  it('an unknown secret: 404 and the unknown page', async () => {
    answer = async () => {
      throw DomainError.fromData({ code: 'invalid_capture_token' as never, message: 'x' });
    };
    const res = await get(`/verify/${SECRET}`);
    assert.equal(res.statusCode, 404);
    assertPageHeaders(res.headers);
    assert.match(res.body, /This link does not work/);
    assert.equal(res.body.includes(SECRET), false);
  });

  it('a secret of the wrong shape: 404 without asking anyone, and nothing echoed', async () => {
    answer = reply('open');
    for (const bad of ['vcs_short', `${SECRET}A`, SECRET.replace('vcs_', 'sk_'), `${SECRET.slice(0, -1)}%3Cb%3E`, 'x'.repeat(5000)]) {
      const res = await get(`/verify/${bad}`);
      assert.equal(res.statusCode, 404, bad);
      assertPageHeaders(res.headers);
      assert.match(res.body, /This link does not work/);
      assert.equal(res.body.includes(decodeURIComponent(bad)), false);
      assert.equal(res.body.includes(SECRET), false);
    }
    assert.equal(calls.length, 0);
  });

  it('sessions not answering (no responders, timeout): 503 and a "try again in a minute" page', async () => {
    answer = async () => {
      throw new DomainError('service_unavailable');
    };
    const res = await get(`/verify/${SECRET}`);
    assert.equal(res.statusCode, 503);
    assertPageHeaders(res.headers);
    assert.match(res.body, /Please try again in a minute/);
    assert.deepEqual(logged, []);
  });

  it('anything else: 500, a plain page, no stack, and the cause logged without the secret', async () => {
    answer = async () => {
      throw new Error('boom at somewhere.ts:12');
    };
    const res = await get(`/verify/${SECRET}`);
    assert.equal(res.statusCode, 500);
    assertPageHeaders(res.headers);
    assert.match(res.body, /Something went wrong on our side/);
    assert.equal(/boom|\.ts:|at /.test(res.body.replace(/<[^>]*>/g, '')), false);
    assert.equal(logged.length, 1);
    assert.equal(JSON.stringify(logged).includes(SECRET), false);
  });

  it('sets the device cookie when the browser has none, Secure over https', async () => {
    answer = reply('open');
    const plain = await get(`/verify/${SECRET}`);
    const cookie = String(plain.headers['set-cookie']);
    assert.match(cookie, /^verity_device=[A-Za-z0-9]{24}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=63072000$/);

    // behind a trusted proxy that terminated TLS
    const tls = await get(`/verify/${SECRET}`, { 'x-forwarded-proto': 'https' });
    assert.match(String(tls.headers['set-cookie']), /^verity_device=[A-Za-z0-9]{24}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=63072000; Secure$/);

    const again = await get(`/verify/${SECRET}`, { cookie: `a=b; ${cookie.split(';')[0]}` });
    assert.equal(again.headers['set-cookie'], undefined);
    // error pages too: the cookie is about the device, not the link
    answer = reply('expired');
    assert.ok((await get(`/verify/${SECRET}`)).headers['set-cookie']);
    // a malformed one is replaced
    assert.ok((await get(`/verify/${SECRET}`, { cookie: 'verity_device=short' })).headers['set-cookie']);
  });
});

describe('GET /verify/assets/:file', () => {
  it('serves the script, the stylesheet and a picture with their types, cacheable, under the same CSP', async () => {
    for (const [file, type] of [
      ['capture.js', 'text/javascript; charset=utf-8'],
      ['analysis.js', 'text/javascript; charset=utf-8'],
      ['page.css', 'text/css; charset=utf-8'],
      ['icon.svg', 'image/svg+xml'],
    ]) {
      const res = await get(`/verify/assets/${file}?v=abc`);
      assert.equal(res.statusCode, 200, file);
      assert.equal(res.headers['content-type'], type);
      assert.equal(res.headers['cache-control'], 'public, max-age=3600');
      assert.equal(res.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      assert.equal(res.headers['set-cookie'], undefined);
      assert.ok(res.rawPayload.equals(captureAsset(file)!.body));
    }
    assert.equal(calls.length, 0);
  });

  it("serves the face guide's files gzip-compressed when the browser takes gzip, each encoding with its ETag", async () => {
    for (const [file, type] of [
      ['human.esm.js', 'text/javascript; charset=utf-8'],
      ['blazeface.bin', 'application/octet-stream'],
      ['tfjs-backend-wasm-simd.wasm', 'application/wasm'],
    ]) {
      const gz = await get(`/verify/assets/${file}`, { 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(gz.statusCode, 200, file);
      assert.equal(gz.headers['content-type'], type);
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.equal(gz.headers.vary, 'Accept-Encoding');
      assert.equal(gz.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
      assert.ok(gunzipSync(gz.rawPayload).equals(captureAsset(file)!.body), file);
      const plain = await get(`/verify/assets/${file}`);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.notEqual(plain.headers.etag, gz.headers.etag);
      const again = await get(`/verify/assets/${file}`, { 'accept-encoding': 'gzip', 'if-none-match': String(gz.headers.etag) });
      assert.equal(again.statusCode, 304);
    }
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await get('/verify/assets/page.css');
    const res = await get('/verify/assets/page.css', { 'if-none-match': String(first.headers.etag) });
    assert.equal(res.statusCode, 304);
    assert.equal(res.body, '');
  });

  it('anything else is a plain 404', async () => {
    for (const file of ['nope.js', 'capture.d.ts', '..%2Fpackage.json', 'tsconfig.tsbuildinfo', '__proto__']) {
      const res = await get(`/verify/assets/${file}`);
      assert.equal(res.statusCode, 404, file);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(res.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
      assert.equal(res.body, 'Not found.\n');
    }
  });
});

describe('the device cookie', () => {
  it('reads a well-formed id among other cookies and ignores a malformed one', () => {
    const id = newDeviceId();
    assert.match(id, /^[A-Za-z0-9]{24}$/);
    assert.notEqual(newDeviceId(), id);
    assert.equal(readDeviceId(`a=1; verity_device=${id}; b=2`), id);
    assert.equal(readDeviceId(`verity_device=${id}`), id);
    assert.equal(readDeviceId('verity_device=abc'), null);
    assert.equal(readDeviceId(`xverity_device=${id}`), null);
    assert.equal(readDeviceId(undefined), null);
    assert.equal(deviceCookie(id, false), `verity_device=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=63072000`);
  });
});
