import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CONSOLE_ACTION_ROLES, SUBJECTS } from '@verity/contracts';
import { requireConsolePerson, requireOperator, requirePrincipal, RpcServer, type RpcContext } from '@verity/platform';
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
    // the console: the organization and mode of the principal it signed, whatever the request says (owners and admins)
    const caller = (ctx: RpcContext) => requireConsolePerson(ctx, CONSOLE_ACTION_ROLES.webhooks).principal;
    this.server.handle(SUBJECTS.webhooksConsoleSubscriptionCreate, (p, ctx) => {
      const { org_id, mode } = caller(ctx);
      return this.subscriptions.create({ org_id, mode, url: p?.url, event_types: p?.event_types }, ctx);
    });
    this.server.handle(SUBJECTS.webhooksConsoleSubscriptionList, (p, ctx) => {
      const { org_id, mode } = caller(ctx);
      return this.subscriptions.list({ org_id, mode, limit: p?.limit, cursor: p?.cursor });
    });
    this.server.handle(SUBJECTS.webhooksConsoleSubscriptionDisable, async (p, ctx) => {
      const owner = caller(ctx);
      return this.subscriptions.disable((await this.subscriptions.owned(owner, p?.subscription_id)).id);
    });
    this.server.handle(SUBJECTS.webhooksConsoleSubscriptionRotateSecret, async (p, ctx) => {
      const owner = caller(ctx);
      return this.subscriptions.rotateSecret((await this.subscriptions.owned(owner, p?.subscription_id)).id);
    });
    this.server.handle(SUBJECTS.webhooksConsoleReplay, async (p, ctx) => {
      const owner = caller(ctx);
      const sub = await this.subscriptions.owned(owner, p?.subscription_id);
      return this.operations.replay({ subscription_id: sub.id, org_id: owner.org_id, ...(p?.event_id !== undefined ? { event_id: p.event_id } : {}), ...(p?.since !== undefined ? { since: p.since } : {}) });
    });
    this.server.handle(SUBJECTS.webhooksConsolePurgeTestData, (_p, ctx) =>
      this.operations.purgeTestData({ org_id: requireConsolePerson(ctx, CONSOLE_ACTION_ROLES.testData).principal.org_id }, ctx),
    );
  }
}
