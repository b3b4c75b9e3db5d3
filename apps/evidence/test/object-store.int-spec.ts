import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { SUBJECTS, type Principal } from '@verity/contracts';
import { aead, newId } from '@verity/keys';
import type { RpcClient } from '@verity/platform';
import {
  OBJECT_STORE_CREDENTIALS,
  ObjectStoreServer,
  query,
  refusal,
  sampleImage,
  type ServiceUnderTest,
  startServiceUnderTest,
  testPrincipal,
} from '@verity/testing';
import { EvidenceModule } from '../src/app.module.js';
import { objectStoreOptions } from '../src/artifacts/object-store-config.js';
import { S3ArtifactStore } from '../src/artifacts/s3-artifact-store.js';
import { EVIDENCE_SERVICE, evidenceEnv } from '../src/config.js';
import { EvidenceHttp } from '../src/evidence.http.js';
import { RetentionJob } from '../src/retention/retention.job.js';
import { errorCode, internalClient } from './internal-http.js';

/**
 * The same suite on both stores of image bytes (docs/evidence.md, "Where the bytes are"): Postgres, and an
 * S3-compatible object store running as a server of its own. Images are stored, streamed byte for byte, exported
 * with their digests, retained and erased, and with the object store the bucket is watched too: it holds sealed
 * objects only, and an erasure or retention leaves nothing of them.
 */
const SECRET = randomBytes(32).toString('base64url');
const BUCKET = 'verity-evidence-us';
const PREFIX = 'evidence/';
const OBJECT_KEY = randomBytes(32);
const DAYS = 30;

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const principal = (): Principal => testPrincipal({ org_id: newId('org'), mode: 'test', region: 'us', scopes: ['sessions:read', 'sessions:read_report'] });
const opts = (p: Principal) => ({ principal: p, requestId: newId('request') });

for (const store of ['postgres', 's3'] as const) {
  describe(`images stored in ${store}`, () => {
    let objects: ObjectStoreServer | undefined;
    let s3: S3Client | undefined;
    let svc: ServiceUnderTest<unknown> | undefined;
    let rpc: RpcClient;
    let url: string;
    const http = internalClient(() => svc!.app.get(EvidenceHttp).port, SECRET);

    before(async () => {
      let storeVars: Record<string, string> = {};
      if (store === 's3') {
        objects = await ObjectStoreServer.start([BUCKET]);
        s3 = new S3Client({ region: 'us-east-1', endpoint: objects.endpoint, forcePathStyle: true, credentials: OBJECT_STORE_CREDENTIALS });
        storeVars = {
          EVIDENCE_STORE: 's3',
          EVIDENCE_S3_ENDPOINT: objects.endpoint,
          EVIDENCE_S3_BUCKET: BUCKET,
          EVIDENCE_S3_PREFIX: PREFIX,
          EVIDENCE_S3_ACCESS_KEY_ID: OBJECT_STORE_CREDENTIALS.accessKeyId,
          EVIDENCE_S3_SECRET_ACCESS_KEY: OBJECT_STORE_CREDENTIALS.secretAccessKey,
          EVIDENCE_OBJECT_KEY: OBJECT_KEY.toString('base64'),
        };
      }
      svc = await startServiceUnderTest({
        def: EVIDENCE_SERVICE,
        module: EvidenceModule,
        env: evidenceEnv,
        // retention runs when the test asks (its interval is far away)
        vars: { INTERNAL_PORT: '0', INTERNAL_AUTH_SECRET: SECRET, READING_THREADS: '1', READING_WARM: 'false', EVIDENCE_RETENTION_DAYS: String(DAYS), EVIDENCE_RETENTION_INTERVAL_MS: '3600000', ...storeVars },
      });
      ({ rpc } = svc);
      url = svc.db.url;
    });

    after(async () => {
      await svc?.close();
      s3?.destroy();
      await objects?.close();
    });

    const keysOf = async (session: string) =>
      (await query<{ k: string }>(url, 'SELECT storage_key AS k FROM evidence.artifacts WHERE session_id = $1 UNION ALL SELECT storage_key FROM evidence.uploads WHERE session_id = $1', [session])).map((r) => r.k);
    const blobsOf = async (keys: string[]) => query<{ id: string; location: string; in_postgres: boolean }>(url, 'SELECT id, location, bytes IS NOT NULL AS in_postgres FROM evidence.blobs WHERE id = ANY($1::text[])', [keys]);
    /** The objects in the bucket, by blob id (the object's name without the prefix). */
    const bucket = async (): Promise<Set<string>> => {
      const r = await s3!.send(new ListObjectsV2Command({ Bucket: BUCKET }));
      return new Set((r.Contents ?? []).map((o) => o.Key!).map((k) => (k.startsWith(PREFIX) ? k.slice(PREFIX.length) : `(outside the prefix) ${k}`)));
    };
    const objectBytes = async (id: string) => Buffer.from(await (await s3!.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${id}` }))).Body!.transformToByteArray());

    /** A session with the three synthetic artifacts and two uploads, every image read once. */
    async function session(p: Principal): Promise<{ id: string; keys: string[] }> {
      const id = newId('session');
      await rpc.call(SUBJECTS.evidenceStoreSynthetic, { session_id: id, capture_acquisition: 'camera', artifacts: ['portrait', 'front', 'selfie'] }, opts(p));
      for (const a of ['front', 'selfie']) assert.equal((await http.upload(p, id, a, await sampleImage('jpeg', 320, 200))).status, 200);
      return { id, keys: await keysOf(id) };
    }

    it('stores each image once, streams it byte for byte and exports its digest', async () => {
      const p = principal();
      const s = await session(p);
      assert.equal(s.keys.length, 5);
      const exported = await rpc.call(SUBJECTS.evidencePrivacyExport, { applicant_id: newId('applicant'), session_ids: [s.id] }, opts(p));
      assert.equal(exported.evidence.length, 5);
      for (const e of exported.evidence) {
        const got = await http.stored(p, s.id, e.source, e.artifact);
        assert.equal(got.status, 200, `${e.source} ${e.artifact}`);
        assert.equal(got.body.length, e.byte_size);
        assert.equal(sha(got.body), e.sha256, `${e.source} ${e.artifact}: the bytes served are the bytes stored`);
        assert.deepEqual([...got.body.subarray(0, 2)], [0xff, 0xd8], 'a JPEG');
      }
      const front = await http.image(p, s.id, 'front');
      assert.equal(front.status, 200);
      assert.equal(front.headers['content-length'], String(front.body.length));

      const rows = await blobsOf(s.keys);
      assert.equal(rows.length, 5);
      for (const r of rows) {
        assert.equal(r.location, store);
        assert.equal(r.in_postgres, store === 'postgres', 'the bytes are in one place only');
      }
      if (store === 's3') {
        const held = await bucket();
        for (const k of s.keys) assert.ok(held.has(k), `object ${k} in the bucket`);
        // sealed with the region's key, bound to the blob: not a JPEG, and it opens only as its own blob
        const served = await http.stored(p, s.id, 'artifact', 'front');
        const frontKey = (await query<{ k: string }>(url, `SELECT storage_key AS k FROM evidence.artifacts WHERE session_id = $1 AND artifact = 'front'`, [s.id]))[0]!.k;
        const sealed = await objectBytes(frontKey);
        assert.notDeepEqual([...sealed.subarray(0, 2)], [0xff, 0xd8]);
        assert.equal(sealed.indexOf(served.body.subarray(0, 64)), -1, 'no plaintext in the object');
        assert.ok(aead.open(OBJECT_KEY, sealed, Buffer.from(`verity.evidence.blob:${frontKey}`)).equals(served.body));
        assert.throws(() => aead.open(OBJECT_KEY, sealed, Buffer.from(`verity.evidence.blob:${s.keys.find((k) => k !== frontKey)}`)));
      }
    });

    it('replacing an upload deletes the bytes it replaced', async () => {
      const p = principal();
      const s = await session(p);
      const before = (await query<{ k: string }>(url, `SELECT storage_key AS k FROM evidence.uploads WHERE session_id = $1 AND artifact = 'front'`, [s.id]))[0]!.k;
      assert.equal((await http.upload(p, s.id, 'front', await sampleImage('jpeg', 400, 300))).status, 200);
      assert.equal((await blobsOf([before])).length, 0);
      if (store === 's3') assert.equal((await bucket()).has(before), false);
    });

    it('retention deletes images past EVIDENCE_RETENTION_DAYS with their bytes; newer ones stay', async () => {
      const p = principal();
      const [old, young] = [await session(p), await session(p)];
      await query(url, `UPDATE evidence.artifacts SET created_at = now() - make_interval(days => $2::int) WHERE session_id = $1`, [old.id, DAYS + 1]);
      await query(url, `UPDATE evidence.uploads SET created_at = now() - make_interval(days => $2::int) WHERE session_id = $1`, [old.id, DAYS + 1]);
      const counts = await svc!.app.get(RetentionJob).sweep();
      assert.ok(counts.blobs >= 5, `blobs deleted: ${counts.blobs}`);
      assert.equal((await blobsOf(old.keys)).length, 0);
      assert.equal((await blobsOf(young.keys)).length, 5);
      assert.equal(errorCode(await http.image(p, old.id, 'front')), 'artifact_not_available');
      assert.equal((await http.image(p, young.id, 'front')).status, 200);
      if (store === 's3') {
        const held = await bucket();
        for (const k of old.keys) assert.equal(held.has(k), false, `object ${k} gone`);
        for (const k of young.keys) assert.equal(held.has(k), true, `object ${k} kept`);
      }
      assert.equal((await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM evidence.object_deletions'))[0]!.n, 0, 'nothing left queued');
    });

    it('an erasure answers once the bytes are gone', async () => {
      const p = principal();
      const s = await session(p);
      const reply = await rpc.call(SUBJECTS.evidencePrivacyErase, { applicant_id: newId('applicant'), session_ids: [s.id] }, opts(p));
      assert.deepEqual(reply.erased, { artifacts: 3, uploads: 2, blobs: 5 });
      assert.equal((await blobsOf(s.keys)).length, 0);
      if (store === 's3') {
        const held = await bucket();
        for (const k of s.keys) assert.equal(held.has(k), false, `object ${k} gone`);
      }
      assert.equal(errorCode(await http.image(p, s.id, 'front')), 'artifact_not_available');
    });

    if (store === 's3') {
      it('with the object store down, an upload is refused leaving nothing and an erasure fails; once it is back the retry deletes every object', async () => {
        const p = principal();
        const s = await session(p);
        const blobsBefore = (await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM evidence.blobs'))[0]!.n;
        await objects!.stop();
        try {
          const refused = await http.upload(p, s.id, 'back', await sampleImage('jpeg', 320, 200));
          assert.equal(refused.status, 503);
          assert.equal(errorCode(refused), 'service_unavailable');
          assert.equal((await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM evidence.blobs'))[0]!.n, blobsBefore, 'no record of bytes not stored');
          const failed = await refusal(rpc.call(SUBJECTS.evidencePrivacyErase, { applicant_id: newId('applicant'), session_ids: [s.id] }, opts(p)));
          assert.equal(failed.code, 'service_unavailable');
          // the erasure itself committed: nothing is served any more, and the objects wait in the queue (with the
          // refused upload's, which the store may have half-written)
          assert.equal(errorCode(await http.image(p, s.id, 'front')), 'artifact_not_available');
          const queued = new Set((await query<{ key: string }>(url, 'SELECT key FROM evidence.object_deletions')).map((r) => r.key));
          for (const k of s.keys) assert.ok(queued.has(k), `${k} queued`);
          assert.equal(queued.size, s.keys.length + 1);
        } finally {
          await objects!.start();
        }
        for (const k of s.keys) assert.equal((await bucket()).has(k), true, 'still in the bucket while queued');
        const retry = await rpc.call(SUBJECTS.evidencePrivacyErase, { applicant_id: newId('applicant'), session_ids: [s.id] }, opts(p));
        assert.deepEqual(retry.erased, { artifacts: 0, uploads: 0, blobs: 0 });
        const held = await bucket();
        for (const k of s.keys) assert.equal(held.has(k), false, `object ${k} gone after the retry`);
        assert.equal((await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM evidence.object_deletions'))[0]!.n, 0);
      });
    }
  });
}

describe('the object store at start', () => {
  it('a bucket that does not exist stops the service with a line naming it; with EVIDENCE_S3_CREATE_BUCKET it is created', async () => {
    const objects = await ObjectStoreServer.start([]);
    const check = (bucket: string, create: boolean) => {
      const opts = objectStoreOptions({
        EVIDENCE_STORE: 's3',
        EVIDENCE_S3_ENDPOINT: objects.endpoint,
        EVIDENCE_S3_REGION: 'us-east-1',
        EVIDENCE_S3_FORCE_PATH_STYLE: true,
        EVIDENCE_S3_PREFIX: '',
        EVIDENCE_S3_BUCKET: bucket,
        EVIDENCE_S3_ACCESS_KEY_ID: OBJECT_STORE_CREDENTIALS.accessKeyId,
        EVIDENCE_S3_SECRET_ACCESS_KEY: OBJECT_STORE_CREDENTIALS.secretAccessKey,
        EVIDENCE_S3_CREATE_BUCKET: create,
        EVIDENCE_OBJECT_KEY: OBJECT_KEY.toString('base64'),
      })!;
      const client = S3ArtifactStore.client(opts);
      // the start check touches the bucket only, never the database
      return new S3ArtifactStore(null as never, client, opts, null as never).assertReachable().finally(() => client.destroy());
    };
    try {
      await assert.rejects(check('verity-missing', false), /^Error: EVIDENCE_S3_BUCKET verity-missing cannot be reached at http:\/\/127\.0\.0\.1:\d+: NotFound$/);
      await check('verity-created', true);
      const s3 = new S3Client({ region: 'us-east-1', endpoint: objects.endpoint, forcePathStyle: true, credentials: OBJECT_STORE_CREDENTIALS });
      assert.equal((await s3.send(new ListObjectsV2Command({ Bucket: 'verity-created' }))).KeyCount, 0, 'the bucket exists, empty');
      s3.destroy();
      await check('verity-created', false);
    } finally {
      await objects.close();
    }
  });
});
