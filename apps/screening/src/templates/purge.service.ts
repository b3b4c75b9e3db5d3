import { Inject, Injectable } from '@nestjs/common';
import { EVENTS, type PurgeTestDataReply, type PurgeTestDataRequest } from '@verity/contracts';
import { assertBeforeDeadline, purgeTarget, RpcClient, type RpcContext } from '@verity/platform';
import { EvaluationService } from '../evaluation/evaluation.service.js';
import { TemplatesRepository } from './templates.repository.js';

/**
 * The test-data purge (operator, docs/privacy.md): the organization's test-mode workflow templates and their
 * versions, gone for good. After the commit, this process's compiled rule sets of them are dropped, and a
 * template-changed event per template makes the sessions service drop its cached pins.
 */
@Injectable()
export class TemplatesPurgeService {
  constructor(
    private readonly repo: TemplatesRepository,
    private readonly evaluation: EvaluationService,
    @Inject(RpcClient) private readonly rpc: RpcClient,
  ) {}

  async purgeTestData(req: PurgeTestDataRequest, ctx: RpcContext): Promise<PurgeTestDataReply> {
    const orgId = purgeTarget(req);
    assertBeforeDeadline(ctx);
    const { ids, ...removed } = await this.repo.purgeTestData(orgId, () => assertBeforeDeadline(ctx));
    const owner = { org_id: orgId, mode: 'test' as const };
    this.evaluation.forgetOwner(owner);
    for (const id of ids) this.rpc.publish(EVENTS.templateChanged, { template_id: id, ...owner });
    return { removed };
  }
}
