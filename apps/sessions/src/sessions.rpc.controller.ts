import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CONSOLE_ACTION_ROLES, CONSOLE_ROLES, SUBJECTS } from '@verity/contracts';
import { requireConsolePerson, requireOperator, requirePrincipal, RpcServer } from '@verity/platform';
import { CaptureService } from './capture/capture.service.js';
import { PrivacyService } from './privacy/privacy.service.js';
import { SessionsService } from './sessions/sessions.service.js';
import { UsageService } from './usage/usage.service.js';

@Injectable()
export class SessionsRpcController implements OnApplicationBootstrap {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    private readonly sessions: SessionsService,
    private readonly capture: CaptureService,
    private readonly privacy: PrivacyService,
    private readonly usage: UsageService,
  ) {}

  onApplicationBootstrap(): void {
    this.server.handle(SUBJECTS.sessionsCreate, (p, ctx) => this.sessions.create(requirePrincipal(ctx), p.body, ctx));
    this.server.handle(SUBJECTS.sessionsGet, (p, ctx) => this.sessions.get(requirePrincipal(ctx), p.id, ctx));
    this.server.handle(SUBJECTS.sessionsList, (p, ctx) => this.sessions.list(requirePrincipal(ctx), p));
    this.server.handle(SUBJECTS.sessionsNote, (p, ctx) => this.sessions.note(requirePrincipal(ctx), p.id, p.body, ctx));
    this.server.handle(SUBJECTS.sessionsCancel, (p, ctx) => this.sessions.cancel(requirePrincipal(ctx), p.id, p.body, ctx));
    this.server.handle(SUBJECTS.sessionsReview, (p, ctx) => this.sessions.review(requirePrincipal(ctx), p.id, p.body, ctx));
    this.server.handle(SUBJECTS.sessionsDecision, (p, ctx) => this.sessions.decision(requirePrincipal(ctx), p.id, p.body, ctx));
    // the console's verification page
    this.server.handle(SUBJECTS.sessionsTimeline, (p, ctx) => this.sessions.timeline(requirePrincipal(ctx), p.id));
    this.server.handle(SUBJECTS.sessionsWatchlistHits, (p, ctx) => this.sessions.watchlistHits(requirePrincipal(ctx), p.id));
    this.server.handle(SUBJECTS.sessionsWatchlistDecide, (p, ctx) => this.sessions.decideWatchlistHit(requirePrincipal(ctx), p.id, p.finding_id, p.body, ctx));
    // the capture flow: the gateway on behalf of a client secret (no principal; the caller is in the request)
    this.server.handle(SUBJECTS.sessionsCaptureResolve, (p) => this.capture.resolve(p));
    this.server.handle(SUBJECTS.sessionsCaptureGet, (p) => this.capture.get(p));
    this.server.handle(SUBJECTS.sessionsCaptureImageStored, (p) => this.capture.imageStored(p));
    this.server.handle(SUBJECTS.sessionsCaptureSubmit, (p, ctx) => this.capture.submit(p, ctx));
    this.server.handle(SUBJECTS.sessionsCaptureSkip, (p, ctx) => this.capture.skip(p, ctx));
    // a data subject request's steps, with the request's principal (docs/privacy.md)
    this.server.handle(SUBJECTS.sessionsPrivacyExport, (p, ctx) => this.privacy.export(requirePrincipal(ctx), p, ctx));
    this.server.handle(SUBJECTS.sessionsPrivacyErase, (p, ctx) => this.privacy.erase(requirePrincipal(ctx), p, ctx));
    // operator tooling: no principal, the organization is named in the request
    this.server.handle(SUBJECTS.sessionsEmailLog, async (p) => this.sessions.emailLog(p));
    this.server.handle(SUBJECTS.sessionsPurgeTestData, async (p, ctx) => {
      requireOperator(ctx);
      return this.privacy.purgeTestData(p, ctx);
    });
    // the console's usage page: the metering counters, kept when test data is purged
    this.server.handle(SUBJECTS.sessionsUsage, async (p, ctx) => {
      requireOperator(ctx);
      return this.usage.usage(p);
    });
    // the console, for the organization (and mode) of the principal it signed, whatever the request says
    this.server.handle(SUBJECTS.sessionsConsoleUsage, (p, ctx) => {
      const { principal } = requireConsolePerson(ctx, CONSOLE_ACTION_ROLES.usage);
      return this.usage.usage({ org_id: principal.org_id, from: p?.from, to: p?.to });
    });
    this.server.handle(SUBJECTS.sessionsConsoleEmailLog, (p, ctx) => {
      const { principal } = requireConsolePerson(ctx, CONSOLE_ACTION_ROLES.logs);
      return this.sessions.emailLog({ org_id: principal.org_id, mode: principal.mode, ...(p?.limit !== undefined ? { limit: p.limit } : {}) });
    });
    // the verifications list and the review queue (every role; the queue's roles are the console's own page check)
    this.server.handle(SUBJECTS.sessionsConsoleList, (p, ctx) => this.sessions.consoleList(requireConsolePerson(ctx, CONSOLE_ROLES).principal, p));
    this.server.handle(SUBJECTS.sessionsConsolePurgeTestData, (_p, ctx) => {
      const { principal } = requireConsolePerson(ctx, CONSOLE_ACTION_ROLES.testData);
      return this.privacy.purgeTestData({ org_id: principal.org_id }, ctx);
    });
  }
}
