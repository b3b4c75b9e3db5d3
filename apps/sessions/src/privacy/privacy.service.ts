import { Injectable } from '@nestjs/common';
import type {
  Principal,
  PrivacyEraseRequest,
  PrivacyExportRequest,
  PurgeTestDataReply,
  PurgeTestDataRequest,
  SessionsEraseReply,
  SessionsExportReply,
} from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { isId } from '@verity/keys';
import { assertBeforeDeadline, purgeTarget, type RpcContext } from '@verity/platform';
import { EmailLogRepository } from '../emails/email-log.repository.js';
import { Outbox } from '../events/outbox.js';
import { SessionsService } from '../sessions/sessions.service.js';
import { PrivacyRepository } from './privacy.repository.js';

/**
 * The applicant a data subject request names. Not a string: 422. A string that is no applicant id names no one
 * (answered like an unknown applicant, as the list filter does): null.
 */
function applicantIdOf(req: PrivacyExportRequest | PrivacyEraseRequest | null | undefined): string | null {
  const id: unknown = req?.applicant_id;
  if (typeof id !== 'string') {
    throw DomainError.validation([{ code: 'invalid_type', message: 'applicant_id must be a string', path: ['applicant_id'] }]);
  }
  return isId('applicant', id) ? id : null;
}

/**
 * A data subject request's steps in the sessions service (docs/privacy.md), with the request's principal: every
 * record is the principal's organization and mode only. The session ids of the applicant come from here (the
 * request's `session_ids` are not read). And the operator's purge of an organization's test data.
 */
@Injectable()
export class PrivacyService {
  constructor(
    private readonly repo: PrivacyRepository,
    private readonly emails: EmailLogRepository,
    private readonly sessions: SessionsService,
    private readonly outbox: Outbox,
  ) {}

  /** `sessions.privacy.export.v1`: the applicant's sessions, read as GET /v1/sessions/{id} answers them, and their emails. */
  async export(p: Principal, req: PrivacyExportRequest, ctx: RpcContext): Promise<SessionsExportReply> {
    const applicantId = applicantIdOf(req);
    const rows = applicantId ? await this.repo.sessionsOf(p, applicantId) : [];
    const ids = rows.map((r) => r.id);
    const [sessions, emailLog] = await Promise.all([Promise.all(rows.map((r) => this.sessions.read(p, r, ctx))), this.emails.ofSessions(ids)]);
    return { sessions, email_log: emailLog, session_ids: ids };
  }

  /**
   * `sessions.privacy.erase.v1`: the applicant's personal data in every session of the principal's, in one
   * transaction (PrivacyRepository.eraseSessions); a session still waiting for the applicant is cancelled, with
   * its event. Idempotent: a repeated run counts zero and names the same sessions.
   */
  async erase(p: Principal, req: PrivacyEraseRequest, ctx: RpcContext): Promise<SessionsEraseReply> {
    const applicantId = applicantIdOf(req);
    const out = await this.repo.db.tx(async (q) => {
      const ids = applicantId ? await this.repo.lockSessionsOf(q, p, applicantId) : [];
      const now = new Date();
      const { sessions, counts } = await this.repo.eraseSessions(q, p, ids, now);
      for (const s of sessions) if (s.cancelled) await this.outbox.add(q, s, now);
      // the counts are what the caller records: nothing commits once it stopped waiting
      assertBeforeDeadline(ctx);
      return { erased: counts, session_ids: ids, cancelled: sessions.some((s) => s.cancelled) };
    });
    if (out.cancelled) this.outbox.kick();
    return { erased: out.erased, session_ids: out.session_ids };
  }

  /** `sessions.admin.purge-test-data.v1` (operator): every test-mode row of the organization, in one transaction. */
  async purgeTestData(req: PurgeTestDataRequest, ctx: RpcContext): Promise<PurgeTestDataReply> {
    const orgId = purgeTarget(req);
    const removed = await this.repo.db.tx(async (q) => {
      const counts = await this.repo.purgeTestData(q, orgId);
      assertBeforeDeadline(ctx);
      return counts;
    });
    return { removed };
  }
}
