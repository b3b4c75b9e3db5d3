import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import sharp from 'sharp';
import { SUBJECTS, type Principal } from '@verity/contracts';
import { newId } from '@verity/keys';
import { RpcClient } from '@verity/platform';
import { query, refusal, type ServiceApp, type ServiceUnderTest, startServiceUnderTest, testPrincipal } from '@verity/testing';
import { ARTIFACT_STORE, type ArtifactStore } from '../src/artifacts/artifact-store.js';
import { EvidenceModule } from '../src/app.module.js';
import { EVIDENCE_SERVICE, evidenceEnv } from '../src/config.js';
import { EvidenceHttp } from '../src/evidence.http.js';
import { internalClient, type Got, type Signer } from './internal-http.js';

const SECRET = randomBytes(32).toString('base64url');
const CHUNK = 64 * 1024;
let port: number;

let db: ServiceUnderTest<unknown>['db'];
let app: ServiceApp;
let rpc: RpcClient;
let svc: ServiceUnderTest<unknown> | undefined;

before(async () => {
  svc = await startServiceUnderTest({
    def: EVIDENCE_SERVICE,
    module: EvidenceModule,
    env: evidenceEnv,
    // one upload read at a time and none waiting: the admission test fills it with one slow upload
    vars: { INTERNAL_PORT: '0', INTERNAL_AUTH_SECRET: SECRET, EVIDENCE_READ_CHUNK_BYTES: String(CHUNK), READING_THREADS: '1', EVIDENCE_MAX_CONCURRENT_UPLOADS: '1', EVIDENCE_UPLOADS_WAITING: '0' },
  });
  ({ db, app, rpc } = svc);
  port = app.get(EvidenceHttp).port;
});

after(() => svc?.close());

function principal(mode: 'test' | 'live' = 'test', org = newId('org'), region: 'us' | 'eu' = 'us'): Principal {
  return testPrincipal({ org_id: org, mode, region, scopes: ['sessions:read', 'sessions:read_report'] });
}

const store = (p: Principal, session_id: string, artifacts: ('portrait' | 'front' | 'selfie')[]) =>
  rpc.call(SUBJECTS.evidenceStoreSynthetic, { session_id, capture_acquisition: 'camera', artifacts }, { principal: p, requestId: 'req_int_evidence' });

const client = internalClient(() => port, SECRET);
const { get, put } = client;
const signedWith = (secret: string, p: Principal, requestId?: string, deadline?: number) => internalClient(() => port, secret).signed(p, requestId, deadline);
const signed = (p: Principal, requestId?: string, deadline?: number) => client.signed(p, requestId, deadline);
const image = (p: Principal, session: string, artifact: string, requestId?: string) => get(`/sessions/${session}/images/${artifact}`, signed(p, requestId));
const json = (g: Got) => JSON.parse(g.body.toString()) as { ok: boolean; data?: unknown; error?: { code: string; message: string } };

async function activityRows(orgId: string) {
  return query<{ action: string; artifact: string; outcome: string; session_id: string; request_id: string }>(
    db.url,
    'SELECT action, artifact, outcome, session_id, request_id FROM evidence.activity WHERE org_id = $1 ORDER BY seq',
    [orgId],
  );
}

describe('evidence.synthetic.store.v1 and evidence.available.v1', () => {
  it('stores the listed artifacts once, as JPEG with their sha256; a repeat changes nothing', async () => {
    const p = principal();
    const ses = newId('session');
    const first = await store(p, ses, ['selfie', 'front', 'portrait']);
    assert.deepEqual(first, { available_images: ['portrait', 'front', 'selfie'], capture_acquisition: 'camera' });
    const rows = await query<{ artifact: string; storage_key: string; byte_size: number; sha256: string; bytes: Buffer; content_type: string }>(
      db.url,
      `SELECT a.artifact, a.storage_key, a.byte_size, a.sha256, a.content_type, b.bytes
         FROM evidence.artifacts a JOIN evidence.blobs b ON b.id = a.storage_key WHERE a.session_id = $1 ORDER BY a.artifact`,
      [ses],
    );
    assert.deepEqual(rows.map((r) => r.artifact), ['front', 'portrait', 'selfie']);
    for (const r of rows) {
      assert.equal(r.content_type, 'image/jpeg');
      assert.equal(r.bytes.length, r.byte_size);
      assert.deepEqual([...r.bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
      assert.equal(createHash('sha256').update(r.bytes).digest('hex'), r.sha256);
    }
    const blobsBefore = (await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM evidence.blobs'))[0]!.n;
    assert.deepEqual(await store(p, ses, ['portrait', 'front', 'selfie']), first);
    const again = await query<{ storage_key: string }>(db.url, 'SELECT storage_key FROM evidence.artifacts WHERE session_id = $1 ORDER BY artifact', [ses]);
    assert.deepEqual(again.map((r) => r.storage_key), rows.map((r) => r.storage_key));
    assert.equal((await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM evidence.blobs'))[0]!.n, blobsBefore, 'no orphan copies');
  });

  it('available: served artifacts in the order portrait, front, selfie, never back (only whether one is stored); nothing for another owner', async () => {
    const p = principal();
    const ses = newId('session');
    await store(p, ses, ['selfie', 'front']);
    await query(db.url, `INSERT INTO evidence.blobs (id, byte_size, bytes) VALUES ('back-blob-${ses}', 3, '\\xffd8ff')`);
    await query(db.url, `INSERT INTO evidence.artifacts (session_id, artifact, content_type, storage_key, byte_size, sha256) VALUES ($1, 'back', 'image/jpeg', $2, 3, 'x')`, [
      ses,
      `back-blob-${ses}`,
    ]);
    const opts = { principal: p, requestId: 'req_int' };
    assert.deepEqual(await rpc.call(SUBJECTS.evidenceAvailable, { session_id: ses }, opts), { available_images: ['front', 'selfie'], capture_acquisition: 'camera', back_stored: true });
    for (const other of [principal('test'), { ...p, mode: 'live' as const }]) {
      assert.deepEqual(await rpc.call(SUBJECTS.evidenceAvailable, { session_id: ses }, { ...opts, principal: other }), { available_images: [], capture_acquisition: null, back_stored: false });
    }
  });

  it('refuses live mode, a session recorded for another owner, and malformed requests; nothing is written', async () => {
    const p = principal();
    const ses = newId('session');
    await store(p, ses, ['front']);
    const blobs = async () => (await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM evidence.blobs'))[0]!.n;
    const blobsBefore = await blobs();
    const refused = async (pending: Promise<unknown>, code: string) => assert.equal((await refusal(pending)).code, code);
    const other = principal();
    await refused(store(other, ses, ['portrait', 'selfie']), 'resource_not_found');
    await refused(store({ ...p, mode: 'live' }, newId('session'), ['front']), 'validation_error');
    await refused(store(p, 'ses_short', ['front']), 'validation_error');
    await refused(store(p, newId('session'), ['back' as 'front']), 'validation_error');
    await refused(rpc.call(SUBJECTS.evidenceStoreSynthetic, { session_id: newId('session'), capture_acquisition: 'drone' as 'camera', artifacts: [] }, { principal: p, requestId: 'r' }), 'validation_error');
    assert.equal(await blobs(), blobsBefore, 'no image bytes written for a refused request');
    const rows = await query<{ artifact: string }>(db.url, 'SELECT artifact FROM evidence.artifacts WHERE session_id = $1', [ses]);
    assert.deepEqual(rows, [{ artifact: 'front' }]);
    const owners = await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM evidence.captures WHERE org_id = $1', [other.org_id]);
    assert.equal(owners[0]!.n, 0);
  });
});

describe('internal HTTP: GET /sessions/{id}/images/{artifact}', () => {
  it('refuses requests the gateway did not sign, of another region, or past their deadline, before any lookup', async () => {
    const p = principal();
    const ses = newId('session');
    await store(p, ses, ['front']);
    const path = `/sessions/${ses}/images/front`;
    const forged = signedWith('another-secret-of-at-least-32-chars!', p, 'req_1');
    const cases: [Signer | Record<string, string>, number, string][] = [
      [{}, 401, 'authentication_required'],
      [forged, 401, 'authentication_required'],
      [signed(principal('test', p.org_id, 'eu')), 401, 'authentication_required'],
      [signed(p, 'req_late', Date.now() - 1), 503, 'service_unavailable'],
    ];
    for (const [headers, status, code] of cases) {
      const g = await get(path, headers);
      assert.equal(g.status, status);
      assert.equal(json(g).error!.code, code);
    }
    assert.deepEqual(await activityRows(p.org_id), []);
  });

  it('streams the stored bytes with the image headers and records one entry per request', async () => {
    const p = principal();
    const ses = newId('session');
    await store(p, ses, ['portrait', 'front']);
    const g = await image(p, ses, 'front', 'req_front_1');
    assert.equal(g.status, 200);
    assert.equal(g.headers['content-type'], 'image/jpeg');
    assert.equal(g.headers['cache-control'], 'no-store, private');
    const [stored] = await query<{ bytes: Buffer }>(db.url, `SELECT b.bytes FROM evidence.artifacts a JOIN evidence.blobs b ON b.id = a.storage_key WHERE a.session_id = $1 AND a.artifact = 'front'`, [ses]);
    assert.deepEqual(g.body, stored!.bytes);
    assert.equal(Number(g.headers['content-length']), stored!.bytes.length);

    const missing = await image(p, ses, 'selfie', 'req_selfie_1');
    assert.equal(missing.status, 404);
    assert.equal(json(missing).error!.code, 'artifact_not_available');
    for (const bad of ['back', 'unknown', 'FRONT']) assert.equal(json(await image(p, ses, bad)).error!.code, 'resource_not_found');
    assert.equal(json(await image(p, 'ses_malformed', 'front')).error!.code, 'resource_not_found');
    assert.equal(json(await image(principal('test'), ses, 'front')).error!.code, 'service_unavailable', 'unrecorded for this owner: the sessions service is asked, and is not running here');
    assert.deepEqual(await activityRows(p.org_id), [
      { action: 'kyc.idv.evidence_exported', artifact: 'front', outcome: 'served', session_id: ses, request_id: 'req_front_1' },
      { action: 'kyc.idv.evidence_export_failed', artifact: 'selfie', outcome: 'artifact_not_available', session_id: ses, request_id: 'req_selfie_1' },
    ]);
  });

  it('the back of a document: to a person signed in to the console, logged as any image; never to an API key', async () => {
    const p = principal();
    const ses = newId('session');
    await store(p, ses, ['front']);
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);
    const key = (await app.get<ArtifactStore>(ARTIFACT_STORE).put(bytes)).storage_key;
    await query(db.url, `INSERT INTO evidence.artifacts (session_id, artifact, content_type, storage_key, byte_size, sha256) VALUES ($1, 'back', 'image/jpeg', $2, $3, 'x')`, [ses, key, bytes.length]);
    // an API key: the same 404 as any value the API does not serve, and nothing logged
    assert.equal(json(await image(p, ses, 'back', 'req_back_key')).error!.code, 'resource_not_found');
    // a reviewer in the console (key_id is the person's user id)
    const reviewer = { ...p, key_id: newId('consoleUser') };
    const got = await image(reviewer, ses, 'back', 'req_back_console');
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, bytes);
    // a malformed user id is no console person
    assert.equal(json(await image({ ...p, key_id: 'usr_short' }, ses, 'back')).error!.code, 'resource_not_found');
    const rows = await activityRows(p.org_id);
    assert.deepEqual(rows.filter((r) => r.session_id === ses), [{ action: 'kyc.idv.evidence_exported', artifact: 'back', outcome: 'served', session_id: ses, request_id: 'req_back_console' }]);
  });

  it('an image larger than one read chunk arrives whole and byte-exact', async () => {
    const p = principal();
    const ses = newId('session');
    await store(p, ses, ['front']);
    const big = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(5 * CHUNK + 123), Buffer.from([0xff, 0xd9])]);
    const key = (await app.get<ArtifactStore>(ARTIFACT_STORE).put(big)).storage_key;
    await query(db.url, `UPDATE evidence.artifacts SET storage_key = $2, byte_size = $3 WHERE session_id = $1 AND artifact = 'front'`, [ses, key, big.length]);
    const g = await image(p, ses, 'front');
    assert.equal(g.status, 200);
    assert.equal(Number(g.headers['content-length']), big.length);
    assert.ok(g.body.equals(big));
  });
});

describe('the Postgres artifact store', () => {
  it('reads in chunks, and cuts the stream when the bytes vanish mid-read (erasure) rather than end it short', async () => {
    const s = app.get<ArtifactStore>(ARTIFACT_STORE);
    const bytes = randomBytes(4 * CHUNK);
    const key = (await s.put(bytes)).storage_key;
    const whole: Buffer[] = [];
    for await (const c of (await s.open(key))!.stream) whole.push(c as Buffer);
    assert.ok(Buffer.concat(whole).equals(bytes));
    assert.equal(whole.length, 4);

    const opened = (await s.open(key))!;
    assert.equal(opened.size, bytes.length);
    await s.delete([key]);
    const got: Buffer[] = [];
    await assert.rejects(async () => {
      for await (const c of opened.stream) got.push(c as Buffer);
    }, /vanished/);
    assert.equal(Buffer.concat(got).length, CHUNK, 'only the chunk read before the deletion');
    assert.equal(await s.open(key), null);
  });
});

describe('evidence.admin.activity.list.v1', () => {
  it('lists an organization’s entries newest first, filtered by session, and validates its input', async () => {
    const p = principal();
    const [a, b] = [newId('session'), newId('session')];
    await store(p, a, ['front']);
    await store(p, b, ['front']);
    await image(p, a, 'front', 'req_a');
    await image(p, b, 'front', 'req_b');
    await image(p, a, 'portrait', 'req_a2');
    const op = { principal: null, requestId: 'req_op' };
    const all = await rpc.call(SUBJECTS.evidenceActivityList, { org_id: p.org_id }, op);
    assert.deepEqual(all.data.map((e) => e.request_id), ['req_a2', 'req_b', 'req_a']);
    assert.deepEqual(Object.keys(all.data[0]!).sort(), ['action', 'artifact', 'created_at', 'id', 'key_id', 'mode', 'object', 'org_id', 'outcome', 'request_id', 'session_id']);
    assert.match(all.data[0]!.id, /^act_[A-Za-z0-9]{24}$/);
    assert.equal(all.data[0]!.key_id, p.key_id);
    const onlyA = await rpc.call(SUBJECTS.evidenceActivityList, { org_id: p.org_id, session_id: a, limit: 1 }, op);
    assert.deepEqual(onlyA.data.map((e) => e.request_id), ['req_a2']);
    for (const bad of [{ org_id: 'nope' }, { org_id: p.org_id, limit: 0 }, { org_id: p.org_id, limit: 101 }]) {
      assert.equal((await refusal(rpc.call(SUBJECTS.evidenceActivityList, bad, op))).code, 'validation_error');
    }
  });
});

describe('the activity log', () => {
  it('writes no applicant or image data: the columns are the entry’s fields only', async () => {
    const cols = await query<{ column_name: string }>(db.url, `SELECT column_name FROM information_schema.columns WHERE table_schema = 'evidence' AND table_name = 'activity' ORDER BY column_name`);
    assert.deepEqual(cols.map((c) => c.column_name), ['action', 'artifact', 'created_at', 'id', 'key_id', 'mode', 'org_id', 'outcome', 'request_id', 'seq', 'session_id']);
  });
});

describe('live captures: uploads and the run that reads them', () => {
  it('an upload is validated, normalized and stored once per kind (a new one replaces the old); another owner cannot add to it', async () => {
    const { photographDocument } = await import('@verity/testing');
    const { catalogueSpecimen } = await import('@verity/specimens');
    const p = principal('live');
    const ses = newId('session');
    const photos = await photographDocument({ ...catalogueSpecimen('td3', 1), document: { ...catalogueSpecimen('td3', 1).document, issuer: 'NLD' } }, { width: 2400, height: 1800 });
    const first = await put(`/captures/${ses}/images/front`, signed(p), photos.front);
    assert.deepEqual(json(first), { ok: true, data: { object: 'capture_image', artifact: 'front', width: 2048, height: 1536 } });
    const again = await put(`/captures/${ses}/images/front`, signed(p), photos.front);
    assert.equal(again.status, 200);
    const uploads = await query<{ n: number; blobs: number }>(db.url, `SELECT (SELECT count(*)::int FROM evidence.uploads WHERE session_id = $1) AS n, (SELECT count(*)::int FROM evidence.blobs b JOIN evidence.uploads u ON u.storage_key = b.id WHERE u.session_id = $1) AS blobs`, [ses]);
    assert.deepEqual(uploads[0], { n: 1, blobs: 1 });
    const stranger = await put(`/captures/${ses}/images/back`, signed(principal('live')), photos.front);
    assert.deepEqual([stranger.status, json(stranger).error?.code], [404, 'resource_not_found']);
    const notImage = await put(`/captures/${ses}/images/selfie`, signed(p), Buffer.from('GIF89a not a photo'));
    assert.deepEqual([notImage.status, json(notImage).error?.code], [415, 'unsupported_file_type']);
    // the upload as recorded: the front only, at its normalized size
    assert.deepEqual(await query(db.url, 'SELECT artifact, width, height FROM evidence.uploads WHERE session_id = $1', [ses]), [{ artifact: 'front', width: 2048, height: 1536 }]);
  });

  it('uploads beyond EVIDENCE_MAX_CONCURRENT_UPLOADS and its waiting room are 503 at once, unread; the slot frees when the slow one ends', async () => {
    const p = principal('live');
    const ses = newId('session');
    const path = `/captures/${ses}/images/selfie`;
    const photo = await sharp({ create: { width: 1280, height: 960, channels: 3, background: { r: 120, g: 110, b: 100 } } }).jpeg().toBuffer();
    // a slow upload: its headers and the start of a JPEG of the 10 MiB it announces, then nothing more for now
    const announced = Buffer.concat([photo, Buffer.alloc(10 * 1024 * 1024 - photo.length)]);
    const headers = { ...signed(p, undefined, Date.now() + 30_000)('PUT', path, announced), 'content-type': 'image/jpeg', 'content-length': String(announced.length) };
    const slow = http.request({ host: '127.0.0.1', port, path, method: 'PUT', headers });
    const slowAnswer = new Promise<number>((resolve) => {
      slow.on('response', (res) => resolve(res.statusCode!));
      slow.on('error', () => resolve(0));
    });
    slow.write(photo.subarray(0, 4096));
    // the slot is taken once the service reads it; until then another upload may still get it
    let busy: Got | undefined;
    for (let i = 0; i < 50 && !busy; i++) {
      const r = await put(`/captures/${newId('session')}/images/selfie`, signed(p), photo);
      if (r.status === 503) busy = r;
      else await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(busy, 'an upload while the one slot is held is refused');
    assert.deepEqual(json(busy).error, { code: 'service_unavailable', message: 'Too many images are being uploaded right now; retry in a few seconds.' });
    assert.deepEqual(await query(db.url, 'SELECT 1 FROM evidence.uploads WHERE session_id = $1', [ses]), [], 'nothing stored for the slow one yet');

    // the slow client goes away: its slot frees, and the next upload is read and stored
    slow.destroy();
    await slowAnswer;
    let stored: Got | undefined;
    for (let i = 0; i < 50 && stored?.status !== 200; i++) {
      stored = await put(path, signed(p), photo);
      if (stored.status !== 200) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(stored?.status, 200, stored?.body.toString());
  });

  it('the run reads the capture, stores front, selfie and portrait once; a second run (after a crash) stores nothing twice and answers the same', async () => {
    const { photographDocument } = await import('@verity/testing');
    const { catalogueSpecimen, selfie } = await import('@verity/specimens');
    const p = principal('live');
    const ses = newId('session');
    const s = catalogueSpecimen('td3', 2);
    const photos = await photographDocument({ ...s, document: { ...s.document, issuer: 'NLD' } }, { width: 2400, height: 1800 });
    assert.equal((await put(`/captures/${ses}/images/front`, signed(p), photos.front)).status, 200);
    assert.equal((await put(`/captures/${ses}/images/selfie`, signed(p), await selfie(s.holder.person))).status, 200);
    const call = () => rpc.call(SUBJECTS.evidenceCaptureVerify, { session_id: ses, acquisition: 'upload' }, { principal: p, requestId: 'req_int', timeoutMs: 30_000 });
    const blobs = async () => (await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM evidence.blobs'))[0]!.n;
    const before = await blobs();
    const first = await call();
    assert.deepEqual(first.holder, photos.expected.holder);
    assert.deepEqual(first.document, photos.expected.document);
    assert.deepEqual(first.checks.document, { outcome: 'pass', reasons: [], score: null });
    assert.deepEqual([first.checks.face_match.outcome, first.checks.face_match.reasons], ['pass', []]);
    const similarity = first.checks.face_match.score;
    assert.ok(first.checks.face_match.score! >= 0.6, String(first.checks.face_match.score));
    // no frames of a challenge: a still image is no evidence of a live person
    assert.deepEqual([first.checks.liveness.outcome, first.checks.liveness.reasons], ['review', ['still_image']]);
    assert.match(first.selfie_fingerprint!, /^[0-9a-f]{16}$/);
    assert.deepEqual(first.available_images, ['portrait', 'front', 'selfie']);
    const second = await call();
    assert.deepEqual(second, first);
    // a workflow template's thresholds replace the configuration for this run: the same faces no longer pass
    const strict = await rpc.call(
      SUBJECTS.evidenceCaptureVerify,
      { session_id: ses, acquisition: 'upload', thresholds: { faceMatchPass: 1, faceMatchReview: 1, unknownThreshold: 0 } },
      { principal: p, requestId: 'req_int', timeoutMs: 30_000 },
    );
    assert.deepEqual([strict.checks.face_match.outcome, strict.checks.face_match.score], similarity! < 1 ? ['fail', similarity] : ['pass', similarity]);
    assert.deepEqual(strict.checks.document, first.checks.document);
    const stored = await query<{ artifact: string }>(db.url, 'SELECT artifact FROM evidence.artifacts WHERE session_id = $1 ORDER BY artifact', [ses]);
    assert.deepEqual(stored.map((r) => r.artifact), ['front', 'portrait', 'selfie']);
    // three artifacts' bytes, written by the first run only
    assert.equal(await blobs(), before + 3);
    assert.deepEqual(await rpc.call(SUBJECTS.evidenceAvailable, { session_id: ses }, { principal: p, requestId: 'req_int' }), { available_images: ['portrait', 'front', 'selfie'], capture_acquisition: 'upload', back_stored: false });
    // another owner gets nothing of it
    const other = await rpc.call(SUBJECTS.evidenceCaptureVerify, { session_id: ses, acquisition: 'camera' }, { principal: principal('live'), requestId: 'req_int', timeoutMs: 30_000 }).catch((e: { code?: string }) => e.code);
    assert.equal(other, 'validation_error');
  });
});
