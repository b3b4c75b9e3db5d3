import { Module } from '@nestjs/common';
import { CONFIG } from '@verity/platform';
import { DestinationGuard, resolverOf } from '@verity/ssrf';
import { AttemptsRepository } from './attempts/attempts.repository.js';
import { AttemptsService } from './attempts/attempts.service.js';
import type { WebhookConfig } from './config.js';
import { DispatchJob } from './delivery/dispatch.job.js';
import { Fanout } from './delivery/fanout.js';
import { Ledger } from './delivery/ledger.js';
import { DeliveryOperations } from './delivery/operations.js';
import { Sender } from './delivery/sender.js';
import { SecretBox } from './subscriptions/secret-box.js';
import { SubscriptionsRepository } from './subscriptions/subscriptions.repository.js';
import { SubscriptionsService } from './subscriptions/subscriptions.service.js';
import { WebhooksRpcController } from './webhooks.rpc.controller.js';

@Module({
  providers: [
    { provide: SecretBox, inject: [CONFIG], useFactory: (cfg: WebhookConfig) => SecretBox.fromBase64(cfg.WEBHOOK_SECRET_KEY) },
    {
      provide: DestinationGuard,
      inject: [CONFIG],
      useFactory: (cfg: WebhookConfig) => new DestinationGuard(cfg.WEBHOOK_ALLOW_PRIVATE_NETWORKS, resolverOf(cfg.WEBHOOK_DNS_SERVERS)),
    },
    // the delivery pipeline, each stage handing its work to the next: fan-out → dispatcher → sender → ledger
    Fanout,
    DispatchJob,
    Sender,
    Ledger,
    DeliveryOperations,
    SubscriptionsRepository,
    SubscriptionsService,
    AttemptsRepository,
    AttemptsService,
    WebhooksRpcController,
  ],
})
export class WebhookDeliveryModule {}
