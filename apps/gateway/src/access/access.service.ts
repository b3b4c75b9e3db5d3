import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENTS, SUBJECTS, type Principal } from '@verity/contracts';
import type { KeyRouteAccess } from '@verity/api-schema';
import { DomainError } from '@verity/errors';
import { hashApiKey, hashCaptureSecret, isCaptureSecret, parseApiKey } from '@verity/keys';
import { CONFIG, LOGGER, RpcClient, type Logger } from '@verity/platform';
import {
  captureBucket,
  decide,
  ipBucket,
  keyBuckets,
  rateLimitDetails,
  rateLimitHeaders,
  type Bucket,
  type BucketState,
} from '@verity/ratelimit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readDeviceId } from '../capture/device-cookie.js';
import type { GatewayConfig } from '../config.js';
import { carriesIdempotencyKey } from '../idempotency/idempotency.hooks.js';
import { KeyCache } from './key-cache.js';
import { RateLimiter } from './rate-limiter.js';
import { Routes } from './routes.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The edge of the API, run for every /v1 request before its body is read: pre-authentication IP limit,
 * bearer key (format, region from the key's own text, lookup), per-key limits by route class and global,
 * publishable-key and scope checks, billing state. On success the principal is attached to the request.
 */
@Injectable()
export class AccessService implements OnApplicationBootstrap {
  private readonly cache: KeyCache;

  constructor(
    @Inject(CONFIG) private readonly cfg: GatewayConfig,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
    @Inject(Routes) private readonly routes: Routes,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.cache = new KeyCache(cfg.KEY_CACHE_TTL_MS);
  }

  onApplicationBootstrap(): void {
    this.rpc.subscribe(EVENTS.keyInvalidated, (e) => this.cache.dropKey(e.key_id));
    this.rpc.subscribe(EVENTS.orgChanged, (e) => this.cache.dropOrg(e.org_id));
    // revocations published while the connection was down are missed: start again from the accounts service
    this.rpc.onConnectionGap(() => this.cache.clear());
  }

  async authorize(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const route = this.routes.access(req.method, req.routeOptions.url);
    if (route?.auth === 'capture') return this.authorizeCapture(req, reply);
    // a route declared public (GET /v1/openapi.json): no key is read; the address's budget counts if it says so
    if (route?.auth === 'public') return route.ipLimited ? this.limitIp(req, reply) : undefined;
    const access = route;
    const now = Date.now();
    const ip = ipBucket(req.ip, this.cfg.RATE_LIMIT_IP_PER_MINUTE, now);

    const header = req.headers.authorization;
    // the scheme is case-insensitive (RFC 7235 §2.1), like the capture routes'
    const raw = typeof header === 'string' && /^bearer /i.test(header) ? header.slice(7).trim() : null;
    const parsed = raw ? parseApiKey(raw) : null;
    const hash = parsed && parsed.region === this.cfg.REGION ? hashApiKey(raw!) : null;
    const cached = hash ? this.cache.get(hash) : undefined;

    // Hot path: a cached key on a known route counts IP, class and global in one script call.
    if (cached && access) {
      const buckets = keyBuckets(cached.key_id, access.rateClass, cached.tier, cached.custom_limits, now);
      const counts = await this.limiter.increment([ip, ...buckets], now);
      this.checkIp(ip, counts?.[0], reply);
      this.applyKeyLimits(cached, buckets, counts?.slice(1) ?? null, reply);
      this.finish(req, cached, access, now);
      return;
    }

    const ipCount = await this.limiter.increment([ip], now);
    this.checkIp(ip, ipCount?.[0], reply);
    if (!access) {
      // unknown route: 404 route_not_found; a matched route missing from the table is refused, never served
      if (!req.is404) throw new DomainError('route_not_found');
      return;
    }
    if (raw === null) throw new DomainError('authentication_required');
    if (!parsed) throw new DomainError('invalid_api_key');
    if (parsed.region !== this.cfg.REGION) {
      throw new DomainError('region_mismatch', { details: { key_region: parsed.region, endpoint_region: this.cfg.REGION } });
    }
    const principal = await this.lookup(hash!, req.requestId);
    if (!principal) throw new DomainError('invalid_api_key');
    const buckets = keyBuckets(principal.key_id, access.rateClass, principal.tier, principal.custom_limits, now);
    const counts = await this.limiter.increment(buckets, now);
    this.applyKeyLimits(principal, buckets, counts, reply);
    this.finish(req, principal, access, now);
  }

  /**
   * The pre-authentication IP limit alone, for the hosted capture page (`/verify/<secret>`: not /v1, no key).
   * False when the address is over its budget; the rate-limit headers are set either way.
   */
  async pageAllowed(req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const now = Date.now();
    const ip = ipBucket(req.ip, this.cfg.RATE_LIMIT_IP_PER_MINUTE, now);
    const count = (await this.limiter.increment([ip], now))?.[0];
    if (count === undefined) return true; // Redis away: fail open
    reply.headers(rateLimitHeaders({ bucket: ip, count, remaining: Math.max(0, ip.limit - count) }));
    return count <= ip.limit;
  }

  /**
   * The pre-authentication IP limit alone, refused in the envelope (429): the routes that need no key
   * (`/health/ready`, the erasure key set, `GET /v1/openapi.json`).
   */
  async limitIp(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const now = Date.now();
    const ip = ipBucket(req.ip, this.cfg.RATE_LIMIT_IP_PER_MINUTE, now);
    const count = (await this.limiter.increment([ip], now))?.[0];
    if (count === undefined) return; // Redis away: fail open
    reply.headers(rateLimitHeaders({ bucket: ip, count, remaining: Math.max(0, ip.limit - count) }));
    this.checkIp(ip, count, reply);
  }

  private checkIp(ip: Bucket, count: number | undefined, reply: FastifyReply): void {
    if (count === undefined || count <= ip.limit) return;
    const state: BucketState = { bucket: ip, count, remaining: 0 };
    reply.headers(rateLimitHeaders(state));
    throw new DomainError('rate_limit_exceeded', { details: rateLimitDetails(state, null) });
  }

  private applyKeyLimits(p: Principal, buckets: Bucket[], counts: number[] | null, reply: FastifyReply): void {
    // Redis away: fail open, and describe the budget as untouched
    const decision = decide(buckets, counts ?? buckets.map(() => 0));
    reply.headers(rateLimitHeaders(decision.shown));
    if (!decision.allowed) {
      throw new DomainError('rate_limit_exceeded', { details: rateLimitDetails(decision.shown, p.tier) });
    }
  }

  /**
   * A capture route (docs/capture.md): the pre-authentication IP limit, the client secret (its hash resolved by the
   * sessions service), the session's own budget (rate class `capture`, 120 a minute), then whether the capture
   * is still open: 410 `capture_expired` past its time, 409 once submitted or once the session moved on.
   */
  private async authorizeCapture(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const now = Date.now();
    const ip = ipBucket(req.ip, this.cfg.RATE_LIMIT_IP_PER_MINUTE, now);
    this.checkIp(ip, (await this.limiter.increment([ip], now))?.[0], reply);
    const header = req.headers.authorization;
    const raw = typeof header === 'string' && /^bearer /i.test(header) ? header.slice(7).trim() : null;
    if (raw === null) throw new DomainError('authentication_required', { message: 'Send the session\'s client secret as "Authorization: Bearer <client_secret>".' });
    if (!isCaptureSecret(raw)) throw new DomainError('invalid_capture_token');
    const session = await this.rpc.call(SUBJECTS.sessionsCaptureResolve, { secret_hash: hashCaptureSecret(raw) }, { principal: null, requestId: req.requestId });
    const bucket = captureBucket(session.session_id, now);
    const decision = decide([bucket], (await this.limiter.increment([bucket], now)) ?? [0]);
    reply.headers(rateLimitHeaders(decision.shown));
    if (!decision.allowed) throw new DomainError('rate_limit_exceeded', { details: rateLimitDetails(decision.shown, null) });
    const refusal =
      session.state === 'expired'
        ? new DomainError('capture_expired')
        : session.state === 'closed'
          ? new DomainError('invalid_state_transition', { message: 'This verification takes no more captures: it was submitted, or has ended.', details: { status: session.status } })
          : undefined;
    // a retried submit or skip with an Idempotency-Key may still get its first answer: the idempotency hook decides
    if (refusal && !carriesIdempotencyKey(req)) throw refusal;
    req.capture = {
      caller: { session_id: session.session_id, org_id: session.org_id, mode: session.mode },
      connection: { ip: req.ip, user_agent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'].slice(0, 512) : null, device_id: readDeviceId(req.headers.cookie) },
      ...(refusal ? { refusal } : {}),
    };
  }

  private finish(req: FastifyRequest, p: Principal, access: KeyRouteAccess, now: number): void {
    if (p.key_type === 'pk' && !access.publishable) {
      throw new DomainError('insufficient_scope', {
        message: 'Publishable keys can only call GET /v1/me. Use a secret key.',
        details: { required_scope: access.scope },
      });
    }
    if (access.scope !== null && !p.scopes.includes(access.scope)) {
      throw new DomainError('insufficient_scope', {
        message: `The API key lacks the scope ${access.scope}.`,
        details: { required_scope: access.scope },
      });
    }
    if (!access.billingExempt) this.checkBilling(p, now);
    req.principal = p;
  }

  private checkBilling(p: Principal, now: number): void {
    if (p.mode !== 'live') return; // test mode never bills and never checks
    const b = p.billing;
    const pastGrace =
      b.subscription_status === 'past_due' &&
      b.past_due_since !== null &&
      now - Date.parse(b.past_due_since) > this.cfg.BILLING_GRACE_DAYS * DAY_MS;
    if (b.subscription_status === 'canceled' || pastGrace) throw new DomainError('subscription_required');
    if (b.wallet_locked || b.wallet_balance === null) throw new DomainError('payment_required');
  }

  /** One lookup per key at a time, however many requests arrive with it; a revocation arriving meanwhile wins. */
  private lookup(hash: string, requestId: string): Promise<Principal | null> {
    return this.cache.lookup(hash, async () => (await this.rpc.call(SUBJECTS.accountsVerifyKey, { key_hash: hash }, { principal: null, requestId })).principal);
  }
}
