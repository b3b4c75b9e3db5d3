import { Controller, Get, Inject, Res } from '@nestjs/common';
import { SUBJECTS, type Health, type Subject } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import type { FastifyReply } from 'fastify';
import { RateLimiter } from '../access/rate-limiter.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';

/** Every service of the region; the gateway is ready only when each of them answers. */
export const REGION_SERVICES: Array<{ name: string; subject: Subject }> = [
  { name: 'accounts', subject: SUBJECTS.accountsHealth },
  { name: 'applicants', subject: SUBJECTS.applicantsHealth },
  { name: 'screening', subject: SUBJECTS.screeningHealth },
  { name: 'sessions', subject: SUBJECTS.sessionsHealth },
  { name: 'webhook-delivery', subject: SUBJECTS.webhooksHealth },
  { name: 'evidence', subject: SUBJECTS.evidenceHealth },
  { name: 'id-scan', subject: SUBJECTS.idScanHealth },
];

@Controller('health')
export class HealthController {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
    @Inject(GATEWAY_CONFIG) private readonly cfg: GatewayConfig,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  /** 200 only when every service of the region answers; Redis being away degrades but does not fail readiness. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const services = await Promise.all(
      REGION_SERVICES.map(async (s) => {
        try {
          const h = (await this.rpc.call(s.subject, {} as never, {
            principal: null,
            requestId: 'req_health',
            timeoutMs: this.cfg.HEALTH_TIMEOUT_MS,
          })) as Health;
          return [s.name, h.status === 'ok' ? 'ok' : 'down'] as const;
        } catch {
          return [s.name, 'down'] as const;
        }
      }),
    );
    const redis = this.limiter.isHealthy && (await this.limiter.ping()) ? 'ok' : 'down';
    const allUp = services.every(([, s]) => s === 'ok');
    reply.code(allUp ? 200 : 503);
    return {
      status: allUp ? (redis === 'ok' ? 'ok' : 'degraded') : 'unavailable',
      region: this.cfg.REGION,
      services: Object.fromEntries(services),
      redis,
    };
  }
}
