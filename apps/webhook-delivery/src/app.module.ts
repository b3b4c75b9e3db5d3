import { Module } from '@nestjs/common';
import { CONFIG, LOGGER, type Logger, type ServiceConfig } from '@verity/platform';
import { AttemptsRepository } from './attempts/attempts.repository.js';
import { AttemptsService } from './attempts/attempts.service.js';
import { WEBHOOK_CONFIG, webhookConfigOf, type WebhookConfig } from './config.js';
import { DeliveriesRepository } from './delivery/deliveries.repository.js';
import { DeliveryQueue } from './delivery/delivery.queue.js';
import { DeliverySweeper } from './delivery/delivery.sweeper.js';
import { DeliveryWorker } from './delivery/delivery.worker.js';
import { DestinationGuard, resolverOf } from './delivery/receiver.client.js';
import { SenderThread } from './delivery/sender.js';
import { ATTEMPT_TIMEOUT_MS } from './delivery/retry-schedule.js';
import { PurgeService } from './delivery/purge.service.js';
import { ReplayService } from './delivery/replay.service.js';
import { EventFanout } from './fanout/event-fanout.js';
import { SecretBox } from './subscriptions/secret-box.js';
import { SubscriptionsRepository } from './subscriptions/subscriptions.repository.js';
import { SubscriptionsService } from './subscriptions/subscriptions.service.js';
import { WebhooksRpcController } from './webhooks.rpc.controller.js';
import { WebhookMetricsSamplers } from './delivery/metrics-samplers.js';

@Module({
  providers: [
    { provide: WEBHOOK_CONFIG, inject: [CONFIG], useFactory: (cfg: ServiceConfig) => webhookConfigOf(cfg) },
    { provide: SecretBox, inject: [WEBHOOK_CONFIG], useFactory: (cfg: WebhookConfig) => SecretBox.fromBase64(cfg.WEBHOOK_SECRET_KEY) },
    { provide: DestinationGuard, inject: [WEBHOOK_CONFIG], useFactory: (cfg: WebhookConfig) => new DestinationGuard(cfg.WEBHOOK_ALLOW_PRIVATE_NETWORKS, resolverOf(cfg.WEBHOOK_DNS_SERVERS)) },
    {
      provide: SenderThread,
      inject: [WEBHOOK_CONFIG, LOGGER],
      useFactory: (cfg: WebhookConfig, log: Logger) => new SenderThread({ allowPrivateNetworks: cfg.WEBHOOK_ALLOW_PRIVATE_NETWORKS, dnsServers: cfg.WEBHOOK_DNS_SERVERS, timeoutMs: ATTEMPT_TIMEOUT_MS }, log),
    },
    SubscriptionsRepository,
    DeliveriesRepository,
    AttemptsRepository,
    DeliveryQueue,
    DeliveryWorker,
    DeliverySweeper,
    WebhookMetricsSamplers,
    EventFanout,
    SubscriptionsService,
    AttemptsService,
    ReplayService,
    PurgeService,
    WebhooksRpcController,
  ],
})
export class WebhookDeliveryModule {}
