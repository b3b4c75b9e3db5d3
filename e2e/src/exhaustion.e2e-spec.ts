/**
 * Resource exhaustion at the gateway's edge, against a us stack of this file's own with short HTTP timeouts and
 * a small connection bound, so that its processes' memory can be watched: slow headers and slow bodies, a flood
 * of idle connections and connections past the bound, decompression bombs just under the pixel cap, lists of the
 * heaviest items the caps allow, and a flood of readiness probes. Each must be answered with a documented code
 * in the envelope or cut off as promised, while an ordinary client goes on being served and memory stays bounded.
 * (That a readiness flood causes one fan-out is proven in apps/gateway/test/edge.int-spec.ts.)
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { subjectRoot, SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { freePort, Stack, type ServiceName } from '@verity/stack';
import { api, cloneTestDatabase, isolationPrefix, multipart, pixelFloodPng, solidJpeg, solidPng } from '@verity/testing';
import type { NatsConnection } from '@nats-io/transport-node';
import { post, type Sent } from './id-scan-support.js';

const MiB = 1024 * 1024;
/** This stack's edge (docs/configuration.md): short timeouts, and a connection bound a flood can reach. */
const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
const KEEP_ALIVE_TIMEOUT_MS = 1000;
const IDLE_TIMEOUT_MS = 8000;
/** The gateway's waits on id-scan and evidence: shorter than the idle timeout (the gateway refuses to start otherwise). */
const SERVICE_WAIT_MS = 6000;
const MAX_CONNECTIONS = 400;
/** Slack on every promised timeout, for a loaded two-core machine. */
const SLACK_MS = 4000;
/**
 * Peak resident memory allowed to the gateway through the floods, and to id-scan and evidence through the bombs: the
 * decoders' under their pods' limit (1536 MiB, deploy/base), with room; their readers' engines alone (OCR models,
 * OpenCV and, in evidence, the face models) take 500–750 MiB before the first upload.
 */
const GATEWAY_PEAK = 512 * MiB;
const DECODER_PEAK = 1280 * MiB;
/**
 * Decompression bombs sent at once, and how much they may raise the peak of id-scan and of evidence. libvips
 * decodes a 100-megapixel image a band at a time, far below the size of its pixels, a bounded number at a time
 * (ID_SCAN_IMAGE_CONCURRENCY, EVIDENCE_IMAGE_CONCURRENCY); the peaks measured are in docs/security.md.
 */
const SCANS = 8;
const UPLOADS = 8;
const DECODER_RISE = 512 * MiB;

let db: Awaited<ReturnType<typeof cloneTestDatabase>>;
let stack: Stack;
let nc: NatsConnection;
let base: string;
let port: number;
let testKey: string;
let liveKey: string;
const op = { principal: null, requestId: 'req_e2e_exhaustion' };

before(async () => {
  const prefix = isolationPrefix('exhaust');
  db = await cloneTestDatabase('exhaustion');
  port = await freePort();
  stack = new Stack({
    // its database is a clone of the migrated template
    migrate: false,
    regions: ['us'],
    ports: { us: port, eu: 0 },
    databaseUrl: () => db.url,
    isolationPrefix: prefix,
    env: { LOG_LEVEL: 'error', RPC_TIMEOUT_MS: '5000', RATE_LIMIT_IP_PER_MINUTE: '100000' },
    // no webhooks here: webhook-delivery is not started
    replicas: { 'webhook-delivery': 0 },
    serviceEnv: {
      gateway: {
        TRUSTED_PROXIES: '127.0.0.1',
        HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
        HTTP_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
        HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
        ID_SCAN_TIMEOUT_MS: String(SERVICE_WAIT_MS),
        CAPTURE_UPLOAD_TIMEOUT_MS: String(SERVICE_WAIT_MS),
      },
    },
    output: null,
  });
  await stack.start();
  base = stack.baseUrl('us');
  nc = await stack.connectNats('us', 'operator', 'e2e-exhaustion');
  const rpc = new RpcClient(nc, subjectRoot('us', prefix), 5000);
  const org = await rpc.call(SUBJECTS.accountsOrgCreate, { name: 'exhaustion', tier: 'enterprise' }, op);
  const scopes = ['applicants:read', 'applicants:write', 'workflows:write', 'sessions:read', 'sessions:write', 'idv:scan'];
  testKey = (await rpc.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes }, op)).key;
  liveKey = (await rpc.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'live', type: 'sk', scopes }, op)).key;
  // live creates are billed (docs/sessions.md, "Billing") and a new wallet holds 0
  await rpc.call(SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: 1_000_000 }, op);
});

after(async () => {
  await nc?.close();
  await stack?.stop();
  await db?.drop();
});

/** Resident memory of one of the stack's processes, now and at its peak, from /proc/<pid>/status. */
function memory(service: ServiceName): { rss: number; hwm: number } {
  const pid = stack.process('us', service)!.pid!;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}
const mb = (n: number) => `${(n / MiB).toFixed(0)} MiB`;

/** An open socket to the gateway, and when it closes: everything it received, and when. */
async function connect(): Promise<{ socket: net.Socket; closed: Promise<{ text: string; at: number }> }> {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  socket.on('error', () => undefined);
  // a reset (a connection past the bound) closes the socket too: 'close' follows 'error'
  const closed = new Promise<{ text: string; at: number }>((resolve) => socket.once('close', () => resolve({ text, at: Date.now() })));
  await once(socket, 'connect');
  return { socket, closed };
}

function envelopeOf(text: string): { status: number; code: string | undefined } {
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]);
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  let code: string | undefined;
  try {
    code = (JSON.parse(body) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status, code };
}

/**
 * An ordinary client on its own kept-alive connection, opened before whatever the test does: a request every
 * 100 ms (so the keep-alive timeout never cuts it), counting the 200s until stopped.
 */
async function ordinaryClient(): Promise<{ stop: () => Promise<{ served: number; failed: string | null }> }> {
  const { socket } = await connect();
  let served = 0;
  let failed: string | null = null;
  let running = true;
  let buffer = '';
  const loop = (async () => {
    while (running && !failed) {
      buffer = '';
      const answered = new Promise<void>((resolve) => {
        const onData = (d: Buffer) => {
          buffer += d.toString('latin1');
          const head = buffer.indexOf('\r\n\r\n');
          const length = Number(/content-length: (\d+)/i.exec(buffer)?.[1] ?? NaN);
          if (head >= 0 && buffer.length >= head + 4 + length) {
            socket.off('data', onData);
            socket.off('close', onClose);
            resolve();
          }
        };
        const onClose = () => {
          failed = 'the connection closed';
          resolve();
        };
        socket.on('data', onData);
        socket.once('close', onClose);
      });
      socket.write('GET /health/live HTTP/1.1\r\nHost: gateway\r\n\r\n');
      await answered;
      if (failed) break;
      if (/^HTTP\/1\.1 200 /.test(buffer)) served++;
      else failed = buffer.split('\r\n')[0]!;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      socket.destroy();
      return { served, failed };
    },
  };
}

describe('slow requests are cut off at the configured timeouts, while others are served', () => {
  it('headers trickled a byte every 100 ms: 408 request_timeout in the envelope, then the connection closes', async () => {
    const client = await ordinaryClient();
    const { socket, closed } = await connect();
    const started = Date.now();
    socket.write('GET /v1/me HTTP/1.1\r\nHost: gateway\r\n');
    const trickle = setInterval(() => !socket.destroyed && socket.write('X'), 100);
    const { text, at } = await closed.finally(() => clearInterval(trickle));
    assert.deepEqual(envelopeOf(text), { status: 408, code: 'request_timeout' });
    assert.ok(at - started < HEADERS_TIMEOUT_MS + SLACK_MS, `closed after ${at - started} ms`);
    const { served, failed } = await client.stop();
    assert.equal(failed, null);
    assert.ok(served >= 3, `the ordinary client was served ${served} times meanwhile`);
  });

  it('a JSON body trickled a byte every 100 ms: 408 request_timeout in the envelope, nothing created', async () => {
    const client = await ordinaryClient();
    const { socket, closed } = await connect();
    const started = Date.now();
    socket.write(`POST /v1/applicants HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${testKey}\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{`);
    const trickle = setInterval(() => !socket.destroyed && socket.write(' '), 100);
    const { text, at } = await closed.finally(() => clearInterval(trickle));
    assert.deepEqual(envelopeOf(text), { status: 408, code: 'request_timeout' });
    assert.ok(at - started < REQUEST_TIMEOUT_MS + SLACK_MS, `closed after ${at - started} ms`);
    const { served, failed } = await client.stop();
    assert.equal(failed, null);
    assert.ok(served >= 3, `the ordinary client was served ${served} times meanwhile`);
    const list = await api<{ data: unknown[] }>(base, 'GET', '/v1/applicants', { key: testKey });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.data.length, 0);
  });
});

describe('an idle-connection flood is bounded and closed, while an open client is served', () => {
  it(`${MAX_CONNECTIONS + 100} idle connections: past ${MAX_CONNECTIONS} refused at once, the rest closed within the timeouts, memory bounded`, async (t: TestContext) => {
    const client = await ordinaryClient();
    const before = memory('gateway');
    const started = Date.now();
    const flood = [];
    for (let i = 0; i < MAX_CONNECTIONS + 100; i++) flood.push(await connect().catch(() => null));
    await new Promise((r) => setTimeout(r, 300));
    const open = flood.filter((c) => c && !c.socket.destroyed && c.socket.readyState === 'open').length;
    // the ordinary client holds one place
    assert.ok(open <= MAX_CONNECTIONS - 1, `${open} idle connections held open`);
    assert.ok(open >= MAX_CONNECTIONS - 20, `only ${open} idle connections held open`);
    // a new client past the bound gets no answer: the connection is closed
    const late = await connect().catch(() => null);
    if (late) {
      late.socket.write('GET /health/live HTTP/1.1\r\nHost: gateway\r\n\r\n');
      assert.equal((await late.closed).text, '', 'a connection past the bound was answered');
    }
    // every idle connection is closed by the gateway, without an answer, within its timeouts
    const closes = await Promise.all(flood.filter((c) => c !== null).map((c) => c.closed));
    const last = Math.max(...closes.map((c) => c.at)) - started;
    assert.ok(last < IDLE_TIMEOUT_MS + SLACK_MS, `the last idle connection closed after ${last} ms`);
    assert.ok(closes.every((c) => c.text === '' || envelopeOf(c.text).code === 'request_timeout'), 'an idle connection was answered something else');
    const { served, failed } = await client.stop();
    assert.equal(failed, null);
    assert.ok(served >= 3, `the ordinary client was served ${served} times during the flood`);
    // the places are free again
    const res = await fetch(`${base}/health/live`);
    assert.equal(res.status, 200);
    const after = memory('gateway');
    t.diagnostic(`${open} held, last closed after ${last} ms, ${served} served; gateway VmHWM ${mb(before.hwm)} before, ${mb(after.hwm)} after`);
    assert.ok(after.hwm < GATEWAY_PEAK, `gateway peak ${mb(after.hwm)}`);
  });
});

describe('decompression bombs just under the pixel cap', () => {
  const underCap = solidPng(9999, 10_000);
  let underCapJpeg: Buffer;
  before(async () => {
    underCapJpeg = await solidJpeg(9999, 10_000);
  });

  function scan(file: Buffer, type = 'image/png'): Promise<Sent> {
    const m = multipart([{ name: 'front', file, type, filename: 'front' }]);
    return post(`${base}/v1/id-verification`, { authorization: `Bearer ${testKey}`, 'content-type': m.contentType }, m.body);
  }

  async function liveCapture(): Promise<string> {
    const call = <T>(method: string, p: string, body?: unknown) => api<T>(base, method, p, { key: liveKey, body });
    const applicant = await call<{ data: { id: string } }>('POST', '/v1/applicants', { family_name: 'Bomb', given_names: ['Pixel'] });
    assert.equal(applicant.status, 201, applicant.text);
    const template = await call<{ data: { id: string } }>('POST', '/v1/workflow-templates', { name: 'bombs', checks: ['document'] });
    assert.equal(template.status, 201, template.text);
    const session = await call<{ data: { client_secret: string } }>('POST', '/v1/sessions', { applicant_id: applicant.body.data.id, workflow_template_id: template.body.data.id });
    assert.equal(session.status, 201, session.text);
    return session.body.data.client_secret;
  }

  function upload(secret: string, file: Buffer, type = 'image/png'): Promise<Sent> {
    const u = `${base}/v1/capture/images/front`;
    return new Promise((resolve, reject) => {
      const started = Date.now();
      fetch(u, { method: 'PUT', headers: { authorization: `Bearer ${secret}`, 'content-type': type }, body: file })
        .then(async (res) => {
          const text = await res.text();
          let body: Sent['body'] = {};
          try {
            body = JSON.parse(text) as Sent['body'];
          } catch {
            /* not JSON */
          }
          resolve({ status: res.status, headers: Object.fromEntries(res.headers), text, body, sentBeforeAnswer: file.length, ms: Date.now() - started });
        })
        .catch(reject);
    });
  }

  function documented(r: Sent, what: string): void {
    assert.ok([200, 201, 422, 429, 503].includes(r.status), `${what}: ${r.status} ${r.text.slice(0, 300)}`);
    if (r.status >= 400) assert.equal(r.body.error?.request_id, r.headers['x-request-id'], `${what}: ${r.text.slice(0, 300)}`);
  }

  it(`${SCANS} scans and ${UPLOADS} capture uploads of 9999 × 10000 images at once: documented answers, decoders' memory bounded`, async (t: TestContext) => {
    const secrets = [];
    for (let i = 0; i < UPLOADS; i++) secrets.push(await liveCapture());
    const before = { scan: memory('id-scan').hwm, evidence: memory('evidence').hwm };
    // mostly PNGs: decoding one costs more than a JPEG, which libvips shrinks while decoding
    const results = await Promise.all([
      ...Array.from({ length: SCANS }, (_, i) => (i % 4 === 3 ? scan(underCapJpeg, 'image/jpeg') : scan(underCap)).then((r) => ['id-verification', r] as const)),
      ...secrets.map((s, i) => (i % 4 === 3 ? upload(s, underCapJpeg, 'image/jpeg') : upload(s, underCap)).then((r) => ['capture', r] as const)),
    ]);
    for (const [what, r] of results) documented(r, what);
    const after = { scan: memory('id-scan').hwm, evidence: memory('evidence').hwm };
    t.diagnostic(
      `answers ${results.map(([w, r]) => `${w} ${r.status}${r.body.error ? ` ${r.body.error.code}` : ''}`).join(', ')}; ` +
        `VmHWM id-scan ${mb(before.scan)} -> ${mb(after.scan)}, evidence ${mb(before.evidence)} -> ${mb(after.evidence)}`,
    );
    assert.ok(after.scan - before.scan < DECODER_RISE, `id-scan peak rose by ${mb(after.scan - before.scan)}`);
    assert.ok(after.evidence - before.evidence < DECODER_RISE, `evidence peak rose by ${mb(after.evidence - before.evidence)}`);
    assert.ok(after.scan < DECODER_PEAK && after.evidence < DECODER_PEAK, 'a decoder process over its peak');
  });

  it('a file over the cap (20000 × 20000 declared) is refused 422 invalid_image from its header, without the memory to decode it', async () => {
    const before = memory('id-scan').hwm;
    const r = await scan(pixelFloodPng(20_000, 20_000));
    assert.equal(r.status, 422, r.text);
    assert.equal(r.body.error?.code, 'invalid_image');
    const beforeEvidence = memory('evidence').hwm;
    const c = await upload(await liveCapture(), pixelFloodPng(20_000, 20_000));
    assert.equal(c.status, 422, c.text);
    assert.equal(c.body.error?.code, 'invalid_image');
    // decoding 400 MP would take 1.2 GB
    assert.ok(memory('id-scan').hwm - before < 64 * MiB);
    assert.ok(memory('evidence').hwm - beforeEvidence < 64 * MiB);
  });
});

describe('lists of the heaviest items the caps allow', () => {
  it('sessions with 16 KiB of metadata each: 200 with a cursor, every page under 512 KiB', async () => {
    const call = <T>(method: string, p: string, body?: unknown) => api<T>(base, method, p, { key: testKey, body });
    const applicant = await call<{ data: { id: string } }>('POST', '/v1/applicants', { family_name: 'Heavy', given_names: ['List'] });
    const template = await call<{ data: { id: string } }>('POST', '/v1/workflow-templates', { name: 'heavy', checks: ['document'] });
    // {"k":"…"} at 16384 bytes exactly, the cap (docs/metadata.md)
    const metadata = { k: 'x'.repeat(16_384 - 8) };
    const n = 40;
    for (let i = 0; i < n; i++) {
      const r = await call('POST', '/v1/sessions', { applicant_id: applicant.body.data.id, workflow_template_id: template.body.data.id, metadata });
      assert.equal(r.status, 201, r.text.slice(0, 300));
    }
    let cursor: string | null = null;
    let seen = 0;
    let pages = 0;
    do {
      const r: Awaited<ReturnType<typeof call<{ data: unknown[]; next_cursor: string | null }>>> = await call('GET', `/v1/sessions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(r.status, 200, r.text.slice(0, 300));
      assert.ok(Buffer.byteLength(r.text) < 512 * 1024 + 4096, `a page of ${Buffer.byteLength(r.text)} bytes`);
      seen += r.body.data.length;
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    assert.equal(seen, n);
    assert.ok(pages >= 2, 'the sessions fit one page');
  });
});

describe('a flood of readiness probes', () => {
  it('300 at once from one address and 300 from as many addresses: 200, 503 or 429 in the envelope, gateway memory bounded', async (t: TestContext) => {
    const probe = async (ip?: string) => {
      const res = await fetch(`${base}/health/ready`, { headers: ip ? { 'x-forwarded-for': ip } : {} });
      const text = await res.text();
      if (res.status !== 200) {
        assert.ok([429, 503].includes(res.status), `${res.status} ${text.slice(0, 300)}`);
        if (res.status === 429) assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'rate_limit_exceeded');
      }
      return res.status;
    };
    const one = await Promise.all(Array.from({ length: 300 }, () => probe()));
    const many = await Promise.all(Array.from({ length: 300 }, (_, i) => probe(`198.51.100.${i % 250}`)));
    const count = (xs: number[]) => Object.entries(xs.reduce<Record<number, number>>((a, s) => ({ ...a, [s]: (a[s] ?? 0) + 1 }), {})).map(([s, k]) => `${k}×${s}`).join(' ');
    const gw = memory('gateway');
    t.diagnostic(`one address: ${count(one)}; many: ${count(many)}; gateway VmHWM ${mb(gw.hwm)}`);
    assert.ok(one.includes(200) && many.includes(200), 'readiness never answered 200');
    assert.ok(gw.hwm < GATEWAY_PEAK, `gateway peak ${mb(gw.hwm)}`);
  });
});
