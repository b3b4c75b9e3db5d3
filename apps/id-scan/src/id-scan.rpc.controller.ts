import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CONSOLE_ACTION_ROLES, SUBJECTS } from '@verity/contracts';
import { requireConsolePerson, requireOperator, RpcServer } from '@verity/platform';
import { ScanService } from './scan/scan.service.js';

@Injectable()
export class IdScanRpcController implements OnApplicationBootstrap {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    private readonly scans: ScanService,
  ) {}

  onApplicationBootstrap(): void {
    // operator tooling: no principal
    this.server.handle(SUBJECTS.idScanAuditList, (p) => this.scans.listAudit(p));
    this.server.handle(SUBJECTS.idScanPurgeTestData, (p, ctx) => this.scans.purgeTestData(p, requireOperator(ctx)));
    // the console's Test data page, for the organization of the principal it signed
    this.server.handle(SUBJECTS.idScanConsolePurgeTestData, (_p, ctx) =>
      this.scans.purgeTestData({ org_id: requireConsolePerson(ctx, CONSOLE_ACTION_ROLES.testData).principal.org_id }, ctx),
    );
  }
}
