import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CONSOLE_ACTION_ROLES, SUBJECTS } from '@verity/contracts';
import { requireConsolePerson, requireOperator, requirePrincipal, RpcServer } from '@verity/platform';
import { EvidenceService } from './artifacts/evidence.service.js';
import { CaptureService } from './capture/capture.service.js';
import { PrivacyService } from './privacy/privacy.service.js';

@Injectable()
export class EvidenceRpcController implements OnApplicationBootstrap {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    private readonly evidence: EvidenceService,
    private readonly capture: CaptureService,
    private readonly privacy: PrivacyService,
  ) {}

  onApplicationBootstrap(): void {
    this.server.handle(SUBJECTS.evidenceStoreSynthetic, (p, ctx) => this.evidence.storeSynthetic(requirePrincipal(ctx), p));
    this.server.handle(SUBJECTS.evidenceAvailable, (p, ctx) => this.evidence.available(requirePrincipal(ctx), p.session_id));
    this.server.handle(SUBJECTS.evidenceCaptureVerify, (p, ctx) => this.capture.verify(requirePrincipal(ctx), p, ctx.deadline));
    // the gateway, for a capture's client secret: one stored image checked while the applicant waits
    this.server.handle(SUBJECTS.evidenceCaptureCheck, (p, ctx) => this.capture.check(requirePrincipal(ctx), p, ctx.deadline));
    // data subject requests (the applicants service, with the requesting key's principal)
    this.server.handle(SUBJECTS.evidencePrivacyExport, (p, ctx) => this.privacy.export(requirePrincipal(ctx), p));
    this.server.handle(SUBJECTS.evidencePrivacyErase, (p, ctx) => this.privacy.erase(requirePrincipal(ctx), p));
    // operator tooling: no principal
    this.server.handle(SUBJECTS.evidenceActivityList, (p) => this.evidence.listActivity(p));
    this.server.handle(SUBJECTS.evidencePurgeTestData, async (p, ctx) => {
      requireOperator(ctx);
      return this.privacy.purgeTestData(p);
    });
    // the console, for the organization of the principal it signed, whatever the request says
    this.server.handle(SUBJECTS.evidenceConsoleActivityList, (p, ctx) => {
      const { principal } = requireConsolePerson(ctx, CONSOLE_ACTION_ROLES.logs);
      return this.evidence.listActivity({ org_id: principal.org_id, ...(p?.limit !== undefined ? { limit: p.limit } : {}) });
    });
    this.server.handle(SUBJECTS.evidenceConsolePurgeTestData, (_p, ctx) => this.privacy.purgeTestData({ org_id: requireConsolePerson(ctx, CONSOLE_ACTION_ROLES.testData).principal.org_id }));
  }
}
