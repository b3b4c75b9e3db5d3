/**
 * The HTTP side of an attempt against real HTTPS servers on loopback (the test certificate, trusted through
 * NODE_EXTRA_CA_CERTS): the status decides, redirects are not followed, and the whole attempt, connecting
 * included, ends at its timeout (shortened here from the 10 s of production).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startWebhookReceiver, testTls, type WebhookReceiver } from '@verity/testing';
import { DestinationGuard } from '../src/guard.js';
import { ReceiverClient } from '../src/receiver-client.js';

const TIMEOUT_MS = 400;
const USER_AGENT = 'Verity-Test/1.0';
const signing = { 'webhook-id': 'evt_receiverclienttest000000', 'webhook-timestamp': '1763900000', 'webhook-signature': 'v1,c2lnbmF0dXJl' };
const body = JSON.stringify({ type: 'kyc.session.completed', data: { sessionId: 'ses_x' } });

let client: ReceiverClient;
let rx: WebhookReceiver;
const servers: Array<{ close(): unknown }> = [];

/** An HTTPS server with the test certificate whose handler the test writes. */
async function httpsServer(handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void): Promise<string> {
  const server = https.createServer(testTls(), handler);
  servers.push({ close: () => (server.closeAllConnections(), server.close()) });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

before(async () => {
  client = new ReceiverClient(new DestinationGuard(true), TIMEOUT_MS, USER_AGENT);
  rx = await startWebhookReceiver({ tls: testTls() });
});

after(async () => {
  await client.close();
  await rx.close();
  for (const s of servers) s.close();
});

describe('ReceiverClient (SSRF-guarded POSTs)', () => {
  it('sends the body with the signing, content type and user agent headers; a 2xx succeeds with its status and latency', async () => {
    rx.respond = () => 204;
    const r = await client.post(`${rx.url}/ok?x=1`, signing, body);
    assert.equal(r.ok, true);
    assert.equal(r.httpStatus, 204);
    assert.equal(r.errorCode, null);
    assert.ok(Number.isInteger(r.latencyMs) && r.latencyMs >= 0 && r.latencyMs < TIMEOUT_MS);
    const got = rx.received.at(-1)!;
    assert.equal(got.path, '/ok?x=1');
    assert.equal(got.body, body);
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], USER_AGENT);
    for (const [k, v] of Object.entries(signing)) assert.equal(got.headers[k], v);
  });

  it('a status outside 2xx fails with http_status, and a redirect is not followed', async () => {
    rx.respond = (req) => (req.path === '/moved' ? { status: 301, headers: { location: `${rx.url}/followed` } } : 503);
    assert.deepEqual(pick(await client.post(`${rx.url}/down`, signing, body)), { ok: false, httpStatus: 503, errorCode: 'http_status' });
    assert.deepEqual(pick(await client.post(`${rx.url}/moved`, signing, body)), { ok: false, httpStatus: 301, errorCode: 'http_status' });
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(!rx.received.some((g) => g.path === '/followed'), 'the Location was never requested');
  });

  it('a receiver that never answers times out at the bound, without a status', async () => {
    const url = await httpsServer(() => undefined);
    const t0 = performance.now();
    const r = await client.post(`${url}/hang`, signing, body);
    const took = performance.now() - t0;
    assert.deepEqual(pick(r), { ok: false, httpStatus: null, errorCode: 'timeout' });
    assert.ok(took >= TIMEOUT_MS - 5 && took < TIMEOUT_MS + 1000, `ended after ${took.toFixed(0)} ms`);
    assert.ok(r.latencyMs >= TIMEOUT_MS - 5);
  });

  it('a connection that never completes its TLS handshake times out at the bound too', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((s) => sockets.push(s)); // accepts, never speaks
    servers.push({ close: () => (sockets.forEach((s) => s.destroy()), server.close()) });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const t0 = performance.now();
    const r = await client.post(`https://127.0.0.1:${(server.address() as AddressInfo).port}/silent`, signing, body);
    const took = performance.now() - t0;
    assert.deepEqual(pick(r), { ok: false, httpStatus: null, errorCode: 'timeout' });
    assert.ok(took < TIMEOUT_MS + 1000, `ended after ${took.toFixed(0)} ms`);
  });

  it('once the status is in, it decides: a stalled body ends at the bound and an oversized one is dropped', async () => {
    const stalled = await httpsServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial'); // and never ends
    });
    const t0 = performance.now();
    const a = await client.post(`${stalled}/stall`, signing, body);
    assert.deepEqual(pick(a), { ok: true, httpStatus: 200, errorCode: null });
    assert.ok(performance.now() - t0 >= TIMEOUT_MS - 5, 'waited for the body until the bound');
    assert.ok(a.latencyMs < TIMEOUT_MS, 'latency is measured to the response headers');

    const big = await httpsServer((req, res) => {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.alloc(4 * 1024 * 1024, 1));
    });
    const b = await client.post(`${big}/big`, signing, body);
    assert.deepEqual(pick(b), { ok: false, httpStatus: 500, errorCode: 'http_status' });
  });

  it('every connection goes through the guard it was given: a loopback receiver is refused and reached by nothing', async () => {
    const strict = new ReceiverClient(new DestinationGuard(false), TIMEOUT_MS, USER_AGENT);
    try {
      const before = rx.received.length;
      assert.deepEqual(pick(await strict.post(`${rx.url}/private`, signing, body)), { ok: false, httpStatus: null, errorCode: 'blocked_destination' });
      assert.equal(rx.received.length, before, 'nothing reached the receiver');
    } finally {
      await strict.close();
    }
  });

  it('a refused connection is a connection_error', async () => {
    const closed = await startWebhookReceiver({ tls: testTls() });
    await closed.close();
    assert.deepEqual(pick(await client.post(`${closed.url}/gone`, signing, body)), { ok: false, httpStatus: null, errorCode: 'connection_error' });
  });
});

function pick(r: { ok: boolean; httpStatus: number | null; errorCode: string | null }) {
  return { ok: r.ok, httpStatus: r.httpStatus, errorCode: r.errorCode };
}
