import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type pg from 'pg';

/** Bytes of one stored artifact, opened for streaming. */
export interface OpenedBlob {
  size: number;
  stream: Readable;
}

/**
 * Where artifact bytes live. Postgres is the default; an S3-compatible store is a later option behind the same
 * interface. Which artifacts a session has, and who owns them, is recorded by the evidence repository, never
 * by the store: a store only maps keys to bytes.
 */
export interface ArtifactStore {
  /** Stores the bytes under a new key and returns it. */
  put(bytes: Buffer): Promise<string>;
  /**
   * Opens the bytes of `key` for streaming, or null when the key holds nothing. The first part is read before
   * this returns, so that a missing object is known before anything is sent.
   */
  open(key: string): Promise<OpenedBlob | null>;
  delete(keys: string[]): Promise<void>;
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

  async put(bytes: Buffer): Promise<string> {
    const key = randomUUID();
    await this.pool.query('INSERT INTO evidence.blobs (id, byte_size, bytes) VALUES ($1, $2, $3)', [key, bytes.length, bytes]);
    return key;
  }

  async open(key: string): Promise<OpenedBlob | null> {
    const first = await this.pool.query<{ byte_size: number; chunk: string }>(
      `SELECT byte_size, encode(substring(bytes FROM 1 FOR $2), 'base64') AS chunk FROM evidence.blobs WHERE id = $1`,
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
    if (keys.length > 0) await this.pool.query('DELETE FROM evidence.blobs WHERE id = ANY($1)', [keys]);
  }
}
