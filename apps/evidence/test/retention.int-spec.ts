import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SUBJECTS, type Principal } from '@verity/contracts';
import { newId } from '@verity/keys';
import { CONFIG, LOGGER, type Logger, type RpcClient } from '@verity/platform';
import { query, sampleImage, type ServiceUnderTest, startServiceUnderTest, testPrincipal } from '@verity/testing';
import { EvidenceModule } from '../src/app.module.js';
import { EVIDENCE_SERVICE, evidenceEnv, type RetentionConfig } from '../src/config.js';
import { ARTIFACT_STORE, type ArtifactStore } from '../src/artifacts/artifact-store.js';
import { EvidenceHttp } from '../src/evidence.http.js';
import { StoredImagesRepository } from '../src/privacy/stored-images.repository.js';
import { RetentionJob, type RetentionCounts } from '../src/retention/retention.job.js';
import { errorCode, internalClient } from './internal-http.js';

const SECRET = randomBytes(32).toString('base64url');
const DAYS = 30;

let svc: ServiceUnderTest<unknown> | undefined;
let rpc: RpcClient;
let url: string;
const http = internalClient(() => svc!.app.get(EvidenceHttp).port, SECRET);

before(async () => {
  svc = await startServiceUnderTest({
    def: EVIDENCE_SERVICE,
    module: EvidenceModule,
    env: evidenceEnv,
    vars: {
      INTERNAL_PORT: '0',
      INTERNAL_AUTH_SECRET: SECRET,
      READING_THREADS: '1',
      EVIDENCE_RETENTION_DAYS: String(DAYS),
      EVIDENCE_RETENTION_BATCH: '2',
      EVIDENCE_RETENTION_INTERVAL_MS: '100',
    },
  });
  ({ rpc } = svc);
  url = svc.db.url;
});

after(() => svc?.close());

const principal = (): Principal => testPrincipal({ org_id: newId('org'), mode: 'test', region: 'us', scopes: ['sessions:read', 'sessions:read_report'] });
const opts = (p: Principal) => ({ principal: p, requestId: newId('request') });
const count = async (sql: string, params: unknown[] = []) => (await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM ${sql}`, params))[0]!.n;
const keysOf = async (session: string) =>
  (await query<{ k: string }>(url, 'SELECT storage_key AS k FROM evidence.artifacts WHERE session_id = $1 UNION ALL SELECT storage_key FROM evidence.uploads WHERE session_id = $1', [session])).map((r) => r.k);

/** Moves the stored time of a session's rows (and their blobs) `days` days back. */
async function age(session: string, days: number, where: { table: 'artifacts' | 'uploads'; artifact?: string }): Promise<void> {
  const filter = where.artifact ? 'AND artifact = $3' : '';
  const params = where.artifact ? [session, days, where.artifact] : [session, days];
  const rows = await query<{ storage_key: string }>(
    url,
    `UPDATE evidence.${where.table} SET created_at = now() - make_interval(days => $2::int) WHERE session_id = $1 ${filter} RETURNING storage_key`,
    params,
  );
  await query(url, `UPDATE evidence.blobs SET created_at = now() - make_interval(days => $2::int) WHERE id = ANY($1::text[])`, [rows.map((r) => r.storage_key), days]);
}

async function eventually(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`not within ${ms} ms: ${what}`);
    await sleep(50);
  }
}

describe('retention', () => {
  it('the service deletes images older than EVIDENCE_RETENTION_DAYS on its own, with their bytes; newer ones, captures and activity stay', async () => {
    const p = principal();
    const [old, young] = [newId('session'), newId('session')];
    for (const s of [old, young]) {
      await rpc.call(SUBJECTS.evidenceStoreSynthetic, { session_id: s, capture_acquisition: 'camera', artifacts: ['portrait', 'front', 'selfie'] }, opts(p));
      for (const a of ['front', 'selfie']) assert.equal((await http.upload(p, s, a, await sampleImage('jpeg', 320, 200))).status, 200);
      assert.equal((await http.image(p, s, 'front')).status, 200);
    }
    // old: everything but the selfie artifact is past retention; young: a day short of it
    const oldKeys = await keysOf(old);
    await age(old, DAYS + 1, { table: 'artifacts', artifact: 'front' });
    await age(old, DAYS + 1, { table: 'artifacts', artifact: 'portrait' });
    await age(old, DAYS + 5, { table: 'uploads' });
    await age(young, DAYS - 1, { table: 'artifacts' });
    await age(young, DAYS - 1, { table: 'uploads' });
    const youngKeys = await keysOf(young);
    // bytes nothing points at (a process died between storing and recording them): old ones go, recent ones stay
    const orphans = { old: `orphan-${randomBytes(6).toString('hex')}`, recent: `orphan-${randomBytes(6).toString('hex')}` };
    await query(url, `INSERT INTO evidence.blobs (id, byte_size, bytes, created_at) VALUES ($1, 3, '\\xffd8ff', now() - interval '40 days'), ($2, 3, '\\xffd8ff', now())`, [orphans.old, orphans.recent]);

    await eventually('the old rows are deleted', async () => (await count('evidence.artifacts WHERE session_id = $1', [old])) === 1 && (await count('evidence.uploads WHERE session_id = $1', [old])) === 0);
    await eventually('the old orphan is deleted', async () => (await count('evidence.blobs WHERE id = $1', [orphans.old])) === 0);
    const remaining = await query<{ artifact: string }>(url, 'SELECT artifact FROM evidence.artifacts WHERE session_id = $1', [old]);
    assert.deepEqual(remaining, [{ artifact: 'selfie' }]);
    const selfieKey = (await keysOf(old))[0]!;
    assert.equal(await count('evidence.blobs WHERE id = ANY($1::text[])', [oldKeys.filter((k) => k !== selfieKey)]), 0, 'the expired rows’ bytes are gone');
    assert.equal(await count('evidence.blobs WHERE id = $1', [selfieKey]), 1);
    assert.equal(await count('evidence.blobs WHERE id = $1', [orphans.recent]), 1);
    assert.equal(await count('evidence.captures WHERE session_id = $1', [old]), 1);
    assert.equal(await count('evidence.activity WHERE session_id = $1', [old]), 1);

    // reads of expired images
    for (const a of ['front', 'portrait']) {
      const g = await http.image(p, old, a);
      assert.deepEqual([g.status, errorCode(g)], [404, 'artifact_not_available'], a);
    }
    assert.equal((await http.image(p, old, 'selfie')).status, 200);
    assert.equal(errorCode(await http.stored(p, old, 'upload', 'front')), 'artifact_not_available');
    assert.deepEqual(await rpc.call(SUBJECTS.evidenceAvailable, { session_id: old }, opts(p)), { available_images: ['selfie'], capture_acquisition: 'camera', back_stored: false });
    assert.equal(await count('evidence.uploads WHERE session_id = $1', [old]), 0);

    // young: untouched
    assert.equal(await count('evidence.artifacts WHERE session_id = $1', [young]), 3);
    assert.equal(await count('evidence.uploads WHERE session_id = $1', [young]), 2);
    assert.equal(await count('evidence.blobs WHERE id = ANY($1::text[])', [youngKeys]), 5);
    assert.equal((await http.image(p, young, 'front')).status, 200);
  });

  it('several replicas sweeping at once delete each row exactly once, in batches', async () => {
    const app = svc!.app;
    const cfg = app.get<RetentionConfig>(CONFIG);
    const log = app.get<Logger>(LOGGER);
    const repo = app.get(StoredImagesRepository);
    const store = app.get<ArtifactStore>(ARTIFACT_STORE);
    const own = app.get(RetentionJob);
    const replicas = [own, new RetentionJob(repo, store, cfg, log), new RetentionJob(repo, store, cfg, log), new RetentionJob(repo, store, cfg, log)];
    const total = (k: keyof RetentionCounts) => replicas.reduce((n, r) => n + r.deleted[k], 0);
    const before = { artifacts: total('artifacts'), blobs: total('blobs') };

    const p = principal();
    const sessions = Array.from({ length: 12 }, () => newId('session'));
    // stored as already old in one statement each, so that no pass sees half of a session
    for (const s of sessions) {
      await query(
        url,
        `WITH b AS (INSERT INTO evidence.blobs (id, byte_size, bytes, created_at) SELECT $1 || '-' || a, 3, '\\xffd8ff', now() - interval '60 days' FROM unnest(ARRAY['front', 'selfie']) a RETURNING id),
              c AS (INSERT INTO evidence.captures (session_id, org_id, mode, capture_acquisition) VALUES ($1, $2, 'test', 'camera') RETURNING session_id)
         INSERT INTO evidence.artifacts (session_id, artifact, content_type, storage_key, byte_size, sha256, created_at)
         SELECT (SELECT session_id FROM c), a, 'image/jpeg', $1 || '-' || a, 3, 'x', now() - interval '60 days' FROM unnest(ARRAY['front', 'selfie']) a`,
        [s, p.org_id],
      );
    }
    await Promise.all(replicas.slice(1).map((r) => r.sweep()));
    await eventually('every old row is deleted', async () => (await count('evidence.artifacts WHERE session_id = ANY($1::text[])', [sessions])) === 0);
    // the service's own pass may still be running: let it end
    await own.sweep();
    assert.equal(await count('evidence.blobs WHERE id LIKE ANY($1::text[])', [sessions.map((s) => `${s}-%`)]), 0);
    assert.equal(total('artifacts') - before.artifacts, 24, 'each row counted once over all replicas');
    assert.equal(total('blobs') - before.blobs, 24);
  });
});
