import { setTimeout } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import {
  SESSION_EVENT_TYPES,
  SUBJECTS,
  type Owner,
  type Page,
  type WebhookSecretRotation,
  type WebhookSubscription,
  type WebhookSubscriptionCreateRequest,
  type WebhookSubscriptionListRequest,
  type WebhookSubscriptionWithSecret,
} from '@verity/contracts';
import { checkBody, DomainError } from '@verity/errors';
import { z } from 'zod';
import { isId, newId, type Mode } from '@verity/keys';
import { CONFIG, parseListQuery, RpcClient, toPage, type RpcContext } from '@verity/platform';
import { DestinationError, DestinationGuard, parseReceiverUrl } from '@verity/ssrf';
import type { WebhookConfig } from '../config.js';
import { ROTATION_OVERLAP_MS } from '../delivery/retry-schedule.js';
import { generateSigningSecret } from '../delivery/signing.js';
import { SecretBox } from './secret-box.js';
import { SubscriptionsRepository, type SubscriptionRow } from './subscriptions.repository.js';

/** How long registration waits for DNS before accepting a name it could not resolve yet (delivery checks again). */
const REGISTRATION_DNS_TIMEOUT_MS = 2000;

function toSubscription({ seq: _, previous_secret_expires_at: _expires, ...row }: SubscriptionRow): WebhookSubscription {
  return { object: 'webhook_subscription', ...row, created_at: row.created_at.toISOString() };
}

const isMode = (v: unknown): v is Mode => v === 'test' || v === 'live';

/**
 * The shape of a create request (the address check needs DNS and comes after): a mode, an https receiver URL (its
 * problem as the issue's code: `https_required`, `credentials_not_allowed`, …), and the event types, stored once each
 * in the order of the Events table.
 */
const subscriptionCreate = z.object({
  mode: z.enum(['test', 'live']),
  url: z.unknown().transform((raw, ctx) => {
    const url = parseReceiverUrl(raw);
    if (url.ok) return url;
    ctx.addIssue({ code: 'custom', message: url.message, params: { code: url.problem } });
    return z.NEVER;
  }),
  event_types: z
    .array(z.enum(SESSION_EVENT_TYPES, { message: `unknown event type; use ${SESSION_EVENT_TYPES.join(', ')}` }))
    .min(1, `must list at least one of ${SESSION_EVENT_TYPES.join(', ')}`)
    .transform((ts) => SESSION_EVENT_TYPES.filter((t) => ts.includes(t))),
});

/**
 * Webhook subscriptions, managed by operators (docs/webhooks.md): https only, the SSRF guard at registration,
 * a 32-byte signing secret shown once (at creation and rotation), stored encrypted.
 */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly repo: SubscriptionsRepository,
    private readonly box: SecretBox,
    private readonly guard: DestinationGuard,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(CONFIG) private readonly cfg: WebhookConfig,
  ) {}

  async create(req: WebhookSubscriptionCreateRequest, ctx: RpcContext): Promise<WebhookSubscriptionWithSecret> {
    const shape = checkBody(subscriptionCreate, req ?? {});
    if (!shape.ok) throw DomainError.validation(shape.issues);
    const { url, event_types: eventTypes } = shape.data;
    const refusal = await this.refusal(url.hostname);
    if (refusal) throw DomainError.validation([{ code: 'blocked_destination', message: refusal, path: ['url'] }]);
    await this.assertOrg(req.org_id, ctx);
    const id = newId('webhookSubscription');
    const secret = generateSigningSecret();
    const row = await this.repo.insert({
      id,
      org_id: req.org_id,
      mode: req.mode,
      url: url.href,
      event_types: eventTypes,
      secret_sealed: this.box.seal(secret, id),
    });
    return { ...toSubscription(row), secret };
  }

  async list(req: WebhookSubscriptionListRequest): Promise<Page<WebhookSubscription>> {
    const { org_id, mode, ...query } = req ?? ({} as WebhookSubscriptionListRequest);
    if (mode !== undefined && !isMode(mode)) throw DomainError.validation([{ code: 'invalid_value', message: 'mode must be test or live', path: ['mode'] }]);
    const p = parseListQuery(query);
    if (!isId('org', org_id)) return { data: [], next_cursor: null };
    const rows = await this.repo.list(org_id, mode ?? null, p.after, p.limit);
    return toPage(rows, p.limit, (r) => r.seq, toSubscription);
  }

  /** A subscription of `owner`'s organization and mode (the console's signed principal), else 404. */
  async owned(owner: Owner, subscriptionId: unknown): Promise<SubscriptionRow> {
    const row = isId('webhookSubscription', subscriptionId) ? await this.repo.find(subscriptionId) : null;
    if (!row || row.org_id !== owner.org_id || row.mode !== owner.mode) throw DomainError.notFound('subscription_id');
    return row;
  }

  async disable(subscriptionId: string): Promise<WebhookSubscription> {
    const row = isId('webhookSubscription', subscriptionId) ? await this.repo.disable(subscriptionId) : null;
    if (!row) throw DomainError.notFound('subscription_id');
    return toSubscription(row);
  }

  /** A new secret, shown once; the previous one keeps signing (a second signature) for 24 hours. */
  async rotateSecret(subscriptionId: string): Promise<WebhookSecretRotation> {
    if (!isId('webhookSubscription', subscriptionId)) throw DomainError.notFound('subscription_id');
    const secret = generateSigningSecret();
    const row = await this.repo.rotate(subscriptionId, this.box.seal(secret, subscriptionId), ROTATION_OVERLAP_MS);
    if (!row) {
      // only active subscriptions rotate: tell a disabled one from one that does not exist
      if (!(await this.repo.find(subscriptionId))) throw DomainError.notFound('subscription_id');
      throw new DomainError('invalid_state_transition', { message: 'The subscription is disabled.', param: 'subscription_id' });
    }
    return { ...toSubscription(row), secret, previous_secret_expires_at: row.previous_secret_expires_at!.toISOString() };
  }

  /** Why the receiver's host is refused, or null. A name that does not resolve yet is accepted: delivery checks again. */
  private async refusal(hostname: string): Promise<string | null> {
    const checked = this.guard.addresses(hostname).then(
      () => null,
      (e: unknown) => (e instanceof DestinationError && e.code === 'blocked_destination' ? e.message : null),
    );
    return Promise.race([checked, setTimeout(REGISTRATION_DNS_TIMEOUT_MS, null, { ref: false })]);
  }

  private async assertOrg(orgId: unknown, ctx: RpcContext): Promise<void> {
    if (!isId('org', orgId)) throw DomainError.notFound('org_id');
    try {
      const org = await this.rpc.call(SUBJECTS.accountsOrgRegion, { org_id: orgId }, { principal: null, requestId: ctx.requestId });
      if (org.region !== this.cfg.REGION) throw DomainError.notFound('org_id');
    } catch (e) {
      if (e instanceof DomainError && e.code === 'resource_not_found') throw DomainError.notFound('org_id');
      throw e;
    }
  }
}
