import { Module, type DynamicModule, type OnApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { subjectRoot } from '@verity/contracts';
import { CONFIG, LOGGER, NATS, PrincipalSigner, REDIS, RpcClient, shutdownTracing, type Logger } from '@verity/platform';
import type { Redis } from 'ioredis';
import { AccessService } from './access/access.service.js';
import { CaptureController } from './capture/capture.controller.js';
import { CapturePageController } from './capture/capture-page.controller.js';
import { RateLimiter } from './access/rate-limiter.js';
import { Routes } from './access/routes.js';
import { ApplicantsController } from './applicants/applicants.controller.js';
import type { GatewayConfig } from './config.js';
import { ErrorDocsController } from './docs/error-docs.controller.js';
import { HealthController } from './health/health.controller.js';
import { MeController } from './me/me.controller.js';
import { OpenApiController } from './openapi/openapi.controller.js';
import { ReferenceController } from './openapi/reference.controller.js';
import { DataSubjectRequestsController } from './privacy/data-subject-requests.controller.js';
import { ErasureKeysController } from './privacy/erasure-keys.controller.js';
import { SessionsController } from './sessions/sessions.controller.js';
import { IdScanController } from './streams/id-scan.controller.js';
import { IdvImageController } from './streams/idv-image.controller.js';
import { StreamProxy } from './streams/stream-proxy.js';
import { WebhookEventsController } from './webhooks/webhook-events.controller.js';
import { WorkflowTemplatesController } from './workflow-templates/workflow-templates.controller.js';

@Injectable()
class GatewayLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.nc.drain().catch(() => undefined);
    this.redis.disconnect();
    // the spans still waiting for their batch leave now (tracing on)
    await shutdownTracing();
  }
}

/** Every controller of the gateway: their `@Route` declarations are its route table. */
export const GATEWAY_CONTROLLERS = [
  HealthController,
  MeController,
  ApplicantsController,
  WorkflowTemplatesController,
  SessionsController,
  WebhookEventsController,
  IdScanController,
  IdvImageController,
  CaptureController,
  CapturePageController,
  DataSubjectRequestsController,
  ErasureKeysController,
  ErrorDocsController,
  OpenApiController,
  ReferenceController,
];

@Module({})
export class GatewayModule {
  static forRoot(cfg: GatewayConfig, log: Logger, nc: NatsConnection, redis: Redis): DynamicModule {
    return {
      module: GatewayModule,
      controllers: GATEWAY_CONTROLLERS,
      providers: [
        { provide: CONFIG, useValue: cfg },
        { provide: LOGGER, useValue: log },
        { provide: NATS, useValue: nc },
        { provide: REDIS, useValue: redis },
        {
          provide: RpcClient,
          // every principal it attaches is signed as the gateway's (docs/security.md, "The bus's trust boundary")
          useFactory: () =>
            new RpcClient(nc, subjectRoot(cfg.REGION, cfg.NATS_SUBJECT_PREFIX), cfg.RPC_TIMEOUT_MS, { signer: new PrincipalSigner('gateway', cfg.PRINCIPAL_SIGNING_KEY) }),
        },
        { provide: Routes, useValue: Routes.of(GATEWAY_CONTROLLERS) },
        { provide: RateLimiter, useFactory: () => new RateLimiter(redis, cfg.REDIS_KEY_PREFIX, log) },
        AccessService,
        StreamProxy,
        GatewayLifecycle,
      ],
    };
  }
}
