import { Inject, Injectable } from '@nestjs/common';
import type { DsarArtifact, Owner, StoredArtifact } from '@verity/contracts';
import { Sql, type Queryable } from '@verity/platform';
import { QUEUE_GONE_OBJECTS } from '../artifacts/artifact-store.js';
import { lockSessions } from '../artifacts/session-lock.js';

export type ImageSource = DsarArtifact['source'];

export interface StoredImageLocation {
  /** Evidence or uploads are recorded here for the session and this owner (erased ones included). */
  recorded: boolean;
  storage_key: string | null;
}

export interface ErasedCounts {
  artifacts: number;
  uploads: number;
  blobs: number;
}

export interface PurgedCounts extends ErasedCounts {
  captures: number;
  activity: number;
}

/** Which table holds a source's rows (never taken from input: a closed set). */
const TABLE = { artifact: 'evidence.artifacts', upload: 'evidence.uploads' } as const;

/**
 * Deletes, among `keys`, the blobs nothing refers to any more (the rows pointing at them were deleted earlier in
 * the same transaction), queueing their objects when they are in the object store; returns how many.
 */
async function dropUnreferencedBlobs(q: Queryable, keys: string[]): Promise<number> {
  if (keys.length === 0) return 0;
  const gone = await q.rows(
    `WITH gone AS (
       DELETE FROM evidence.blobs b WHERE b.id = ANY($1::text[])
          AND NOT EXISTS (SELECT 1 FROM evidence.artifacts a WHERE a.storage_key = b.id)
          AND NOT EXISTS (SELECT 1 FROM evidence.uploads u WHERE u.storage_key = b.id)
        RETURNING b.id, b.location),
     ${QUEUE_GONE_OBJECTS}
     SELECT 1 FROM gone`,
    [keys],
  );
  return gone.length;
}

/**
 * The stored images of sessions as a whole: what a data subject request exports and erases, the test-data
 * purge, and retention. Scoped by organization and mode like every read (artifacts through their capture's
 * owner, uploads by their own).
 */
@Injectable()
export class StoredImagesRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /** Every stored image of the owner's `sessionIds`, with the size and SHA-256 of the bytes as stored. */
  async list(owner: Owner, sessionIds: string[]): Promise<Omit<DsarArtifact, 'data_base64'>[]> {
    const rows = await this.db.rows<{ source: ImageSource; session_id: string; artifact: StoredArtifact; byte_size: number; sha256: string; created_at: Date }>(
      `SELECT 'artifact' AS source, a.session_id, a.artifact, b.byte_size, COALESCE(b.sha256, encode(sha256(b.bytes), 'hex')) AS sha256, a.created_at
         FROM evidence.artifacts a
         JOIN evidence.captures c ON c.session_id = a.session_id
         JOIN evidence.blobs b ON b.id = a.storage_key
        WHERE a.session_id = ANY($1::text[]) AND c.org_id = $2 AND c.mode = $3
       UNION ALL
       SELECT 'upload', u.session_id, u.artifact, b.byte_size, COALESCE(b.sha256, encode(sha256(b.bytes), 'hex')), u.created_at
         FROM evidence.uploads u
         JOIN evidence.blobs b ON b.id = u.storage_key
        WHERE u.session_id = ANY($1::text[]) AND u.org_id = $2 AND u.mode = $3
        ORDER BY session_id, source, artifact`,
      [sessionIds, owner.org_id, owner.mode],
    );
    return rows.map((r) => ({
      source: r.source,
      session_id: r.session_id,
      artifact: r.artifact,
      content_type: 'image/jpeg',
      byte_size: r.byte_size,
      sha256: r.sha256,
      created_at: r.created_at.toISOString(),
    }));
  }

  /** One query: whether anything is recorded for the owner's session, and where one stored image's bytes are. */
  async locate(owner: Owner, sessionId: string, source: ImageSource, artifact: StoredArtifact): Promise<StoredImageLocation> {
    const [r] = await this.db.rows<StoredImageLocation>(
      `SELECT (EXISTS (SELECT 1 FROM evidence.captures WHERE session_id = $1 AND org_id = $2 AND mode = $3)
               OR EXISTS (SELECT 1 FROM evidence.uploads WHERE session_id = $1 AND org_id = $2 AND mode = $3)) AS recorded,
              CASE WHEN $4::text = 'artifact'
                THEN (SELECT a.storage_key FROM evidence.artifacts a JOIN evidence.captures c ON c.session_id = a.session_id
                       WHERE a.session_id = $1 AND a.artifact = $5 AND c.org_id = $2 AND c.mode = $3)
                ELSE (SELECT storage_key FROM evidence.uploads WHERE session_id = $1 AND artifact = $5 AND org_id = $2 AND mode = $3)
              END AS storage_key`,
      [sessionId, owner.org_id, owner.mode, source, artifact],
    );
    return r ?? { recorded: false, storage_key: null };
  }

  /**
   * Erases the images of the owner's sessions in one transaction: their artifact and upload rows and the blobs
   * they point to. The capture rows stay (acquisition, owner) and are marked erased, created for a session that
   * had none, so that nothing is stored for these sessions again; activity rows stay (no personal data).
   */
  async erase(owner: Owner, sessionIds: string[]): Promise<ErasedCounts> {
    if (sessionIds.length === 0) return { artifacts: 0, uploads: 0, blobs: 0 };
    return this.db.tx(async (q) => {
      await lockSessions(q, sessionIds);
      // another owner's capture row (never the case for ids the sessions service gave) is left alone
      await q.rows(
        `INSERT INTO evidence.captures (session_id, org_id, mode, capture_acquisition, erased_at)
         SELECT DISTINCT s, $2, $3, NULL::text, now() FROM unnest($1::text[]) s
         ON CONFLICT (session_id) DO UPDATE SET erased_at = COALESCE(evidence.captures.erased_at, EXCLUDED.erased_at)
          WHERE evidence.captures.org_id = EXCLUDED.org_id AND evidence.captures.mode = EXCLUDED.mode`,
        [sessionIds, owner.org_id, owner.mode],
      );
      const artifacts = await q.rows<{ storage_key: string }>(
        `DELETE FROM evidence.artifacts a USING evidence.captures c
          WHERE a.session_id = c.session_id AND c.session_id = ANY($1::text[]) AND c.org_id = $2 AND c.mode = $3
          RETURNING a.storage_key`,
        [sessionIds, owner.org_id, owner.mode],
      );
      const uploads = await q.rows<{ storage_key: string }>(
        'DELETE FROM evidence.uploads WHERE session_id = ANY($1::text[]) AND org_id = $2 AND mode = $3 RETURNING storage_key',
        [sessionIds, owner.org_id, owner.mode],
      );
      const blobs = await dropUnreferencedBlobs(q, [...artifacts, ...uploads].map((r) => r.storage_key));
      return { artifacts: artifacts.length, uploads: uploads.length, blobs };
    });
  }

  /** Deletes every test-mode row of the organization in the evidence schema, in one transaction. */
  async purgeTestData(orgId: string): Promise<PurgedCounts> {
    return this.db.tx(async (q) => {
      const artifacts = await q.rows<{ storage_key: string }>(
        `DELETE FROM evidence.artifacts a USING evidence.captures c
          WHERE a.session_id = c.session_id AND c.org_id = $1 AND c.mode = 'test'
          RETURNING a.storage_key`,
        [orgId],
      );
      const uploads = await q.rows<{ storage_key: string }>(`DELETE FROM evidence.uploads WHERE org_id = $1 AND mode = 'test' RETURNING storage_key`, [orgId]);
      const blobs = await dropUnreferencedBlobs(q, [...artifacts, ...uploads].map((r) => r.storage_key));
      const captures = await q.rows(`DELETE FROM evidence.captures WHERE org_id = $1 AND mode = 'test' RETURNING 1`, [orgId]);
      const activity = await q.rows(`DELETE FROM evidence.activity WHERE org_id = $1 AND mode = 'test' RETURNING 1`, [orgId]);
      return { captures: captures.length, artifacts: artifacts.length, uploads: uploads.length, blobs, activity: activity.length };
    });
  }

  /**
   * Retention: deletes at most `limit` rows of `source` stored more than `days` days ago, and their blobs, in one
   * short transaction. Rows another replica holds are skipped (it is deleting them). Returns the counts.
   */
  async expire(source: ImageSource, days: number, limit: number): Promise<{ rows: number; blobs: number }> {
    const table = TABLE[source];
    return this.db.tx(async (q) => {
      const gone = await q.rows<{ storage_key: string }>(
        `WITH due AS (
           SELECT session_id, artifact FROM ${table}
            WHERE created_at < now() - make_interval(days => $1::int)
            ORDER BY created_at LIMIT $2
            FOR UPDATE SKIP LOCKED)
         DELETE FROM ${table} t USING due
          WHERE t.session_id = due.session_id AND t.artifact = due.artifact
          RETURNING t.storage_key`,
        [days, limit],
      );
      return { rows: gone.length, blobs: await dropUnreferencedBlobs(q, gone.map((r) => r.storage_key)) };
    });
  }

  /**
   * Retention of bytes nothing refers to (left by a process that died between storing bytes and recording
   * them): at most `limit` blobs older than `days` days. Returns how many.
   */
  async expireOrphanBlobs(days: number, limit: number): Promise<number> {
    const gone = await this.db.rows(
      `WITH due AS (
         SELECT id FROM evidence.blobs b
          WHERE created_at < now() - make_interval(days => $1::int)
            AND NOT EXISTS (SELECT 1 FROM evidence.artifacts a WHERE a.storage_key = b.id)
            AND NOT EXISTS (SELECT 1 FROM evidence.uploads u WHERE u.storage_key = b.id)
          ORDER BY created_at LIMIT $2
          FOR UPDATE SKIP LOCKED),
       gone AS (DELETE FROM evidence.blobs b USING due WHERE b.id = due.id RETURNING b.id, b.location),
       ${QUEUE_GONE_OBJECTS}
       SELECT 1 FROM gone`,
      [days, limit],
    );
    return gone.length;
  }
}
