import { Inject, Injectable } from '@nestjs/common';
import type { ErasureCounts, Owner, SessionOutcome, SessionStatus } from '@verity/contracts';
import type { Mode } from '@verity/keys';
import { Sql, type Queryable } from '@verity/platform';
import { SESSION_COLUMNS, type SessionRow } from '../sessions/sessions.repository.js';

/** What an erased email-log row keeps of its recipient and subject. */
export const ERASED_TEXT = '[erased]';

/**
 * The one text an erasure leaves in a session's metadata: `cancellationReason` of a session it cancelled (it was
 * still waiting for its applicant). A system text, naming no one.
 */
export const ERASURE_CANCELLATION_REASON = 'Cancelled because the personal data of the applicant was erased.';

/** A session an erasure changed; `cancelled` when the erasure also cancelled it (its event is due). */
export interface ErasedSession {
  id: string;
  org_id: string;
  mode: Mode;
  status: SessionStatus;
  outcome: SessionOutcome;
  cancelled: boolean;
}

/** Runs `sql` (a data-modifying statement with `RETURNING 1`) and answers how many rows it touched. */
async function counted(q: Queryable, sql: string, params: unknown[]): Promise<number> {
  const [r] = await q.rows<{ n: number }>(`WITH d AS (${sql}) SELECT count(*)::int AS n FROM d`, params);
  return r?.n ?? 0;
}

/**
 * The data subject's side of the sessions schema (docs/privacy.md): the applicant's sessions for an export, the
 * erasure of the applicant's personal data, and the operator's purge of an organization's test data.
 */
@Injectable()
export class PrivacyRepository {
  constructor(@Inject(Sql) readonly db: Sql) {}

  /** The owner's sessions of an applicant, newest first. */
  async sessionsOf(owner: Owner, applicantId: string): Promise<SessionRow[]> {
    return this.db.rows<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions.sessions WHERE org_id = $1 AND mode = $2 AND applicant_id = $3 ORDER BY seq DESC`,
      [owner.org_id, owner.mode, applicantId],
    );
  }

  /**
   * Locks the owner's sessions of an applicant until the transaction ends (always in one order); their ids, newest
   * first. `NO KEY UPDATE`, the lock the erasure's update takes: a live run in flight, whose rows referencing the
   * session hold a key-share lock on it, does not hold the erasure up; it meets the erasure when it writes the session.
   */
  async lockSessionsOf(q: Queryable, owner: Owner, applicantId: string): Promise<string[]> {
    const rows = await q.rows<{ id: string }>(
      `SELECT id FROM sessions.sessions WHERE org_id = $1 AND mode = $2 AND applicant_id = $3 ORDER BY seq DESC FOR NO KEY UPDATE`,
      [owner.org_id, owner.mode, applicantId],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Removes the personal data of the locked sessions `ids` (of one owner), in `q`. Touches only what still holds
   * some, so a repeated run counts zero. Per session: the caller's metadata, operator notes and every reason go,
   * as do what the capture saw (addresses, browser, signals) and what was read from the document (`idv` keeps the
   * acquisition only; the evidence service answers which images remain); a session still waiting for its applicant
   * is cancelled. Ids, statuses, outcomes, check outcomes and timestamps stay; `erased_at` is set once.
   */
  async eraseSessions(q: Queryable, owner: Owner, ids: readonly string[], now: Date): Promise<{ sessions: ErasedSession[]; counts: ErasureCounts }> {
    // the job before its email row: the order the invitation sender takes them in
    const jobs = await counted(q, `DELETE FROM sessions.jobs WHERE session_id = ANY($1::text[]) AND kind = 'invite_email' RETURNING 1`, [ids]);
    const sessions = await q.rows<ErasedSession>(
      `WITH t AS (
         SELECT id, cancel,
                CASE WHEN cancel OR (status = 'cancelled' AND platform_metadata->>'cancellationReason' = $2)
                     THEN jsonb_build_object('cancellationReason', $2::text) ELSE '{}'::jsonb END AS platform,
                CASE WHEN idv IS NULL THEN NULL
                     ELSE jsonb_build_object('capture_acquisition', idv->'capture_acquisition', 'available_images', '[]'::jsonb) END AS idv
           FROM (SELECT *, status IN ('pending', 'in_progress') AS cancel FROM sessions.sessions WHERE id = ANY($1::text[])) x
       )
       UPDATE sessions.sessions s SET
         status = CASE WHEN t.cancel THEN 'cancelled' ELSE s.status END,
         outcome = CASE WHEN t.cancel THEN NULL ELSE s.outcome END,
         metadata = '{}'::json, platform_metadata = t.platform, decision_reason = NULL, idv = t.idv, capture_context = '{}'::jsonb,
         erased_at = COALESCE(s.erased_at, $3), updated_at = CASE WHEN t.cancel THEN $3 ELSE s.updated_at END
         FROM t
        WHERE s.id = t.id
          AND (t.cancel OR s.erased_at IS NULL OR s.metadata::text <> '{}' OR s.platform_metadata <> t.platform
               OR s.decision_reason IS NOT NULL OR s.idv IS DISTINCT FROM t.idv OR s.capture_context <> '{}'::jsonb)
       RETURNING s.id, s.org_id, s.mode, s.status, s.outcome, t.cancel AS cancelled`,
      [ids, ERASURE_CANCELLATION_REASON, now],
    );
    // a pending invitation will not be sent now
    const emailLog = await counted(
      q,
      `UPDATE sessions.email_log SET recipient = $2, subject = $2, status = CASE WHEN status = 'pending' THEN 'skipped' ELSE status END
        WHERE session_id = ANY($1::text[]) AND (recipient <> $2 OR subject <> $2 OR status = 'pending') RETURNING 1`,
      [ids, ERASED_TEXT],
    );
    // the owner first: these tables' keys begin with it
    const ofOwner = (table: string) =>
      counted(q, `DELETE FROM sessions.${table} WHERE org_id = $1 AND mode = $2 AND session_id = ANY($3::text[]) RETURNING 1`, [owner.org_id, owner.mode, ids]);
    const devices = await ofOwner('devices');
    const documentNumbers = await ofOwner('document_numbers');
    const selfieFingerprints = await ofOwner('selfie_fingerprints');
    // findings describe the person (a list match); the check outcomes and screening's rule trace (names of rules and fields) stay
    const runs = await counted(q, `UPDATE sessions.runs SET findings = '[]'::jsonb WHERE session_id = ANY($1::text[]) AND findings <> '[]'::jsonb RETURNING 1`, [ids]);
    // the reviewers' decisions on those findings (their reasons are about the person) go with them
    await q.rows(`DELETE FROM sessions.watchlist_decisions WHERE session_id = ANY($1::text[])`, [ids]);
    return {
      sessions,
      counts: { sessions: sessions.length, email_log: emailLog, devices, document_numbers: documentNumbers, selfie_fingerprints: selfieFingerprints, jobs, runs },
    };
  }

  /**
   * Deletes every test-mode row of an organization in the sessions schema, in `q`; how many, per table. In-flight
   * test runs hold their job: its deletion waits for them (job before session, the order a run locks them in).
   */
  async purgeTestData(q: Queryable, orgId: string): Promise<Record<string, number>> {
    const testSessions = `SELECT id FROM sessions.sessions WHERE org_id = $1 AND mode = 'test'`;
    let jobs = await counted(q, `DELETE FROM sessions.jobs WHERE session_id IN (${testSessions}) RETURNING 1`, [orgId]);
    const ids = (await q.rows<{ id: string }>(`${testSessions} ORDER BY seq FOR UPDATE`, [orgId])).map((r) => r.id);
    // the jobs of sessions created meanwhile
    jobs += await counted(q, `DELETE FROM sessions.jobs WHERE session_id = ANY($1::text[]) RETURNING 1`, [ids]);
    const bySession = (table: string) => counted(q, `DELETE FROM sessions.${table} WHERE session_id = ANY($1::text[]) RETURNING 1`, [ids]);
    const ofOrg = (table: string) =>
      counted(q, `DELETE FROM sessions.${table} WHERE org_id = $1 AND mode = 'test' AND session_id = ANY($2::text[]) RETURNING 1`, [orgId, ids]);
    const watchlistDecisions = await bySession('watchlist_decisions');
    const runs = await bySession('runs');
    const outbox = await bySession('outbox');
    const emailLog = await bySession('email_log');
    const devices = await ofOrg('devices');
    const documentNumbers = await ofOrg('document_numbers');
    const selfieFingerprints = await ofOrg('selfie_fingerprints');
    const sessions = await counted(q, `DELETE FROM sessions.sessions WHERE id = ANY($1::text[]) RETURNING 1`, [ids]);
    return { sessions, runs, jobs, outbox, email_log: emailLog, devices, document_numbers: documentNumbers, selfie_fingerprints: selfieFingerprints, watchlist_decisions: watchlistDecisions };
  }
}
