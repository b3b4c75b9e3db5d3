import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type pg from 'pg';

/** Bytes of one stored artifact, opened for streaming. */
export interface OpenedBlob {
  size: number;
  stream: Readable;
}

/**
 * Where image bytes live: Postgres (`evidence.blobs`, the default) or an S3-compatible object store
 * (`EVIDENCE_STORE=s3`, s3-artifact-store.ts). Either way every stored image has its row in `evidence.blobs`
 * (its size, SHA-256 and `location`), so retention, erasure and the export find them with SQL. Which artifacts a
 * session has, and who owns them, is recorded by the evidence repository, never by the store: a store only maps
 * keys to bytes.
 */
/** Where `put` stored bytes: the new key, with the size and SHA-256 recorded for them. */
export interface StoredBlob {
  storage_key: string;
  byte_size: number;
  sha256: string;
}

export interface ArtifactStore {
  /** Stores the bytes under a new key; the digest is taken once, here, for the blob's row and the caller's. */
  put(bytes: Buffer): Promise<StoredBlob>;
  /**
   * Opens the bytes of `key` for streaming, or null when the key holds nothing. The first part is read before
   * this returns, so that a missing object is known before anything is sent.
   */
  open(key: string): Promise<OpenedBlob | null>;
  /** Deletes the blobs `keys` (nothing refers to them) and their bytes. */
  delete(keys: string[]): Promise<void>;
  /**
   * Deletes from the object store the objects whose rows were deleted (queued in `evidence.object_deletions` in
   * the transaction that deleted them), at most `limit`; returns how many. Nothing to do for Postgres bytes.
   */
  sweepDeletions(limit?: number): Promise<number>;
}

/**
 * The part of a statement that queues, for the object store, the objects of the blob rows a `gone` CTE deleted
 * (`RETURNING id, location`): written after `WITH gone AS (DELETE ... RETURNING b.id, b.location),`. The
 * deletion from the bucket follows the commit (`sweepDeletions`).
 */
export const QUEUE_GONE_OBJECTS = `queued AS (
  INSERT INTO evidence.object_deletions (key) SELECT id FROM gone WHERE location = 's3' ON CONFLICT DO NOTHING)`;

/** Objects swept per call of `drainDeletions`' loop. */
const SWEEP_BATCH = 1000;

/**
 * Deletes every queued object from the object store (after an erasure or a retention pass commits); throws when
 * the store refuses or cannot be reached, leaving the rest queued for the next pass. Returns how many.
 */
export async function drainDeletions(store: ArtifactStore): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await store.sweepDeletions(SWEEP_BATCH);
    total += n;
    if (n < SWEEP_BATCH) return total;
  }
}

export function sha256Hex(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

export const ARTIFACT_STORE = Symbol('ARTIFACT_STORE');

/** Default size of one read from the Postgres store: an image up to this size is one query. */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;

/**
 * Artifact bytes in `evidence.blobs` (bytea stored uncompressed, out of line). Reads go in chunks of
 * `chunkBytes` with `substring`, each its own short query, and the next chunk is read only when the client has
 * taken the previous one: a slow client holds one chunk of memory and no database connection. node-postgres
 * reads every value as text; bytes travel base64-encoded, which it parses more cheaply than bytea's hex text
 * form (docs/evidence.md).
 */
export class PostgresArtifactStore implements ArtifactStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly chunkBytes = DEFAULT_CHUNK_BYTES,
  ) {}

  async put(bytes: Buffer): Promise<StoredBlob> {
    const blob = { storage_key: randomUUID(), byte_size: bytes.length, sha256: sha256Hex(bytes) };
    await this.pool.query(`INSERT INTO evidence.blobs (id, byte_size, sha256, location, bytes) VALUES ($1, $2, $3, 'postgres', $4)`, [
      blob.storage_key,
      blob.byte_size,
      blob.sha256,
      bytes,
    ]);
    return blob;
  }

  async open(key: string): Promise<OpenedBlob | null> {
    const first = await this.pool.query<{ byte_size: number; chunk: string }>(
      `SELECT byte_size, encode(substring(bytes FROM 1 FOR $2), 'base64') AS chunk FROM evidence.blobs WHERE id = $1 AND location = 'postgres'`,
      [key, this.chunkBytes],
    );
    const row = first.rows[0];
    if (!row) return null;
    const size = row.byte_size;
    const chunk = Buffer.from(row.chunk, 'base64');
    if (size <= chunk.length) return { size, stream: Readable.from([chunk], { objectMode: false }) };
    return { size, stream: Readable.from(this.chunks(key, chunk, size), { objectMode: false, highWaterMark: 1 }) };
  }

  private async *chunks(key: string, first: Buffer, size: number): AsyncGenerator<Buffer> {
    yield first;
    for (let offset = first.length; offset < size; offset += this.chunkBytes) {
      const r = await this.pool.query<{ chunk: string }>(`SELECT encode(substring(bytes FROM $2 FOR $3), 'base64') AS chunk FROM evidence.blobs WHERE id = $1`, [
        key,
        offset + 1,
        this.chunkBytes,
      ]);
      const chunk = r.rows[0] ? Buffer.from(r.rows[0].chunk, 'base64') : null;
      // deleted (erasure) while being read: cut the response rather than send a different or short image
      if (!chunk || chunk.length === 0) throw new Error('artifact bytes vanished while being read');
      yield chunk;
    }
  }

  async delete(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.pool.query(`WITH gone AS (DELETE FROM evidence.blobs b WHERE b.id = ANY($1) RETURNING b.id, b.location), ${QUEUE_GONE_OBJECTS} SELECT 1 FROM gone`, [keys]);
  }

  /** Postgres bytes go with their rows; objects queued by a deployment that used an object store wait for it. */
  async sweepDeletions(): Promise<number> {
    return 0;
  }
}
