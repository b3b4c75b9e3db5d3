import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CONSOLE_ACTION_ROLES, CONSOLE_ROLES, SUBJECTS } from '@verity/contracts';
import { requireConsolePerson, requireOperator, requirePrincipal, RpcServer } from '@verity/platform';
import { ApplicantsService } from './applicants/applicants.service.js';
import { DsarService } from './privacy/dsar.service.js';

@Injectable()
export class ApplicantsRpcController implements OnApplicationBootstrap {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    private readonly applicants: ApplicantsService,
    private readonly dsar: DsarService,
  ) {}

  onApplicationBootstrap(): void {
    this.server.handle(SUBJECTS.applicantsCreate, (p, ctx) => this.applicants.create(requirePrincipal(ctx), p.body, ctx));
    this.server.handle(SUBJECTS.applicantsGet, (p, ctx) => this.applicants.get(requirePrincipal(ctx), p.id));
    this.server.handle(SUBJECTS.applicantsList, (p, ctx) => this.applicants.list(requirePrincipal(ctx), p));
    this.server.handle(SUBJECTS.applicantsDsarCreate, (p, ctx) => this.dsar.create(requirePrincipal(ctx), p.body));
    this.server.handle(SUBJECTS.applicantsDsarGet, (p, ctx) => this.dsar.get(requirePrincipal(ctx), p.id));
    this.server.handle(SUBJECTS.applicantsDsarEvidenceEntry, (p, ctx) => this.dsar.evidenceEntry(requirePrincipal(ctx), p.id, p.index));
    // public (the gateway serves the key set without authentication) and operator tooling: no principal
    this.server.handle(SUBJECTS.applicantsErasureKeys, () => Promise.resolve(this.dsar.erasureKeys()));
    this.server.handle(SUBJECTS.applicantsPurgeTestData, async (p, ctx) => {
      requireOperator(ctx);
      return { removed: await this.dsar.purgeTestData(p.org_id) };
    });
    // the console's Test data page, for the organization of the principal it signed
    this.server.handle(SUBJECTS.applicantsConsolePurgeTestData, async (_p, ctx) => ({
      removed: await this.dsar.purgeTestData(requireConsolePerson(ctx, CONSOLE_ACTION_ROLES.testData).principal.org_id),
    }));
    // the console's verifications list and review queue (every role): names of the principal's organization and mode only
    this.server.handle(SUBJECTS.applicantsConsoleNames, (p, ctx) => this.applicants.names(requireConsolePerson(ctx, CONSOLE_ROLES).principal, p));
  }
}
