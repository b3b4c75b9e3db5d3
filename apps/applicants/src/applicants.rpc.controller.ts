import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { requirePrincipal, RpcServer } from '@verity/platform';
import { ApplicantsService } from './applicants/applicants.service.js';

@Injectable()
export class ApplicantsRpcController implements OnApplicationBootstrap {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    private readonly applicants: ApplicantsService,
  ) {}

  onApplicationBootstrap(): void {
    this.server.handle(SUBJECTS.applicantsCreate, (p, ctx) => this.applicants.create(requirePrincipal(ctx), p.body, ctx));
    this.server.handle(SUBJECTS.applicantsGet, (p, ctx) => this.applicants.get(requirePrincipal(ctx), p.id));
    this.server.handle(SUBJECTS.applicantsList, (p, ctx) => this.applicants.list(requirePrincipal(ctx), p));
  }
}
