import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import pg from 'pg';
import { SUBJECTS } from '@verity/contracts';
import { multipart, noisyJpeg, padJpeg } from '@verity/testing';
import { startBareServer, type BenchEnv } from './gateway-bench.js';
import { formatRow, percentile } from './load.js';

const MiB = 1024 * 1024;
/** Requests per key and window: the image class is 120 per minute on every tier, and the bench stays under it. */
const REQUESTS_PER_KEY = 100;

interface StreamResult {
  label: string;
  rps: number;
  mbps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** autocannon with a per-request hook (to spread requests over keys), reporting requests/s and MB/s. */
function run(label: string, url: string, headersFor: () => Record<string, string>, seconds: number, connections = 50): Promise<StreamResult> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections,
        duration: seconds,
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...headersFor() } }) }],
      },
      (err, r) =>
        err
          ? reject(err)
          : resolve({
              label,
              rps: r.requests.average,
              mbps: r.throughput.average / MiB,
              p50: r.latency.p50,
              p99: r.latency.p99,
              non2xx: r.non2xx,
              errors: r.errors + r.timeouts,
            }),
    );
  });
}

async function gatewayPost(env: BenchEnv, p: string, body: unknown): Promise<{ data: { id: string } }> {
  const res = await fetch(`${env.stack.baseUrl('us')}${p}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { data: { id: string } };
}

/**
 * GET /v1/sessions/{id}/idv-image/front of a 1 MB JPEG through the gateway (auth, rate limit, signed internal
 * HTTP to evidence, Postgres, streamed back), next to a bare Fastify process sending the same bytes from the same
 * table. The image class is 120 requests per minute per key on every tier and the bench does not raise it: the
 * load is spread over as many keys of the bench organization as it needs, each used for at most 100 requests, so
 * the limiter runs (and counts) on every request exactly as in production.
 */
export async function benchEvidence(env: BenchEnv, seconds = 10): Promise<void> {
  const gw = env.stack.baseUrl('us');
  const applicant = await gatewayPost(env, '/v1/applicants', { family_name: 'Lovelace', given_names: ['Ada'] });
  const template = await gatewayPost(env, '/v1/workflow-templates', { name: 'bench identity', checks: ['document', 'face_match'] });
  const session = await gatewayPost(env, '/v1/sessions', { applicant_id: applicant.data.id, workflow_template_id: template.data.id });
  const sessionId = session.data.id;

  // a 1 MB photo as the session's front, in evidence's own tables
  const photo = padJpeg(await noisyJpeg(1000, 800, 90), 1024 * 1024);
  const db = new pg.Client({ connectionString: env.dbUrl });
  await db.connect();
  const blobKey = randomUUID();
  try {
    await db.query(`INSERT INTO evidence.captures (session_id, org_id, mode, capture_acquisition) VALUES ($1, $2, 'test', 'camera') ON CONFLICT DO NOTHING`, [sessionId, env.orgId]);
    await db.query('INSERT INTO evidence.blobs (id, byte_size, bytes) VALUES ($1, $2, $3)', [blobKey, photo.length, photo]);
    await db.query(
      `INSERT INTO evidence.artifacts (session_id, artifact, content_type, storage_key, byte_size, sha256) VALUES ($1, 'front', 'image/jpeg', $2, $3, $4)
       ON CONFLICT (session_id, artifact) DO UPDATE SET storage_key = EXCLUDED.storage_key, byte_size = EXCLUDED.byte_size, sha256 = EXCLUDED.sha256`,
      [sessionId, blobKey, photo.length, createHash('sha256').update(photo).digest('hex')],
    );
  } finally {
    await db.end();
  }

  // keys: enough for ~4000 requests/s over warm-up and measurement, each under the per-key budget
  const keyCount = Math.ceil(((seconds + 2) * 4000) / REQUESTS_PER_KEY);
  const op = { principal: null, requestId: 'req_bench_keys' };
  const keys: string[] = [];
  for (let i = 0; i < keyCount; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, keyCount - i) }, () =>
        env.rpc.call(SUBJECTS.accountsKeyCreate, { org_id: env.orgId, mode: 'test', type: 'sk', scopes: ['sessions:read_report'] }, op),
      ),
    );
    keys.push(...batch.map((k) => k.key));
  }
  let used = 0;
  const nextKey = () => {
    const k = keys[Math.floor(used++ / REQUESTS_PER_KEY)];
    if (!k) throw new Error('bench ran out of keys: raise keyCount');
    return { authorization: `Bearer ${k}` };
  };

  const check = await fetch(`${gw}/v1/sessions/${sessionId}/idv-image/front`, { headers: nextKey() });
  const got = Buffer.from(await check.arrayBuffer());
  if (check.status !== 200 || !got.equals(photo)) throw new Error(`image endpoint answered ${check.status} with ${got.length} bytes`);

  const bare = await startBareServer(env.dbUrl, 'bare-image-server.js');
  try {
    await run('warm-up', `${bare.url}/images/${blobKey}`, () => ({}), 2);
    const b = await run('bare Fastify → Postgres', `${bare.url}/images/${blobKey}`, () => ({}), seconds);
    await run('warm-up', `${gw}/v1/sessions/${sessionId}/idv-image/front`, nextKey, 2);
    const g = await run('gateway → evidence → Postgres', `${gw}/v1/sessions/${sessionId}/idv-image/front`, nextKey, seconds);
    const w = [32, 9, 9, 9, 9, 8, 8];
    process.stdout.write(`\nImage endpoint: a ${(photo.length / MiB).toFixed(2)} MiB JPEG, streamed (50 connections; ${keys.length} keys of ≤ ${REQUESTS_PER_KEY} requests, limiter on)\n`);
    process.stdout.write(`${formatRow(['path', 'req/s', 'MB/s', 'p50 ms', 'p99 ms', 'ratio', 'target'], w)}\n`);
    for (const r of [b, g]) {
      const ratio = r === g ? `${((g.rps / b.rps) * 100).toFixed(0)}%` : '';
      process.stdout.write(`${formatRow([r.label, r.rps.toFixed(0), r.mbps.toFixed(0), r.p50.toFixed(1), r.p99.toFixed(1), ratio, r === g ? '≥50%' : ''], w)}\n`);
      if (r.non2xx || r.errors) process.stdout.write(`  ! ${r.label}: ${r.non2xx} non-2xx, ${r.errors} errors\n`);
    }
  } finally {
    await bare.stop();
  }
}

/**
 * POST /v1/id-verification of a 10 MiB photo (a 12-megapixel JPEG, padded to 10 MiB with comment segments) in
 * test mode, one request at a time: upload through the gateway, streamed multipart limits, signature check,
 * full decode and re-encode. Next to it, the same sharp pipeline on the same bytes inside the bench process.
 */
export async function benchIdScan(env: BenchEnv, requests = 20): Promise<void> {
  const sharp = (await import('sharp')).default;
  const photo = padJpeg(await noisyJpeg(4000, 3000, 75), 10 * MiB);
  const { body, contentType } = multipart([{ name: 'front', file: photo, filename: 'photo.jpg' }]);
  const url = `${env.stack.baseUrl('us')}/v1/id-verification`;
  const headers = { authorization: `Bearer ${env.key}`, 'content-type': contentType };

  const scanOnce = async (): Promise<number> => {
    const t = performance.now();
    const res = await fetch(url, { method: 'POST', headers, body });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`id-verification answered ${res.status}`);
    return performance.now() - t;
  };
  const decodeOnce = async (): Promise<number> => {
    const t = performance.now();
    const img = sharp(photo, { failOn: 'error', limitInputPixels: 100_000_000, sequentialRead: true });
    await img.metadata();
    await img.rotate().resize({ width: 2048, height: 2048, fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 90 }).toBuffer();
    return performance.now() - t;
  };

  const measure = async (fn: () => Promise<number>) => {
    for (let i = 0; i < 3; i++) await fn();
    const times: number[] = [];
    for (let i = 0; i < requests; i++) times.push(await fn());
    times.sort((a, b) => a - b);
    return { p50: percentile(times, 50), p90: percentile(times, 90), max: times.at(-1)!, mean: times.reduce((a, b) => a + b, 0) / times.length };
  };
  const local = await measure(decodeOnce);
  const scan = await measure(scanOnce);
  const w = [40, 9, 9, 9, 9, 8];
  process.stdout.write(`\nID-scan validation of a ${(photo.length / MiB).toFixed(1)} MiB photo (12 MP JPEG), test mode, one request at a time, ${requests} requests\n`);
  process.stdout.write(`${formatRow(['path', 'p50 ms', 'p90 ms', 'max ms', 'mean ms', 'target'], w)}\n`);
  process.stdout.write(`${formatRow(['sharp decode + re-encode, in process', local.p50.toFixed(0), local.p90.toFixed(0), local.max.toFixed(0), local.mean.toFixed(0), ''], w)}\n`);
  process.stdout.write(`${formatRow(['POST /v1/id-verification via gateway', scan.p50.toFixed(0), scan.p90.toFixed(0), scan.max.toFixed(0), scan.mean.toFixed(0), '<600'], w)}\n`);
}
