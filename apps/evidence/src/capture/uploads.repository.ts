import { Inject, Injectable } from '@nestjs/common';
import type { CaptureImage, ChallengeFrameArtifact, Owner } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { Sql } from '@verity/platform';
import { isErased, lockSession } from '../artifacts/session-lock.js';

export interface UploadRow {
  artifact: CaptureImage | ChallengeFrameArtifact;
  storage_key: string;
  width: number;
  height: number;
  byte_size: number;
  sha256: string;
  /** A challenge frame's time, in milliseconds from the first frame; null for the other images. */
  offset_ms: number | null;
}

/** The images of live captures as uploaded: one per kind and session, each owned by the session's owner. */
@Injectable()
export class UploadsRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /**
   * Records an upload, replacing an earlier one of the same kind; returns the storage key it replaced (to be
   * deleted), or null. Refuses (404) a session whose uploads belong to another owner, or whose images were erased.
   */
  async put(owner: Owner, sessionId: string, u: UploadRow): Promise<string | null> {
    return this.db.tx(async (q) => {
      await lockSession(q, sessionId);
      // erased (a data subject request): an upload arriving afterwards is not stored
      if (await isErased(q, sessionId)) throw DomainError.notFound('session_id');
      const held = await q.rows<{ org_id: string; mode: string }>('SELECT org_id, mode FROM evidence.uploads WHERE session_id = $1 LIMIT 1 FOR UPDATE', [sessionId]);
      if (held[0] && (held[0].org_id !== owner.org_id || held[0].mode !== owner.mode)) throw DomainError.notFound('session_id');
      const before = await q.rows<{ storage_key: string }>('SELECT storage_key FROM evidence.uploads WHERE session_id = $1 AND artifact = $2', [sessionId, u.artifact]);
      await q.rows(
        `INSERT INTO evidence.uploads (session_id, artifact, org_id, mode, storage_key, width, height, byte_size, sha256, offset_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (session_id, artifact) DO UPDATE SET storage_key = EXCLUDED.storage_key, width = EXCLUDED.width, height = EXCLUDED.height,
           byte_size = EXCLUDED.byte_size, sha256 = EXCLUDED.sha256, offset_ms = EXCLUDED.offset_ms, created_at = now()`,
        [sessionId, u.artifact, owner.org_id, owner.mode, u.storage_key, u.width, u.height, u.byte_size, u.sha256, u.offset_ms],
      );
      return before[0]?.storage_key ?? null;
    });
  }

  /** The uploads of a session of `owner`. */
  async list(owner: Owner, sessionId: string): Promise<UploadRow[]> {
    return this.db.rows<UploadRow>(
      `SELECT artifact, storage_key, width, height, byte_size, sha256, offset_ms FROM evidence.uploads
        WHERE session_id = $1 AND org_id = $2 AND mode = $3`,
      [sessionId, owner.org_id, owner.mode],
    );
  }
}
