import { Inject, Injectable } from '@nestjs/common';
import type { CaptureAcquisition, Owner, StoredArtifact } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { Sql } from '@verity/platform';
import { lockSession } from './session-lock.js';

export interface ArtifactLocation {
  /** The session is recorded here for this owner. */
  recorded: boolean;
  /** Where the requested artifact's bytes are, when stored. */
  storage_key: string | null;
  byte_size: number | null;
}

export interface NewArtifact {
  artifact: StoredArtifact;
  storage_key: string;
  byte_size: number;
  sha256: string;
}

/**
 * The captures and artifacts of verifications. Every read is scoped by organization and mode: a session of
 * another owner is not recorded for the caller.
 */
@Injectable()
export class EvidenceRepository {
  constructor(@Inject(Sql) readonly db: Sql) {}

  /** One query: whether the session is recorded for `owner`, and where the artifact's bytes are. */
  async locate(owner: Owner, sessionId: string, artifact: StoredArtifact): Promise<ArtifactLocation> {
    const rows = await this.db.rows<{ storage_key: string | null; byte_size: number | null }>(
      `SELECT a.storage_key, a.byte_size
         FROM evidence.captures c
         LEFT JOIN evidence.artifacts a ON a.session_id = c.session_id AND a.artifact = $4
        WHERE c.session_id = $1 AND c.org_id = $2 AND c.mode = $3`,
      [sessionId, owner.org_id, owner.mode, artifact],
    );
    const r = rows[0];
    return r ? { recorded: true, storage_key: r.storage_key, byte_size: r.byte_size } : { recorded: false, storage_key: null, byte_size: null };
  }

  /**
   * The capture record and stored artifacts of a session, whoever holds it (`owned`: held by `owner`), or null
   * when nothing is recorded. Callers show nothing of a record they do not own.
   */
  async capture(owner: Owner, sessionId: string): Promise<{ owned: boolean; capture_acquisition: CaptureAcquisition; artifacts: StoredArtifact[] } | null> {
    const rows = await this.db.rows<{ owned: boolean; capture_acquisition: CaptureAcquisition; artifacts: StoredArtifact[] }>(
      `SELECT (c.org_id = $2 AND c.mode = $3) AS owned, c.capture_acquisition,
              COALESCE(array_agg(a.artifact) FILTER (WHERE a.artifact IS NOT NULL), '{}') AS artifacts
         FROM evidence.captures c
         LEFT JOIN evidence.artifacts a ON a.session_id = c.session_id
        WHERE c.session_id = $1
        GROUP BY c.session_id, c.org_id, c.mode, c.capture_acquisition`,
      [sessionId, owner.org_id, owner.mode],
    );
    return rows[0] ?? null;
  }

  /**
   * Records the capture (first writer wins) and the artifacts not yet stored, in one transaction; refuses a
   * session recorded for another owner, or erased. Returns the recorded acquisition and the storage keys of `artifacts`
   * that were already there (so their new copies can be dropped).
   */
  async record(
    owner: Owner,
    sessionId: string,
    acquisition: CaptureAcquisition,
    artifacts: NewArtifact[],
  ): Promise<{ capture_acquisition: CaptureAcquisition; unused: string[] }> {
    return this.db.tx(async (q) => {
      await lockSession(q, sessionId);
      await q.rows(
        `INSERT INTO evidence.captures (session_id, org_id, mode, capture_acquisition) VALUES ($1, $2, $3, $4)
         ON CONFLICT (session_id) DO NOTHING`,
        [sessionId, owner.org_id, owner.mode, acquisition],
      );
      const [holder] = await q.rows<Owner & { capture_acquisition: CaptureAcquisition; erased: boolean }>(
        'SELECT org_id, mode, capture_acquisition, erased_at IS NOT NULL AS erased FROM evidence.captures WHERE session_id = $1 FOR SHARE',
        [sessionId],
      );
      // recorded for another owner: never attach artifacts to someone else's verification
      if (!holder || holder.org_id !== owner.org_id || holder.mode !== owner.mode) throw DomainError.notFound('session_id');
      // erased (a data subject request): a run finishing late stores nothing again
      if (holder.erased) throw DomainError.notFound('session_id');
      const unused: string[] = [];
      for (const a of artifacts) {
        const inserted = await q.rows(
          `INSERT INTO evidence.artifacts (session_id, artifact, content_type, storage_key, byte_size, sha256)
           VALUES ($1, $2, 'image/jpeg', $3, $4, $5) ON CONFLICT (session_id, artifact) DO NOTHING RETURNING artifact`,
          [sessionId, a.artifact, a.storage_key, a.byte_size, a.sha256],
        );
        if (inserted.length === 0) unused.push(a.storage_key);
      }
      return { capture_acquisition: holder.capture_acquisition, unused };
    });
  }
}
