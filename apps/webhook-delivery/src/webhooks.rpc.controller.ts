import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { requirePrincipal, RpcServer } from '@verity/platform';
import { AttemptsService } from './attempts/attempts.service.js';
import { ReplayService } from './delivery/replay.service.js';
import { SubscriptionsService } from './subscriptions/subscriptions.service.js';

@Injectable()
export class WebhooksRpcController implements OnApplicationBootstrap {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    private readonly attempts: AttemptsService,
    private readonly subscriptions: SubscriptionsService,
    private readonly replays: ReplayService,
  ) {}

  onApplicationBootstrap(): void {
    // the delivery log, for API clients through the gateway
    this.server.handle(SUBJECTS.webhookAttemptsList, (p, ctx) => this.attempts.list(requirePrincipal(ctx), p));
    // operator commands (admin CLI)
    this.server.handle(SUBJECTS.webhookSubscriptionCreate, (p, ctx) => this.subscriptions.create(p, ctx));
    this.server.handle(SUBJECTS.webhookSubscriptionList, (p) => this.subscriptions.list(p));
    this.server.handle(SUBJECTS.webhookSubscriptionDisable, (p) => this.subscriptions.disable(p.subscription_id));
    this.server.handle(SUBJECTS.webhookSubscriptionRotateSecret, (p) => this.subscriptions.rotateSecret(p.subscription_id));
    this.server.handle(SUBJECTS.webhookReplay, (p) => this.replays.replay(p));
  }
}
