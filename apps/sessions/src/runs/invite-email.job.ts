import { Inject, Injectable } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { newId } from '@verity/keys';
import { CONFIG, isPassingFailure, JobHost, type JobWorker, LOGGER, type Logger, retryDelay, RpcClient } from '@verity/platform';
import type { SessionsConfig } from '../config.js';
import { EmailLogRepository } from '../emails/email-log.repository.js';
import { INVITE_TEMPLATE, inviteMessage, inviteMessageId } from '../emails/invite.js';
import { Mailer } from '../emails/mailer.js';
import { captureLink, type CaptureLinks } from '../sessions/capture-link.js';
import { SessionsRepository } from '../sessions/sessions.repository.js';
import { JOB_RETRY, SessionJobs, type SessionJob } from './session-jobs.js';

/** Invitations sent at once per process. */
const SLOTS = 2;

/**
 * The invitation email of a live session (docs/sessions.md), an `invite_email` job queued with the session. Claimed
 * with a lease, it reads the session and asks applicants for the address with no transaction open, sends, then
 * records the outcome and ends the job in one short transaction that checks the lease. Its Message-ID comes from its
 * email-log row, so should the process die between the mail server's acceptance and the record (the lease then
 * runs out and another worker sends again), the copy is the same message, which mail systems recognise. A session
 * that moved on, has no address or no link is settled `skipped`; a recipient the mail server refuses (5xx), or the
 * retries used up, `failed`.
 */
@Injectable()
export class InviteEmailJob extends JobHost {
  protected readonly runner: JobWorker<SessionJob>;
  private readonly links: CaptureLinks;

  constructor(
    private readonly jobs: SessionJobs,
    private readonly repo: SessionsRepository,
    private readonly emails: EmailLogRepository,
    private readonly mailer: Mailer,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(CONFIG) private readonly cfg: SessionsConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    super();
    this.links = { baseUrl: cfg.CAPTURE_BASE_URL, secretKey: cfg.CAPTURE_SECRET_KEY };
    this.runner = jobs.worker('invite_email', SLOTS, {
      label: 'invitation',
      run: (j) => this.run(j),
      giveUp: (j) => this.settle(j, 'failed'),
      // a recipient the mail server refuses (5xx) is refused again
      passing: (err) => isPassingFailure(err) && !(Number((err as { responseCode?: unknown }).responseCode) >= 500),
    });
  }

  private async run(job: SessionJob): Promise<void> {
    const db = this.jobs.db;
    const s = await this.repo.findForJob(db, job.session_id);
    if (!s) return this.jobs.drop(job);
    if (s.status !== 'pending') return this.settle(job, 'skipped');
    const applicant = await this.rpc.call(SUBJECTS.applicantsGet, { id: s.applicant_id }, { principal: job.principal, requestId: newId('request') });
    if (!applicant.email) return this.settle(job, 'skipped');
    const { url } = captureLink(s, this.links);
    if (!url) return this.settle(job, 'skipped');
    // settled meanwhile (the applicant was erased): nothing goes out
    const emailId = await this.emails.pendingId(db, s.id, INVITE_TEMPLATE);
    if (!emailId) return this.jobs.drop(job);
    await this.mailer.send({ to: applicant.email, messageId: inviteMessageId(emailId, this.cfg.SMTP_FROM), ...inviteMessage(url), template: INVITE_TEMPLATE, sessionId: s.id });
    await this.settle(job, 'sent');
  }

  /**
   * Records the invitation's outcome and ends its job. After a send, a database that does not answer is asked
   * again (the email is not sent again while this process lives).
   */
  private async settle(job: SessionJob, status: 'sent' | 'failed' | 'skipped'): Promise<void> {
    for (let i = 1; ; i++) {
      try {
        // the job first (`settle` locks it), then its email row: the order every other writer of both takes (no deadlock with an erasure)
        await this.jobs.settle(job, (q) => this.emails.settle(q, job.session_id, INVITE_TEMPLATE, status));
        return;
      } catch (e) {
        const delay = retryDelay(JOB_RETRY, i);
        if (status !== 'sent' || delay === null || this.runner.stopping) throw e;
        this.log.warn({ err: e, job: job.id, session_id: job.session_id }, 'invitation sent but not yet recorded; retrying');
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}
