import { Controller, Inject, Res } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { SUBJECTS, type Health, type Subject } from '@verity/contracts';
import { CONFIG, NATS, REDIS, RpcClient } from '@verity/platform';
import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { Route } from '../access/routes.js';
import type { GatewayConfig } from '../config.js';
import { gatewayOwnReadiness } from '../observability/internal-port.js';

/** Every service of the region, as readiness reports them. */
export const REGION_SERVICES: Array<{ name: string; subject: Subject }> = [
  { name: 'accounts', subject: SUBJECTS.accountsHealth },
  { name: 'applicants', subject: SUBJECTS.applicantsHealth },
  { name: 'screening', subject: SUBJECTS.screeningHealth },
  { name: 'sessions', subject: SUBJECTS.sessionsHealth },
  { name: 'webhook-delivery', subject: SUBJECTS.webhooksHealth },
  { name: 'evidence', subject: SUBJECTS.evidenceHealth },
  { name: 'id-scan', subject: SUBJECTS.idScanHealth },
];

@Controller()
export class HealthController {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(CONFIG) private readonly cfg: GatewayConfig,
    @Inject(NATS) private readonly nc: NatsConnection,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  @Route('GET /health/live', {
    access: { auth: 'public', ipLimited: false },
    tag: 'Operations',
    summary: 'Liveness',
    description: 'The process is up. No authentication, no limit.',
    success: { status: 200, description: 'Up.', body: { schema: 'HealthLive' } },
  })
  live() {
    return { status: 'ok' };
  }

  private inFlight: Promise<Readiness> | null = null;
  private cached: { at: number; value: Readiness } | null = null;

  /**
   * 200 when this gateway can serve: its own NATS connection answers. A service that is down, or Redis, does not
   * take the gateway out of its load balancer (its routes answer 503 `service_unavailable`, the rate limiter fails
   * open); the body says so: `status` is `ok` when everything answers, `degraded` when a service or Redis does not,
   * `unavailable` (503) when the gateway's NATS does not. Each service and Redis are named `ok` or `down`, nothing
   * more. One fan-out serves every caller while it runs and for HEALTH_CACHE_MS after, so a flood of probes costs
   * the services at most one ping each per period.
   */
  @Route('GET /health/ready', {
    access: { auth: 'public', ipLimited: true },
    tag: 'Operations',
    summary: 'Readiness',
    description:
      "200 while the gateway can serve (its NATS answers), naming each service and Redis `ok` or `down`; `degraded` when one of them does not answer. No authentication; counts against the pre-authentication IP limit; cached briefly.",
    success: { status: 200, description: 'Ready (`ok` or `degraded`).', body: { schema: 'HealthReady' } },
    other: [{ status: 503, description: "Not ready: the gateway's NATS does not answer.", body: { schema: 'HealthReady' } }],
  })
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const r = await this.readiness();
    reply.code(r.nats === 'ok' ? 200 : 503).header('cache-control', 'no-store');
    return r;
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

  /** Every service's health and the gateway's own connections (the same check as its internal port), at once. */
  private async fanOut(): Promise<Readiness> {
    const [own, ...services] = await Promise.all([
      gatewayOwnReadiness(this.nc, this.redis, this.cfg.HEALTH_TIMEOUT_MS),
      ...REGION_SERVICES.map(async (s) => {
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
    ]);
    const { nats, redis } = own.checks as { nats: 'ok' | 'down'; redis: 'ok' | 'down' };
    const everythingUp = redis === 'ok' && services.every(([, s]) => s === 'ok');
    return { status: nats !== 'ok' ? 'unavailable' : everythingUp ? 'ok' : 'degraded', nats, redis, services: Object.fromEntries(services) };
  }
}

interface Readiness {
  status: 'ok' | 'degraded' | 'unavailable';
  nats: 'ok' | 'down';
  redis: 'ok' | 'down';
  services: Record<string, 'ok' | 'down'>;
}
