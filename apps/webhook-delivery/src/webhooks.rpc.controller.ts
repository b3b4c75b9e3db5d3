import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { requireOperator, requirePrincipal, RpcServer } from '@verity/platform';
import { AttemptsService } from './attempts/attempts.service.js';
import { DeliveryOperations } from './delivery/operations.js';
import { SubscriptionsService } from './subscriptions/subscriptions.service.js';

@Injectable()
export class WebhooksRpcController implements OnApplicationBootstrap {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    private readonly attempts: AttemptsService,
    private readonly subscriptions: SubscriptionsService,
    private readonly operations: DeliveryOperations,
  ) {}

  onApplicationBootstrap(): void {
    // the delivery log, for API clients through the gateway
    this.server.handle(SUBJECTS.webhookAttemptsList, (p, ctx) => this.attempts.list(requirePrincipal(ctx), p));
    // a data subject request's export (the applicants service, with the request's principal)
    this.server.handle(SUBJECTS.webhooksPrivacyExport, (p, ctx) => this.attempts.export(requirePrincipal(ctx), p));
    // operator commands (admin CLI)
    this.server.handle(SUBJECTS.webhookSubscriptionCreate, (p, ctx) => this.subscriptions.create(p, ctx));
    this.server.handle(SUBJECTS.webhookSubscriptionList, (p) => this.subscriptions.list(p));
    this.server.handle(SUBJECTS.webhookSubscriptionDisable, (p) => this.subscriptions.disable(p.subscription_id));
    this.server.handle(SUBJECTS.webhookSubscriptionRotateSecret, (p) => this.subscriptions.rotateSecret(p.subscription_id));
    this.server.handle(SUBJECTS.webhookReplay, (p) => this.operations.replay(p));
    this.server.handle(SUBJECTS.webhooksPurgeTestData, (p, ctx) => this.operations.purgeTestData(p, requireOperator(ctx)));
  }
}
