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

  private inFlight: Promise<Readiness> | null = null;
  private cached: { at: number; value: Readiness } | null = null;

  /**
   * 200 only when every service of the region answers; Redis being away degrades but does not fail readiness.
   * One fan-out serves every caller while it runs and for HEALTH_CACHE_MS after, so a flood of probes costs the
   * services at most one ping each per period. The answer names each service with `ok` or `down`, nothing more.
   */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const r = await this.readiness();
    reply.code(r.allUp ? 200 : 503).header('cache-control', 'no-store');
    return r.body;
  }

  private readiness(): Promise<Readiness> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < this.cfg.HEALTH_CACHE_MS) return Promise.resolve(this.cached.value);
    if (!this.inFlight) {
      this.inFlight = this.fanOut()
        .then((value) => {
          this.cached = { at: Date.now(), value };
          return value;
        })
        .finally(() => (this.inFlight = null));
    }
    return this.inFlight;
  }

  private async fanOut(): Promise<Readiness> {
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
    return {
      allUp,
      body: { status: allUp ? (redis === 'ok' ? 'ok' : 'degraded') : 'unavailable', services: Object.fromEntries(services), redis },
    };
  }
}

interface Readiness {
  allUp: boolean;
  body: { status: 'ok' | 'degraded' | 'unavailable'; services: Record<string, 'ok' | 'down'>; redis: 'ok' | 'down' };
}
