import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { CreateBucketCommand, DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { aead } from '@verity/keys';
import type pg from 'pg';
import { QUEUE_GONE_OBJECTS, sha256Hex, type ArtifactStore, type OpenedBlob, type PostgresArtifactStore, type StoredBlob } from './artifact-store.js';
import type { ObjectStoreOptions } from './object-store-config.js';

/** Objects deleted per request (the S3 API's limit for one DeleteObjects). */
const DELETE_BATCH = 1000;

/**
 * Image bytes in an S3-compatible object store (AWS S3, MinIO, Ceph RGW, …), one bucket per region, each object
 * sealed with the region's key before it leaves the service (AES-256-GCM, `EVIDENCE_OBJECT_KEY`, bound to the
 * blob's id): the bucket, its backups and whoever can list it hold ciphertext only, whatever encryption the store
 * itself adds. The row in `evidence.blobs` (size, SHA-256, `location = 's3'`) is written before the object, so
 * that an object is never in the bucket without the record that lets retention find it; a process that dies
 * between the two leaves a row whose object is missing, which retention removes like any orphan.
 *
 * Bytes stored in Postgres before the switch (`location = 'postgres'`) are still served, from there.
 */
export class S3ArtifactStore implements ArtifactStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly s3: S3Client,
    private readonly opts: ObjectStoreOptions,
    private readonly inPostgres: PostgresArtifactStore,
  ) {}

  static client(opts: ObjectStoreOptions): S3Client {
    return new S3Client({
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      forcePathStyle: opts.forcePathStyle,
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 2_000, requestTimeout: 15_000 },
    });
  }

  /**
   * Refuses to start when the bucket cannot be reached with the configured credentials (a clear line, not a later
   * 500); creates it first when it does not exist and `createBucket` is set.
   */
  async assertReachable(): Promise<void> {
    try {
      try {
        await this.s3.send(new HeadBucketCommand({ Bucket: this.opts.bucket }));
      } catch (e) {
        if (!this.opts.createBucket || !(e instanceof Error) || e.name !== 'NotFound') throw e;
        await this.s3.send(new CreateBucketCommand({ Bucket: this.opts.bucket }));
      }
    } catch (e) {
      const name = e instanceof Error ? e.name : 'error';
      throw new Error(`EVIDENCE_S3_BUCKET ${this.opts.bucket} cannot be reached at ${this.opts.endpoint ?? `S3 (${this.opts.region})`}: ${name}`, { cause: e });
    }
  }

  async put(bytes: Buffer): Promise<StoredBlob> {
    const id = randomUUID();
    const blob = { storage_key: id, byte_size: bytes.length, sha256: sha256Hex(bytes) };
    await this.pool.query(`INSERT INTO evidence.blobs (id, byte_size, sha256, location) VALUES ($1, $2, $3, 's3')`, [id, blob.byte_size, blob.sha256]);
    try {
      await this.s3.send(
        new PutObjectCommand({ Bucket: this.opts.bucket, Key: this.objectKey(id), Body: aead.seal(this.opts.key, bytes, aad(id)), ContentType: 'application/octet-stream' }),
      );
    } catch (e) {
      await this.delete([id]).catch(() => undefined);
      throw e;
    }
    return blob;
  }

  async open(id: string): Promise<OpenedBlob | null> {
    const { rows } = await this.pool.query<{ location: 'postgres' | 's3' }>('SELECT location FROM evidence.blobs WHERE id = $1', [id]);
    const location = rows[0]?.location;
    if (!location) return null;
    if (location === 'postgres') return this.inPostgres.open(id);
    let sealed: Buffer;
    try {
      const r = await this.s3.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key: this.objectKey(id) }));
      if (!r.Body) return null;
      sealed = Buffer.from(await r.Body.transformToByteArray());
    } catch (e) {
      if (e instanceof Error && e.name === 'NoSuchKey') return null;
      throw e;
    }
    // an object that does not open under this region's key for this blob is not served (another key, or copied)
    const bytes = aead.open(this.opts.key, sealed, aad(id));
    return { size: bytes.length, stream: Readable.from([bytes], { objectMode: false }) };
  }

  async delete(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool.query(`WITH gone AS (DELETE FROM evidence.blobs b WHERE b.id = ANY($1) RETURNING b.id, b.location), ${QUEUE_GONE_OBJECTS} SELECT 1 FROM gone`, [ids]);
    await this.sweepDeletions(ids.length, ids);
  }

  /**
   * Deletes queued objects from the bucket, then their queue rows. No transaction is held while the store answers:
   * two replicas sweeping at once may delete an object twice, which the store accepts.
   */
  async sweepDeletions(limit = DELETE_BATCH, only?: string[]): Promise<number> {
    const { rows } = await this.pool.query<{ key: string }>(
      `SELECT key FROM evidence.object_deletions WHERE ($2::text[] IS NULL OR key = ANY($2::text[])) ORDER BY queued_at LIMIT $1`,
      [Math.min(limit, DELETE_BATCH), only ?? null],
    );
    if (rows.length === 0) return 0;
    const r = await this.s3.send(
      new DeleteObjectsCommand({ Bucket: this.opts.bucket, Delete: { Objects: rows.map((k) => ({ Key: this.objectKey(k.key) })), Quiet: true } }),
    );
    const failed = new Set((r.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey').map((e) => e.Key));
    const done = rows.map((k) => k.key).filter((k) => !failed.has(this.objectKey(k)));
    await this.pool.query('DELETE FROM evidence.object_deletions WHERE key = ANY($1)', [done]);
    if (failed.size > 0) throw new Error(`the object store refused to delete ${failed.size} of ${rows.length} objects; they stay queued`);
    return done.length;
  }

  private objectKey(id: string): string {
    return `${this.opts.prefix}${id}`;
  }
}

/** The associated data of a blob's seal: its object opens only as the blob it was stored for. */
function aad(id: string): Buffer {
  return Buffer.from(`verity.evidence.blob:${id}`);
}
