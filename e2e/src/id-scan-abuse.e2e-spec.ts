/**
 * Hostile uploads to POST /v1/id-verification, against a us stack of this file's own (accounts, id-scan and the
 * gateway, on a database cloned for it), so that the id-scan process can be watched: its peak resident memory
 * (VmHWM) and everything it logs. Each hostile upload must be refused with the right code, while memory stays
 * bounded and nothing of it is stored or logged.
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { subjectRoot, SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { freePort, Stack } from '@verity/stack';
import { cloneTestDatabase, GIF_SCRIPT_POLYGLOT, isolationPrefix, JPEG_HTML_POLYGLOT, noisyJpeg, padJpeg, pixelFloodPng, query, truncate, waitFor } from '@verity/testing';
import { multipart, post, type Part, type Sent } from './id-scan-support.js';

const MiB = 1024 * 1024;
/** Written into every hostile upload (file names, comments, payloads): it must appear in no log line and no table. */
const MARKER = `VRTYMARK${randomBytes(6).toString('hex')}`;

let db: Awaited<ReturnType<typeof cloneTestDatabase>>;
let stack: Stack;
let rpc: RpcClient;
let closeNats: () => Promise<void>;
let base: string;
let key: string;
let orgId: string;
const logs: string[] = [];

before(async () => {
  db = await cloneTestDatabase('idscan_abuse');
  const prefix = isolationPrefix('abuse');
  const gatewayPort = await freePort();
  const internalPort = await freePort();
  stack = new Stack({
    // its database is a clone of the migrated template
    migrate: false,
    regions: ['us'],
    ports: { us: gatewayPort, eu: 0 },
    databaseUrl: () => db.url,
    isolationPrefix: prefix,
    // test-mode scans are never read: the reader loads its engines only if a read comes (READING_WARM)
    env: { LOG_LEVEL: 'info', TRUSTED_PROXIES: '127.0.0.1', RPC_TIMEOUT_MS: '5000', RATE_LIMIT_IP_PER_MINUTE: '100000', READING_WARM: 'false' },
    serviceEnv: { 'id-scan': { INTERNAL_PORT: String(internalPort) }, gateway: { ID_SCAN_URL: `http://127.0.0.1:${internalPort}` } },
    output: (_r, s, line) => logs.push(`${s} ${line}`),
  });
  // the database is a clone of the migrated template: only the services this test needs are started
  await stack.startNats();
  for (const s of ['accounts', 'id-scan', 'gateway'] as const) stack.startService('us', s);
  base = stack.baseUrl('us');
  const nc = await stack.connectNats('us', 'operator', 'e2e-abuse');
  closeNats = () => nc.close();
  rpc = new RpcClient(nc, subjectRoot('us', prefix), 3000);
  const op = { principal: null, requestId: 'req_abuse' };
  const org = await waitFor(() => rpc.call(SUBJECTS.accountsOrgCreate, { name: 'abuse' }, op).catch(() => undefined), 60_000, 250);
  orgId = org.id;
  key = (await rpc.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes: ['idv:scan'] }, op)).key;
  await waitFor(async () => (await fetch(`${base}/health/live`).catch(() => null))?.status === 200, 60_000, 250);
  // the id-scan process listens once its internal port answers (unsigned: 401)
  await waitFor(async () => (await fetch(`http://127.0.0.1:${internalPort}/scan`, { method: 'POST' }).catch(() => null))?.status === 401, 60_000, 250);
});

after(async () => {
  await closeNats?.();
  await stack?.stop();
  await db?.drop();
});

function memory(): { hwm: number; rss: number } {
  const pid = stack.process('us', 'id-scan')!.pid!;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { hwm: kb('VmHWM'), rss: kb('VmRSS') };
}
const mb = (n: number) => `${(n / MiB).toFixed(0)} MiB`;

function send(parts: Part[], opts: { declare?: boolean; chunk?: number; delayMs?: number } = {}): Promise<Sent> {
  const m = multipart(parts);
  return post(`${base}/v1/id-verification`, { authorization: `Bearer ${key}`, 'content-type': m.contentType }, m.body, opts);
}

function refused(r: Sent, status: number, code: string): void {
  assert.equal(r.status, status, r.text.slice(0, 300));
  assert.equal(r.body.error?.code, code, r.text.slice(0, 300));
  assert.equal(r.body.error?.request_id, r.headers['x-request-id']);
}

const hostile = {
  pixelFlood: () => send([{ name: 'front', file: pixelFloodPng(20_000, 20_000), type: 'image/png', filename: `${MARKER}-flood.png` }]),
  truncated: async () => send([{ name: 'front', file: truncate(padJpeg(await noisyJpeg(1200, 900), 2 * MiB, MARKER), 0.7), filename: `${MARKER}-cut.jpg` }]),
  svg: () =>
    send([
      {
        name: 'front',
        file: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="90000" height="90000"><text>${MARKER}</text><script>alert(1)</script></svg>`),
        type: 'image/svg+xml',
        filename: `${MARKER}.svg`,
      },
    ]),
  gifPolyglot: () => send([{ name: 'front', file: Buffer.concat([GIF_SCRIPT_POLYGLOT, Buffer.from(`//${MARKER}`)]), type: 'image/jpeg', filename: `${MARKER}-passport.jpg` }]),
  jpegPolyglot: () => send([{ name: 'front', file: Buffer.concat([JPEG_HTML_POLYGLOT, Buffer.from(`<!--${MARKER}-->`)]), type: 'image/jpeg', filename: `${MARKER}-id.jpg` }]),
  /** 22 MiB, chunked (no length to refuse it by), 64 KiB every 10 ms: the service counts and refuses. */
  slowChunked: () => {
    const head = Buffer.from(`${MARKER} `);
    return post(`${base}/v1/id-verification`, { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=slow' }, { size: 22 * MiB, head }, { declare: false, chunk: 64 * 1024, delayMs: 10 });
  },
  /** 22 MiB with its Content-Length, 64 KiB every 10 ms: refused by the gateway from the length alone. */
  slowDeclared: () =>
    post(`${base}/v1/id-verification`, { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=slow' }, { size: 22 * MiB, head: Buffer.from(MARKER) }, { declare: true, chunk: 64 * 1024, delayMs: 10 }),
  thousandParts: () => send(Array.from({ length: 1000 }, (_, i) => ({ name: i % 2 ? 'front' : `f${i}`, file: Buffer.from(`\xff\xd8\xff${MARKER}`, 'latin1'), filename: `${MARKER}-${i}.jpg` }))),
};

describe('hostile uploads to POST /v1/id-verification (own us stack)', () => {
  let baseline: { hwm: number; rss: number };

  it('a valid scan first (warm process), carrying the marker in its comments: 200, and the marker is not kept', async (t: TestContext) => {
    const r = await send([{ name: 'front', file: padJpeg(await noisyJpeg(1200, 900), 3 * MiB, MARKER), filename: `${MARKER}-ok.jpg` }]);
    assert.equal(r.status, 200, r.text);
    baseline = memory();
    t.diagnostic(`id-scan after one valid scan: VmRSS ${mb(baseline.rss)}, VmHWM ${mb(baseline.hwm)}`);
  });

  it('a pixel flood (a few KB declaring 400 megapixels): 422 invalid_image, without the memory to decode it', async () => {
    const before = memory().hwm;
    const r = await hostile.pixelFlood();
    refused(r, 422, 'invalid_image');
    assert.ok(memory().hwm - before < 64 * MiB, 'decoding 400 MP would take 1.2 GB');
  });

  it('a truncated JPEG: 422 invalid_image', async () => refused(await hostile.truncated(), 422, 'invalid_image'));

  it('an SVG (declaring 90000 × 90000): 415 unsupported_file_type', async () => refused(await hostile.svg(), 415, 'unsupported_file_type'));

  it('polyglots named .jpg and declared image/jpeg: a GIF/script is 415 unsupported_file_type; JPEG bytes then HTML are 422 invalid_image', async () => {
    refused(await hostile.gifPolyglot(), 415, 'unsupported_file_type');
    refused(await hostile.jpegPolyglot(), 422, 'invalid_image');
  });

  it('a 22 MiB body sent slowly: 413 request_too_large long before its end, declared or chunked', async (t: TestContext) => {
    const declared = await hostile.slowDeclared();
    refused(declared, 413, 'request_too_large');
    assert.ok(declared.sentBeforeAnswer <= 1 * MiB, `declared: ${declared.sentBeforeAnswer} bytes sent before the answer`);
    const chunked = await hostile.slowChunked();
    refused(chunked, 413, 'request_too_large');
    assert.ok(chunked.sentBeforeAnswer < 22 * MiB, `chunked: ${chunked.sentBeforeAnswer} bytes sent before the answer`);
    t.diagnostic(`declared: answered after ${declared.sentBeforeAnswer} bytes in ${declared.ms} ms; chunked: after ${chunked.sentBeforeAnswer} bytes in ${chunked.ms} ms`);
  });

  it('a thousand tiny parts: 422 validation_error', async () => refused(await hostile.thousandParts(), 422, 'validation_error'));

  it('all of them at once, with full-size valid photos alongside: each gets its code, and peak memory stays bounded', async (t: TestContext) => {
    const photo = await noisyJpeg(4000, 3000, 75); // 12 MP, a phone photo
    const valid = padJpeg(photo, 10 * MiB - 1024, MARKER);
    const runs: [string, () => Promise<Sent>, number, string | null][] = [];
    for (let i = 0; i < 4; i++) {
      runs.push(['pixel flood', hostile.pixelFlood, 422, 'invalid_image']);
      runs.push(['truncated', hostile.truncated, 422, 'invalid_image']);
      runs.push(['svg', hostile.svg, 415, 'unsupported_file_type']);
      runs.push(['thousand parts', hostile.thousandParts, 422, 'validation_error']);
      runs.push(['valid 10 MiB photo', () => send([{ name: 'front', file: valid }, { name: 'back', file: valid }]), 200, null]);
    }
    for (let i = 0; i < 3; i++) runs.push(['slow 22 MiB', hostile.slowChunked, 413, 'request_too_large']);
    const started = Date.now();
    const results = await Promise.all(runs.map(([, run]) => run()));
    results.forEach((r, i) => {
      const [label, , status, code] = runs[i]!;
      assert.equal(r.status, status, `${label}: ${r.text.slice(0, 200)}`);
      if (code) assert.equal(r.body.error?.code, code, label);
    });
    const after = memory();
    t.diagnostic(
      `${runs.length} uploads at once in ${Date.now() - started} ms; id-scan VmHWM ${mb(baseline.hwm)} before, ${mb(after.hwm)} after (VmRSS now ${mb(after.rss)})`,
    );
    // 8 uploads are read at a time (≤ 21 MiB each) and images decode within the pixel cap; without the bounds the
    // floods alone would ask for 4 × 1.2 GB. What the uploads add is measured over the warmed reader (its threads'
    // engines: OCR models and OpenCV, about 500 MiB with two threads), and the peak stays within two thirds of the
    // pod's memory limit (deploy/base/id-scan.yaml, 1536 MiB)
    assert.ok(after.hwm - baseline.hwm < 384 * MiB, `the uploads added ${mb(after.hwm - baseline.hwm)} (peak ${mb(after.hwm)})`);
    assert.ok(after.hwm < 1024 * MiB, `peak RSS ${mb(after.hwm)}`);
  });

  it('nothing of a hostile upload is stored or logged: no table and no log line holds the marker', async () => {
    const tables = await query<{ schema: string; name: string }>(
      db.url,
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    const hex = Buffer.from(MARKER).toString('hex');
    for (const t of tables) {
      const [hit] = await query<{ n: number }>(
        db.url,
        `SELECT count(*)::int AS n FROM "${t.schema}"."${t.name}" x WHERE x::text LIKE $1 OR x::text LIKE $2`,
        [`%${MARKER}%`, `%${hex}%`],
      );
      assert.equal(hit!.n, 0, `${t.schema}.${t.name} holds upload bytes`);
    }
    const [audit] = await query<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM id_scan.audit WHERE org_id = $1 AND outcome = 'pass'`, [orgId]);
    const [all] = await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM id_scan.audit WHERE org_id = $1', [orgId]);
    assert.equal(all!.n, audit!.n, 'refusals write no audit entry');
    assert.equal(audit!.n, 5, 'one entry per scan that reached a result (the five valid ones)');
    assert.ok(logs.length > 0, 'the processes logged');
    assert.deepEqual(logs.filter((l) => l.includes(MARKER)), []);
  });
});
