import { Inject, Injectable } from '@nestjs/common';
import { EVENTS, type BillingSetRequest, type Organization, type OrgCreateRequest, type OrgSetTierRequest } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { isId, newId } from '@verity/keys';
import { CONFIG, RpcClient, type ServiceConfig } from '@verity/platform';
import { isTier, parseCustomLimits, type CustomLimits } from '@verity/ratelimit';
import { OrganizationsRepository, toOrganization } from './organizations.repository.js';

function invalid(param: string, message: string): DomainError {
  return DomainError.validation([{ code: 'invalid_value', message, path: [param] }], message);
}

@Injectable()
export class OrganizationsService {
  constructor(
    private readonly repo: OrganizationsRepository,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(CONFIG) private readonly cfg: ServiceConfig,
  ) {}

  async create(req: OrgCreateRequest): Promise<Organization> {
    const name = typeof req.name === 'string' ? req.name.trim() : '';
    if (name.length < 1 || name.length > 200) throw invalid('name', 'name must be 1 to 200 characters');
    const tier = req.tier ?? 'standard';
    if (!isTier(tier)) throw invalid('tier', 'tier must be one of standard, elevated, enterprise, custom');
    const row = await this.repo.insert({ id: newId('org'), name, region: this.cfg.REGION, tier, walletBalance: 0 });
    return toOrganization(row);
  }

  async get(orgId: string): Promise<Organization> {
    const row = isId('org', orgId) ? await this.repo.find(orgId) : null;
    if (!row) throw DomainError.notFound('org');
    return toOrganization(row);
  }

  async setTier(req: OrgSetTierRequest): Promise<Organization> {
    if (!isTier(req.tier)) throw invalid('tier', 'tier must be one of standard, elevated, enterprise, custom');
    let limits: CustomLimits | null = null;
    if (req.tier === 'custom') {
      const parsed = parseCustomLimits(req.limits ?? {});
      if (!parsed.ok) throw invalid('limits', parsed.message);
      limits = parsed.value;
    } else if (req.limits !== undefined) {
      throw invalid('limits', 'limits apply to the custom tier only');
    }
    const row = isId('org', req.org_id) ? await this.repo.setTier(req.org_id, req.tier, limits) : null;
    if (!row) throw DomainError.notFound('org');
    this.rpc.publish(EVENTS.orgChanged, { org_id: row.id });
    return toOrganization(row);
  }

  async setBilling(req: BillingSetRequest): Promise<Organization> {
    if (req.subscription_status !== undefined && !['active', 'past_due', 'canceled'].includes(req.subscription_status)) {
      throw invalid('subscription', 'subscription must be active, past_due or canceled');
    }
    if (
      req.wallet_balance !== undefined &&
      req.wallet_balance !== null &&
      (!Number.isSafeInteger(req.wallet_balance) || req.wallet_balance < 0)
    ) {
      throw invalid('wallet_balance', 'wallet balance must be a whole number of minor units, 0 or more');
    }
    if (req.wallet_locked !== undefined && typeof req.wallet_locked !== 'boolean') {
      throw invalid('wallet_locked', 'wallet locked must be true or false');
    }
    const row = isId('org', req.org_id) ? await this.repo.setBilling(req.org_id, req) : null;
    if (!row) throw DomainError.notFound('org');
    this.rpc.publish(EVENTS.orgChanged, { org_id: row.id });
    return toOrganization(row);
  }
}
