import { Inject, Injectable } from '@nestjs/common';
import type { DataSubjectRequest, DsarArtifact, DsarExport, DsarType, ErasureCounts, Owner, Principal } from '@verity/contracts';
import { LeasedJobTable, Sql, type Leased, type WithDates } from '@verity/platform';

/** A row of `applicants.data_subject_requests`: the request as on the wire, and how its run is going. */
export interface DsarRow extends WithDates<Omit<DataSubjectRequest, 'object' | 'export' | 'certificate'>, 'created_at' | 'completed_at'> {
  seq: string;
  org_id: string;
  principal: Principal;
  /** The results of the steps already done, by step name: a resumed erasure skips them. */
  steps: Record<string, DsarStepResult>;
  export: DsarExport | null;
  certificate: string | null;
  attempts: number;
}

/** A request as the runner claimed it: with its lease, and the database's time of the claim. */
export type ClaimedDsar = Leased<DsarRow & { claimed_at: Date }>;

export interface DsarStepResult {
  erased: ErasureCounts;
  session_ids?: string[];
}

const COLUMNS = `seq, id, org_id, mode, type, applicant_id, status, principal, steps, export, certificate, attempts, created_at, completed_at`;

/** Data subject requests: every read is scoped by organization and mode, except the runner's claim. */
@Injectable()
export class DsarRepository {
  /** The requests still to be worked on, claimed as jobs are: a request is its own job row. */
  private readonly jobs: LeasedJobTable<DsarRow & { claimed_at: Date }>;

  constructor(@Inject(Sql) private readonly db: Sql) {
    this.jobs = new LeasedJobTable(db, 'applicants.data_subject_requests', `${COLUMNS}, leased_at AS claimed_at`, { due: `status = 'pending'`, errorColumn: 'last_error' });
  }

  async insert(r: { id: string; type: DsarType; applicant_id: string; principal: Principal }): Promise<DsarRow> {
    const [row] = await this.db.rows<DsarRow>(
      `INSERT INTO applicants.data_subject_requests (id, org_id, mode, type, applicant_id, principal)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [r.id, r.principal.org_id, r.principal.mode, r.type, r.applicant_id, JSON.stringify(r.principal)],
    );
    return row!;
  }

  async find(owner: Owner, id: string): Promise<DsarRow | null> {
    const [row] = await this.db.rows<DsarRow>(
      `SELECT ${COLUMNS} FROM applicants.data_subject_requests WHERE id = $1 AND org_id = $2 AND mode = $3`,
      [id, owner.org_id, owner.mode],
    );
    return row ?? null;
  }

  /** Entry `index` of a completed access export's evidence; null when there is no such entry (or no such export). */
  async evidenceEntry(owner: Owner, id: string, index: number): Promise<DsarArtifact | null> {
    const [row] = await this.db.rows<{ entry: DsarArtifact | null }>(
      `SELECT export->'evidence'->$4::int AS entry FROM applicants.data_subject_requests
        WHERE id = $1 AND org_id = $2 AND mode = $3 AND type = 'access' AND status = 'completed'`,
      [id, owner.org_id, owner.mode, index],
    );
    return row?.entry ?? null;
  }

  /**
   * Takes the oldest due request for `leaseMs`: no other replica runs it meanwhile, and if this one dies the
   * lease runs out and another takes it over.
   */
  async claim(leaseMs: number): Promise<ClaimedDsar | null> {
    const [row] = await this.jobs.claim(1, leaseMs);
    return row ?? null;
  }

  /** Keeps the lease another `leaseMs`; false when it is no longer this holder's. */
  renew(row: ClaimedDsar, leaseMs: number): Promise<boolean> {
    return this.jobs.renew(row, leaseMs);
  }

  /** Requests still pending `ms` after they were made. */
  async overdueCount(ms: number): Promise<number> {
    const [r] = await this.db.rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM applicants.data_subject_requests
        WHERE status = 'pending' AND created_at < now() - make_interval(secs => $1::double precision / 1000)`,
      [ms],
    );
    return r?.n ?? 0;
  }

  /** Records one step's result, so that a resumed run does not repeat it. */
  async recordStep(id: string, step: string, result: DsarStepResult): Promise<void> {
    await this.db.rows(`UPDATE applicants.data_subject_requests SET steps = steps || jsonb_build_object($2::text, $3::jsonb) WHERE id = $1`, [
      id,
      step,
      JSON.stringify(result),
    ]);
  }

  /** Counts a failed try and gives the request back, to be tried again after `delayMs`. */
  async release(row: ClaimedDsar, delayMs: number, error: string): Promise<void> {
    await this.jobs.retryLater(row, delayMs, error);
  }

  /**
   * Completes an access request with its export, unless the applicant was erased since `since` (the export may
   * hold what the erasure removed): then nothing is written and the answer is false.
   */
  async completeAccess(row: ClaimedDsar, exported: DsarExport): Promise<boolean> {
    const rows = await this.db.rows(
      `UPDATE applicants.data_subject_requests d
          SET status = 'completed', export = $2, completed_at = now(), lease = NULL, leased_at = NULL, last_error = NULL
        WHERE d.id = $1 AND d.lease = $4 AND d.status = 'pending'
          AND NOT EXISTS (SELECT 1 FROM applicants.applicants a
                           WHERE a.id = d.applicant_id AND a.org_id = d.org_id AND a.mode = d.mode AND a.erased_at >= $3)
       RETURNING d.id`,
      [row.id, JSON.stringify(exported), row.claimed_at, row.lease],
    );
    return rows.length > 0;
  }

  async completeErasure(row: ClaimedDsar, certificate: string, completedAt: Date): Promise<void> {
    await this.db.rows(
      `UPDATE applicants.data_subject_requests
          SET status = 'completed', certificate = $2, completed_at = $3, lease = NULL, leased_at = NULL, last_error = NULL
        WHERE id = $1 AND lease = $4 AND status = 'pending'`,
      [row.id, certificate, completedAt, row.lease],
    );
  }

  /** Erasure's own step: the applicant's personal fields and every export of it, in one transaction. */
  async eraseApplicant(owner: Owner, applicantId: string): Promise<ErasureCounts> {
    return this.db.tx(async (q) => {
      const applicants = await q.rows(
        `UPDATE applicants.applicants
            SET family_name = NULL, given_names = NULL, name_suffix = NULL, email = NULL, phone = NULL,
                date_of_birth = NULL, address = NULL, external_id = NULL, erased_at = coalesce(erased_at, now())
          WHERE id = $1 AND org_id = $2 AND mode = $3
            AND (family_name IS NOT NULL OR given_names IS NOT NULL OR name_suffix IS NOT NULL OR email IS NOT NULL
                 OR phone IS NOT NULL OR date_of_birth IS NOT NULL OR address IS NOT NULL OR external_id IS NOT NULL)
          RETURNING id`,
        [applicantId, owner.org_id, owner.mode],
      );
      const exports = await q.rows(
        `UPDATE applicants.data_subject_requests SET export = NULL
          WHERE applicant_id = $1 AND org_id = $2 AND mode = $3 AND export IS NOT NULL RETURNING id`,
        [applicantId, owner.org_id, owner.mode],
      );
      return { applicant: applicants.length, access_exports: exports.length };
    });
  }

  /** The test-data purge: every test-mode applicant and request of the organization. */
  async purgeTestData(orgId: string): Promise<Record<string, number>> {
    return this.db.tx(async (q) => {
      const requests = await q.rows(`DELETE FROM applicants.data_subject_requests WHERE org_id = $1 AND mode = 'test' RETURNING id`, [orgId]);
      const applicants = await q.rows(`DELETE FROM applicants.applicants WHERE org_id = $1 AND mode = 'test' RETURNING id`, [orgId]);
      return { applicants: applicants.length, data_subject_requests: requests.length };
    });
  }
}
