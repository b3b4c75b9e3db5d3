import { Injectable } from '@nestjs/common';
import type { PurgeTestDataReply, PurgeTestDataRequest } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { isId } from '@verity/keys';
import { assertBeforeDeadline, type RpcContext } from '@verity/platform';
import { DeliveriesRepository } from './deliveries.repository.js';

/**
 * The test-data purge (operator, docs/privacy.md): every test-mode delivery and attempt of the organization,
 * gone for good. Subscriptions stay: they are the organization's configuration, like its keys.
 */
@Injectable()
export class PurgeService {
  constructor(private readonly deliveries: DeliveriesRepository) {}

  async purgeTestData(req: PurgeTestDataRequest, ctx: RpcContext): Promise<PurgeTestDataReply> {
    const orgId: unknown = req?.org_id;
    if (!isId('org', orgId)) throw DomainError.validation([{ code: 'invalid_string', message: 'org_id must be an organization id', path: ['org_id'] }]);
    assertBeforeDeadline(ctx);
    return { removed: await this.deliveries.purgeTestData(orgId, () => assertBeforeDeadline(ctx)) };
  }
}
