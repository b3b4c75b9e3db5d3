import { Inject, Injectable } from '@nestjs/common';
import type { ActivityEntry, Owner } from '@verity/contracts';
import { newId } from '@verity/keys';
import { Sql, type WithDates } from '@verity/platform';

/** A row of `id_scan.audit`: an activity entry of its one action, without session or artifact. */
type AuditRow = WithDates<Pick<ActivityEntry, 'id' | 'org_id' | 'mode' | 'outcome' | 'request_id' | 'key_id' | 'created_at'>, 'created_at'>;

/**
 * The organization's audit trail of ID scans: one entry per scan that reached a result, with its outcome
 * (test mode: `pass`, `review`, `fail` or `doc_quality`). No image, no extracted field, no applicant data.
 */
@Injectable()
export class AuditRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  async record(owner: Owner, e: { outcome: string; request_id: string; key_id: string | null }): Promise<void> {
    await this.db.rows(
      `INSERT INTO id_scan.audit (id, org_id, mode, action, outcome, request_id, key_id)
       VALUES ($1, $2, $3, 'kyc.idv.document_scanned', $4, $5, $6)`,
      [newId('activity'), owner.org_id, owner.mode, e.outcome, e.request_id, e.key_id],
    );
  }

  /** Newest first. */
  async list(orgId: string, limit: number): Promise<ActivityEntry[]> {
    const rows = await this.db.rows<AuditRow>(
      `SELECT id, org_id, mode, outcome, request_id, key_id, created_at FROM id_scan.audit
        WHERE org_id = $1 ORDER BY seq DESC LIMIT $2`,
      [orgId, limit],
    );
    return rows.map((r) => ({
      id: r.id,
      object: 'activity',
      action: 'kyc.idv.document_scanned',
      org_id: r.org_id,
      mode: r.mode,
      session_id: null,
      artifact: null,
      outcome: r.outcome,
      request_id: r.request_id,
      key_id: r.key_id,
      created_at: r.created_at.toISOString(),
    }));
  }

  /** Deletes the organization's test-mode entries (one statement); how many there were. */
  async purgeTestData(orgId: string): Promise<number> {
    const [r] = await this.db.rows<{ n: number }>(
      `WITH gone AS (DELETE FROM id_scan.audit WHERE org_id = $1 AND mode = 'test' RETURNING 1) SELECT count(*)::int AS n FROM gone`,
      [orgId],
    );
    return r!.n;
  }
}
