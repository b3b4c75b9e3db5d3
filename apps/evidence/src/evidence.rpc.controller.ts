import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { requirePrincipal, RpcServer } from '@verity/platform';
import { EvidenceService } from './artifacts/evidence.service.js';
import { CaptureService } from './capture/capture.service.js';

@Injectable()
export class EvidenceRpcController implements OnApplicationBootstrap {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    private readonly evidence: EvidenceService,
    private readonly capture: CaptureService,
  ) {}

  onApplicationBootstrap(): void {
    this.server.handle(SUBJECTS.evidenceStoreSynthetic, (p, ctx) => this.evidence.storeSynthetic(requirePrincipal(ctx), p));
    this.server.handle(SUBJECTS.evidenceAvailable, (p, ctx) => this.evidence.available(requirePrincipal(ctx), p.session_id));
    this.server.handle(SUBJECTS.evidenceCaptureImages, (p, ctx) => this.capture.images(requirePrincipal(ctx), p.session_id));
    this.server.handle(SUBJECTS.evidenceCaptureVerify, (p, ctx) => this.capture.verify(requirePrincipal(ctx), p, ctx.deadline));
    // operator tooling: no principal
    this.server.handle(SUBJECTS.evidenceActivityList, (p) => this.evidence.listActivity(p));
  }
}
