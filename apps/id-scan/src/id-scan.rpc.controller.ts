import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { requireOperator, RpcServer } from '@verity/platform';
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
  }
}
