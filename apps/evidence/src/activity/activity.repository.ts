import { Inject, Injectable } from '@nestjs/common';
import type { ActivityEntry, EvidenceArtifact, Owner } from '@verity/contracts';
import { newId } from '@verity/keys';
import { Sql, type WithDates } from '@verity/platform';

export type ImageAction = 'kyc.idv.evidence_exported' | 'kyc.idv.evidence_export_failed';

export interface NewActivity {
  session_id: string;
  action: ImageAction;
  artifact: EvidenceArtifact | 'back';
  outcome: 'served' | 'artifact_not_available';
  request_id: string;
  key_id: string | null;
}

/** A row of `evidence.activity`: an entry of the image endpoints, always of a session and an artifact. */
interface ActivityRow extends WithDates<Omit<ActivityEntry, 'object'>, 'created_at'> {
  session_id: string;
  action: ImageAction;
  artifact: EvidenceArtifact | 'back';
}

export function toActivityEntry(r: ActivityRow): ActivityEntry {
  return {
    id: r.id,
    object: 'activity',
    action: r.action,
    org_id: r.org_id,
    mode: r.mode,
    session_id: r.session_id,
    artifact: r.artifact,
    outcome: r.outcome,
    request_id: r.request_id,
    key_id: r.key_id,
    created_at: r.created_at.toISOString(),
  };
}

/** The organization's activity log of the image endpoint: action, artifact and outcome; no applicant or image data. */
@Injectable()
export class ActivityRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  async record(owner: Owner, a: NewActivity): Promise<void> {
    await this.db.rows(
      `INSERT INTO evidence.activity (id, org_id, mode, session_id, action, artifact, outcome, request_id, key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [newId('activity'), owner.org_id, owner.mode, a.session_id, a.action, a.artifact, a.outcome, a.request_id, a.key_id],
    );
  }

  /** The owner's entries of `sessionIds` (a data subject request's export), newest first. */
  async ofSessions(owner: Owner, sessionIds: string[]): Promise<ActivityEntry[]> {
    if (sessionIds.length === 0) return [];
    const rows = await this.db.rows<ActivityRow>(
      `SELECT id, org_id, mode, session_id, action, artifact, outcome, request_id, key_id, created_at
         FROM evidence.activity
        WHERE org_id = $1 AND mode = $2 AND session_id = ANY($3::text[])
        ORDER BY seq DESC`,
      [owner.org_id, owner.mode, sessionIds],
    );
    return rows.map(toActivityEntry);
  }

  /** Newest first. */
  async list(orgId: string, sessionId: string | null, limit: number): Promise<ActivityEntry[]> {
    const rows = await this.db.rows<ActivityRow>(
      `SELECT id, org_id, mode, session_id, action, artifact, outcome, request_id, key_id, created_at
         FROM evidence.activity
        WHERE org_id = $1 AND ($2::text IS NULL OR session_id = $2)
        ORDER BY seq DESC LIMIT $3`,
      [orgId, sessionId, limit],
    );
    return rows.map(toActivityEntry);
  }
}
