import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Image bytes may live in an S3-compatible object store (docs/evidence.md, "Where the bytes are"). `blobs` stays
 * the one record of every stored image, wherever its bytes are: `location` says where (`postgres`: in `bytes`;
 * `s3`: an object named after the blob's id, `bytes` empty), with the SHA-256 of the bytes as stored. An object
 * whose row is deleted (retention, erasure, the test-data purge, a replaced upload) is queued in
 * `object_deletions` in the same transaction and deleted from the bucket after it commits, until the store
 * confirms: a crash or an unreachable store delays a deletion, never loses it.
 */
export class ObjectStore1764600000000 implements MigrationInterface {
  name = 'ObjectStore1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE evidence.blobs ADD COLUMN location text NOT NULL DEFAULT 'postgres' CHECK (location IN ('postgres', 's3'))`);
    await q.query(`ALTER TABLE evidence.blobs ADD COLUMN sha256 text CHECK (sha256 ~ '^[0-9a-f]{64}$')`);
    await q.query(`ALTER TABLE evidence.blobs ALTER COLUMN bytes DROP NOT NULL`);
    await q.query(`ALTER TABLE evidence.blobs ADD CONSTRAINT blobs_bytes_here CHECK ((location = 'postgres') = (bytes IS NOT NULL))`);
    await q.query(`
      CREATE TABLE evidence.object_deletions (
        key text PRIMARY KEY,
        queued_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    const [held] = (await q.query(`SELECT count(*)::int AS n FROM evidence.blobs WHERE location <> 'postgres'`)) as { n: number }[];
    // their records are all that names the objects: never dropped while the bucket holds images
    if (held && held.n > 0) throw new Error(`${held.n} images are in the object store; copy them back into Postgres before reverting`);
    await q.query(`DROP TABLE evidence.object_deletions`);
    await q.query(`ALTER TABLE evidence.blobs DROP CONSTRAINT blobs_bytes_here`);
    await q.query(`ALTER TABLE evidence.blobs ALTER COLUMN bytes SET NOT NULL`);
    await q.query(`ALTER TABLE evidence.blobs DROP COLUMN sha256`);
    await q.query(`ALTER TABLE evidence.blobs DROP COLUMN location`);
  }
}
