import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { SUBJECTS, type Principal, type StoredArtifact } from '@verity/contracts';
import { newId } from '@verity/keys';
import type { RpcClient } from '@verity/platform';
import { query, refusal, sampleImage, type ServiceUnderTest, startServiceUnderTest, testPrincipal } from '@verity/testing';
import { EvidenceModule } from '../src/app.module.js';
import { EVIDENCE_SERVICE, evidenceEnv } from '../src/config.js';
import { EvidenceHttp } from '../src/evidence.http.js';
import { errorCode, internalClient } from './internal-http.js';

const SECRET = randomBytes(32).toString('base64url');

let svc: ServiceUnderTest<unknown> | undefined;
let rpc: RpcClient;
let url: string;
const http = internalClient(() => svc!.app.get(EvidenceHttp).port, SECRET);
let upload: Buffer;

before(async () => {
  svc = await startServiceUnderTest({
    def: EVIDENCE_SERVICE,
    module: EvidenceModule,
    env: evidenceEnv,
    // retention far away: nothing here is old enough
    vars: { INTERNAL_PORT: '0', INTERNAL_AUTH_SECRET: SECRET, READING_THREADS: '1', EVIDENCE_RETENTION_INTERVAL_MS: '3600000' },
  });
  ({ rpc } = svc);
  url = svc.db.url;
  upload = await sampleImage('jpeg', 640, 400);
});

after(() => svc?.close());

const principal = (mode: 'test' | 'live' = 'test', org = newId('org')): Principal =>
  testPrincipal({ org_id: org, mode, region: 'us', scopes: ['sessions:read', 'sessions:read_report'] });
const opts = (p: Principal | null) => ({ principal: p, requestId: newId('request') });
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const count = async (sql: string, params: unknown[] = []) => (await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM ${sql}`, params))[0]!.n;

const storeSynthetic = (p: Principal, session_id: string, artifacts: ('portrait' | 'front' | 'selfie')[]) =>
  rpc.call(SUBJECTS.evidenceStoreSynthetic, { session_id, capture_acquisition: 'camera', artifacts }, opts(p));
const exportOf = (p: Principal, session_ids: string[]) => rpc.call(SUBJECTS.evidencePrivacyExport, { applicant_id: newId('applicant'), session_ids }, opts(p));
const erase = (p: Principal, session_ids: string[]) => rpc.call(SUBJECTS.evidencePrivacyErase, { applicant_id: newId('applicant'), session_ids }, opts(p));
const purge = (org_id: string, p: Principal | null = null) => rpc.call(SUBJECTS.evidencePurgeTestData, { org_id }, opts(p));

/** Stores a blob with JPEG-looking bytes; returns its key and bytes. */
async function blob(): Promise<{ key: string; bytes: Buffer }> {
  const bytes = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(2000), Buffer.from([0xff, 0xd9])]);
  const key = `blob-${randomBytes(8).toString('hex')}`;
  await query(url, 'INSERT INTO evidence.blobs (id, byte_size, bytes) VALUES ($1, $2, $3)', [key, bytes.length, bytes]);
  return { key, bytes };
}

/** Records what a session of `p` holds straight in the tables (any mode): a capture, artifacts, uploads, activity. */
async function seed(p: Principal, session: string, o: { artifacts?: StoredArtifact[]; uploads?: ('front' | 'back' | 'selfie')[]; activity?: number } = {}): Promise<string[]> {
  const keys: string[] = [];
  await query(url, `INSERT INTO evidence.captures (session_id, org_id, mode, capture_acquisition) VALUES ($1, $2, $3, 'camera') ON CONFLICT DO NOTHING`, [session, p.org_id, p.mode]);
  for (const a of o.artifacts ?? []) {
    const b = await blob();
    keys.push(b.key);
    await query(url, `INSERT INTO evidence.artifacts (session_id, artifact, content_type, storage_key, byte_size, sha256) VALUES ($1, $2, 'image/jpeg', $3, $4, $5)`, [
      session,
      a,
      b.key,
      b.bytes.length,
      sha(b.bytes),
    ]);
  }
  for (const a of o.uploads ?? []) {
    const b = await blob();
    keys.push(b.key);
    await query(url, `INSERT INTO evidence.uploads (session_id, artifact, org_id, mode, storage_key, width, height, byte_size, sha256) VALUES ($1, $2, $3, $4, $5, 10, 10, $6, $7)`, [
      session,
      a,
      p.org_id,
      p.mode,
      b.key,
      b.bytes.length,
      sha(b.bytes),
    ]);
  }
  for (let i = 0; i < (o.activity ?? 0); i++) {
    await query(
      url,
      `INSERT INTO evidence.activity (id, org_id, mode, session_id, action, artifact, outcome, request_id, key_id) VALUES ($1, $2, $3, $4, 'kyc.idv.evidence_exported', 'front', 'served', $5, $6)`,
      [newId('activity'), p.org_id, p.mode, session, newId('request'), p.key_id],
    );
  }
  return keys;
}

/** What the tables hold for a session: row counts, and how many of `keys` still have bytes. */
async function holdings(session: string, keys: string[] = []) {
  return {
    captures: await count('evidence.captures WHERE session_id = $1', [session]),
    artifacts: await count('evidence.artifacts WHERE session_id = $1', [session]),
    uploads: await count('evidence.uploads WHERE session_id = $1', [session]),
    activity: await count('evidence.activity WHERE session_id = $1', [session]),
    blobs: await count('evidence.blobs WHERE id = ANY($1::text[])', [keys]),
  };
}

/** The storage keys a session's rows point at. */
async function keysOf(session: string): Promise<string[]> {
  const rows = await query<{ k: string }>(
    url,
    'SELECT storage_key AS k FROM evidence.artifacts WHERE session_id = $1 UNION ALL SELECT storage_key FROM evidence.uploads WHERE session_id = $1',
    [session],
  );
  return rows.map((r) => r.k);
}

describe('evidence.privacy.export.v1 and the stored-images route', () => {
  it('lists every stored artifact (back included) and upload of the named sessions, with size and SHA-256 of the bytes; no bytes inline', async () => {
    const p = principal();
    const [ses, sibling] = [newId('session'), newId('session')];
    await storeSynthetic(p, ses, ['portrait', 'front', 'selfie']);
    await seed(p, ses, { artifacts: ['back'] });
    for (const a of ['front', 'selfie'] as const) assert.equal((await http.upload(p, ses, a, upload)).status, 200);
    assert.equal((await http.image(p, ses, 'front')).status, 200);
    assert.equal((await http.image(p, ses, 'selfie')).status, 200);
    await storeSynthetic(p, sibling, ['front']);
    await http.image(p, sibling, 'front');
    // the same ids seen by another owner, or the other mode of the same organization
    const other = principal();
    const otherMode = { ...p, mode: 'live' as const };
    await seed(otherMode, newId('session'), { artifacts: ['front'] });

    const got = await exportOf(p, [ses, ses, newId('session')]);
    assert.deepEqual(Object.keys(got).sort(), ['activity', 'evidence']);
    assert.deepEqual(
      got.evidence.map((e) => `${e.source}:${e.artifact}`),
      ['artifact:back', 'artifact:front', 'artifact:portrait', 'artifact:selfie', 'upload:front', 'upload:selfie'],
    );
    const stored = await query<{ source: string; artifact: string; bytes: Buffer; created_at: Date }>(
      url,
      `SELECT 'artifact' AS source, a.artifact, b.bytes, a.created_at FROM evidence.artifacts a JOIN evidence.blobs b ON b.id = a.storage_key WHERE a.session_id = $1
       UNION ALL SELECT 'upload', u.artifact, b.bytes, u.created_at FROM evidence.uploads u JOIN evidence.blobs b ON b.id = u.storage_key WHERE u.session_id = $1`,
      [ses],
    );
    for (const e of got.evidence) {
      const row = stored.find((s) => s.source === e.source && s.artifact === e.artifact)!;
      assert.deepEqual(Object.keys(e).sort(), ['artifact', 'byte_size', 'content_type', 'created_at', 'session_id', 'sha256', 'source']);
      assert.equal(e.session_id, ses);
      assert.equal(e.content_type, 'image/jpeg');
      assert.equal(e.byte_size, row.bytes.length);
      assert.equal(e.sha256, sha(row.bytes));
      assert.equal(e.created_at, row.created_at.toISOString());
    }
    assert.equal(got.activity.length, 2);
    assert.ok(got.activity.every((a) => a.session_id === ses && a.object === 'activity' && a.org_id === p.org_id && a.mode === 'test'));
    assert.deepEqual(got.activity.map((a) => a.artifact), ['selfie', 'front'], 'newest first');
    assert.deepEqual(Object.keys(got.activity[0]!).sort(), ['action', 'artifact', 'created_at', 'id', 'key_id', 'mode', 'object', 'org_id', 'outcome', 'request_id', 'session_id']);

    assert.deepEqual(await exportOf(other, [ses, sibling]), { evidence: [], activity: [] });
    assert.deepEqual(await exportOf(otherMode, [ses, sibling]), { evidence: [], activity: [] });
    assert.deepEqual(await exportOf(p, []), { evidence: [], activity: [] });
    assert.deepEqual((await exportOf(p, [sibling])).evidence.map((e) => e.artifact), ['front']);
  });

  it('the route streams exactly the stored bytes of any artifact or upload, back included, and writes no activity', async () => {
    const p = principal();
    const ses = newId('session');
    await storeSynthetic(p, ses, ['portrait', 'front']);
    await seed(p, ses, { artifacts: ['back'] });
    assert.equal((await http.upload(p, ses, 'back', upload)).status, 200);
    const activityBefore = await count('evidence.activity WHERE session_id = $1', [ses]);
    const { evidence } = await exportOf(p, [ses]);
    assert.equal(evidence.length, 4);
    for (const e of evidence) {
      const g = await http.stored(p, ses, e.source, e.artifact);
      assert.equal(g.status, 200, `${e.source}/${e.artifact}`);
      assert.equal(g.headers['content-type'], 'image/jpeg');
      assert.equal(g.headers['cache-control'], 'no-store, private');
      assert.equal(Number(g.headers['content-length']), e.byte_size);
      assert.equal(sha(g.body), e.sha256);
    }
    const [back] = await query<{ bytes: Buffer }>(url, `SELECT b.bytes FROM evidence.artifacts a JOIN evidence.blobs b ON b.id = a.storage_key WHERE a.session_id = $1 AND a.artifact = 'back'`, [ses]);
    assert.ok((await http.stored(p, ses, 'artifact', 'back')).body.equals(back!.bytes));
    // the public endpoint still never serves back
    assert.equal(errorCode(await http.image(p, ses, 'back')), 'resource_not_found');
    assert.equal(await count('evidence.activity WHERE session_id = $1', [ses]), activityBefore, 'neither the route nor the refused back wrote an entry');
  });

  it('refuses: another owner, the other mode, unknown or malformed ids, unknown source or artifact (resource_not_found); nothing stored (artifact_not_available); unsigned (401)', async () => {
    const p = principal();
    const ses = newId('session');
    await storeSynthetic(p, ses, ['front']);
    const uploadsOnly = newId('session');
    assert.equal((await http.upload(p, uploadsOnly, 'front', upload)).status, 200);
    const cases: [Principal, string, string, string, number, string][] = [
      [principal(), ses, 'artifact', 'front', 404, 'resource_not_found'],
      [{ ...p, mode: 'live' }, ses, 'artifact', 'front', 404, 'resource_not_found'],
      [p, newId('session'), 'artifact', 'front', 404, 'resource_not_found'],
      [p, 'ses_malformed', 'artifact', 'front', 404, 'resource_not_found'],
      [p, ses, 'blob', 'front', 404, 'resource_not_found'],
      [p, ses, 'artifact', 'passport', 404, 'resource_not_found'],
      [p, ses, 'artifact', 'FRONT', 404, 'resource_not_found'],
      [p, ses, 'artifact', 'selfie', 404, 'artifact_not_available'],
      [p, ses, 'artifact', 'back', 404, 'artifact_not_available'],
      [p, ses, 'upload', 'front', 404, 'artifact_not_available'],
      [p, uploadsOnly, 'upload', 'portrait', 404, 'artifact_not_available'],
      [p, uploadsOnly, 'artifact', 'front', 404, 'artifact_not_available'],
      [p, uploadsOnly, 'upload', 'front', 200, ''],
    ];
    for (const [who, s, source, artifact, status, code] of cases) {
      const g = await http.stored(who, s, source, artifact);
      assert.equal(g.status, status, `${s} ${source}/${artifact}`);
      if (code) assert.equal(errorCode(g), code, `${s} ${source}/${artifact}`);
    }
    const unsigned = await http.get(`/sessions/${ses}/stored-images/artifact/front`, {});
    assert.deepEqual([unsigned.status, errorCode(unsigned)], [401, 'authentication_required']);
  });

  it('validates its request', async () => {
    const p = principal();
    for (const bad of [{ applicant_id: 'nope', session_ids: [] }, { applicant_id: newId('applicant'), session_ids: ['ses_x'] }, { applicant_id: newId('applicant') }]) {
      assert.equal((await refusal(rpc.call(SUBJECTS.evidencePrivacyExport, bad as never, opts(p)))).code, 'validation_error');
      assert.equal((await refusal(rpc.call(SUBJECTS.evidencePrivacyErase, bad as never, opts(p)))).code, 'validation_error');
    }
    assert.equal((await refusal(rpc.call(SUBJECTS.evidencePrivacyExport, { applicant_id: newId('applicant'), session_ids: [] }, opts(null)))).code, 'internal_error');
  });
});

describe('evidence.privacy.erase.v1', () => {
  it('deletes the sessions’ artifacts, uploads and their blobs in one go, keeps captures and activity; a repeat erases nothing', async () => {
    const p = principal();
    const [a, b, kept] = [newId('session'), newId('session'), newId('session')];
    await storeSynthetic(p, a, ['portrait', 'front', 'selfie']);
    await seed(p, a, { artifacts: ['back'] });
    assert.equal((await http.upload(p, a, 'front', upload)).status, 200);
    assert.equal((await http.upload(p, a, 'selfie', upload)).status, 200);
    await http.image(p, a, 'front');
    await seed(p, b, { uploads: ['front'] });
    await storeSynthetic(p, kept, ['front', 'selfie']);
    await http.image(p, kept, 'front');
    // the same session ids are another owner's business: an id of another organization, and the other mode
    const stranger = principal();
    const strangerSes = newId('session');
    await storeSynthetic(stranger, strangerSes, ['front']);
    const liveTwin = { ...p, mode: 'live' as const };
    const liveSes = newId('session');
    await seed(liveTwin, liveSes, { artifacts: ['front'], uploads: ['front'] });

    const keysA = await keysOf(a);
    const keysB = await keysOf(b);
    const untouched = { kept: await holdings(kept, await keysOf(kept)), stranger: await holdings(strangerSes, await keysOf(strangerSes)), live: await holdings(liveSes, await keysOf(liveSes)) };
    assert.deepEqual(await holdings(a, keysA), { captures: 1, artifacts: 4, uploads: 2, activity: 1, blobs: 6 });
    const totalBlobs = await count('evidence.blobs');

    const first = await erase(p, [a, b, strangerSes, liveSes]);
    assert.deepEqual(first, { erased: { artifacts: 4, uploads: 3, blobs: 7 } });
    assert.deepEqual(await holdings(a, keysA), { captures: 1, artifacts: 0, uploads: 0, activity: 1, blobs: 0 });
    assert.deepEqual(await holdings(b, keysB), { captures: 1, artifacts: 0, uploads: 0, activity: 0, blobs: 0 });
    assert.equal(await count('evidence.blobs'), totalBlobs - 7);
    assert.deepEqual(
      { kept: await holdings(kept, await keysOf(kept)), stranger: await holdings(strangerSes, await keysOf(strangerSes)), live: await holdings(liveSes, await keysOf(liveSes)) },
      untouched,
    );
    const [capture] = await query<{ capture_acquisition: string | null; org_id: string; erased: boolean }>(
      url,
      'SELECT capture_acquisition, org_id, erased_at IS NOT NULL AS erased FROM evidence.captures WHERE session_id = $1',
      [a],
    );
    assert.deepEqual(capture, { capture_acquisition: 'camera', org_id: p.org_id, erased: true });
    assert.equal(await count('evidence.captures WHERE session_id = ANY($1::text[]) AND erased_at IS NOT NULL', [[strangerSes, liveSes, kept]]), 0, 'other owners’ records are not marked');

    assert.deepEqual(await erase(p, [a, b, strangerSes, liveSes]), { erased: { artifacts: 0, uploads: 0, blobs: 0 } });

    // reads: the image endpoint and the export's route say artifact_not_available, availability is empty
    for (const art of ['portrait', 'front', 'selfie']) {
      const g = await http.image(p, a, art);
      assert.deepEqual([g.status, errorCode(g)], [404, 'artifact_not_available'], art);
    }
    for (const [source, art] of [['artifact', 'back'], ['upload', 'front']]) assert.equal(errorCode(await http.stored(p, a, source!, art!)), 'artifact_not_available');
    assert.equal(errorCode(await http.stored(p, b, 'upload', 'front')), 'artifact_not_available');
    assert.deepEqual(await rpc.call(SUBJECTS.evidenceAvailable, { session_id: a }, opts(p)), { available_images: [], capture_acquisition: 'camera', back_stored: false });
    assert.equal(await count('evidence.uploads WHERE session_id = $1', [a]), 0);
    const after = await exportOf(p, [a, b]);
    assert.deepEqual(after.evidence, []);
    assert.ok(after.activity.length >= 1, 'activity entries (ids and outcomes) stay');
    // the untouched session still serves
    assert.equal((await http.image(p, kept, 'front')).status, 200);
  });

  it('nothing is stored again for an erased session: a late upload or a late run is refused and leaves no bytes', async () => {
    const p = principal();
    const [fresh, stored] = [newId('session'), newId('session')];
    await storeSynthetic(p, stored, ['front']);
    assert.deepEqual(await erase(p, [fresh, stored]), { erased: { artifacts: 1, uploads: 0, blobs: 1 } });
    const blobs = await count('evidence.blobs');

    for (const s of [fresh, stored]) {
      const late = await http.upload(p, s, 'front', upload);
      assert.deepEqual([late.status, errorCode(late)], [404, 'resource_not_found']);
      assert.equal((await refusal(storeSynthetic(p, s, ['front', 'selfie']))).code, 'resource_not_found');
      assert.deepEqual(await holdings(s), { captures: 1, artifacts: 0, uploads: 0, activity: 0, blobs: 0 });
    }
    assert.equal(await count('evidence.blobs'), blobs, 'the refused bytes were dropped');
    // a session never erased is unaffected
    const other = newId('session');
    assert.equal((await http.upload(p, other, 'front', upload)).status, 200);
  });

  it('an erasure racing with runs and uploads of the same session never leaves an image behind', async () => {
    const blobs = await count('evidence.blobs');
    for (let round = 0; round < 5; round++) {
      const p = principal();
      const ses = newId('session');
      const outcomes = await Promise.allSettled([
        storeSynthetic(p, ses, ['portrait', 'front', 'selfie']),
        http.upload(p, ses, 'front', upload),
        http.upload(p, ses, 'selfie', upload),
        erase(p, [ses]),
      ]);
      assert.equal(outcomes[3].status, 'fulfilled');
      assert.deepEqual(await holdings(ses), { captures: 1, artifacts: 0, uploads: 0, activity: 0, blobs: 0 }, `round ${round}`);
      assert.equal(await count('evidence.blobs'), blobs, `round ${round}: no bytes left behind`);
    }
  });
});

describe('evidence.admin.purge-test-data.v1', () => {
  it('removes every test-mode row of the organization with its blobs, counting them; live rows and other organizations stay', async () => {
    const p = principal('test');
    const live = { ...p, mode: 'live' as const };
    const other = principal('test');
    const testSessions = [newId('session'), newId('session'), newId('session')];
    await storeSynthetic(p, testSessions[0]!, ['portrait', 'front', 'selfie']);
    await http.image(p, testSessions[0]!, 'front');
    await http.image(p, testSessions[0]!, 'selfie');
    assert.equal((await http.upload(p, testSessions[0]!, 'front', upload)).status, 200);
    await seed(p, testSessions[1]!, { artifacts: ['front', 'back'], uploads: ['front', 'back', 'selfie'], activity: 2 });
    // uploads only: no capture yet
    assert.equal((await http.upload(p, testSessions[2]!, 'selfie', upload)).status, 200);
    const liveSes = newId('session');
    const liveKeys = await seed(live, liveSes, { artifacts: ['front'], uploads: ['front'], activity: 1 });
    const otherSes = newId('session');
    const otherKeys = await seed(other, otherSes, { artifacts: ['front'], uploads: ['selfie'], activity: 1 });
    const testKeys = (await Promise.all(testSessions.map(keysOf))).flat();

    const expected = {
      captures: await count(`evidence.captures WHERE org_id = $1 AND mode = 'test'`, [p.org_id]),
      artifacts: await count(`evidence.artifacts a JOIN evidence.captures c USING (session_id) WHERE c.org_id = $1 AND c.mode = 'test'`, [p.org_id]),
      uploads: await count(`evidence.uploads WHERE org_id = $1 AND mode = 'test'`, [p.org_id]),
      blobs: testKeys.length,
      activity: await count(`evidence.activity WHERE org_id = $1 AND mode = 'test'`, [p.org_id]),
    };
    assert.deepEqual(expected, { captures: 2, artifacts: 5, uploads: 5, blobs: 10, activity: 4 });
    const liveBefore = await holdings(liveSes, liveKeys);
    const otherBefore = await holdings(otherSes, otherKeys);

    assert.deepEqual(await purge(p.org_id), { removed: expected });
    for (const s of testSessions) assert.deepEqual(await holdings(s), { captures: 0, artifacts: 0, uploads: 0, activity: 0, blobs: 0 });
    assert.equal(await count('evidence.blobs WHERE id = ANY($1::text[])', [testKeys]), 0);
    assert.deepEqual(await holdings(liveSes, liveKeys), liveBefore);
    assert.deepEqual(await holdings(otherSes, otherKeys), otherBefore);
    assert.deepEqual(await purge(p.org_id), { removed: { captures: 0, artifacts: 0, uploads: 0, blobs: 0, activity: 0 } });
  });

  it('is an operator subject: refused with a principal, and validates the organization id', async () => {
    const p = principal('test');
    const ses = newId('session');
    await storeSynthetic(p, ses, ['front']);
    assert.equal((await refusal(purge(p.org_id, p))).code, 'internal_error');
    assert.equal((await refusal(purge('org_nope'))).code, 'validation_error');
    assert.equal(await count('evidence.artifacts WHERE session_id = $1', [ses]), 1);
  });
});
