import { Inject, Injectable } from '@nestjs/common';
import type { BillingState, Organization, SubscriptionStatus } from '@verity/contracts';
import type { Region } from '@verity/keys';
import { Sql, type WithDates } from '@verity/platform';
import type { CustomLimits, Tier } from '@verity/ratelimit';

/** A row of `accounts.organizations`: the organization as on the wire, its billing state in columns of its own. */
export interface OrgRow
  extends WithDates<Omit<Organization, 'object' | 'billing'>, 'created_at'>,
    WithDates<Omit<BillingState, 'wallet_balance'>, 'past_due_since'> {
  /** `numeric`, read as text. */
  wallet_balance: string | null;
}

export function billingOf(row: OrgRow): BillingState {
  return {
    subscription_status: row.subscription_status,
    past_due_since: row.past_due_since ? row.past_due_since.toISOString() : null,
    wallet_balance: row.wallet_balance === null ? null : Number(row.wallet_balance),
    wallet_locked: row.wallet_locked,
  };
}

export function toOrganization(row: OrgRow): Organization {
  return {
    id: row.id,
    object: 'organization',
    name: row.name,
    region: row.region,
    tier: row.tier,
    custom_limits: row.custom_limits,
    billing: billingOf(row),
    created_at: row.created_at.toISOString(),
  };
}

@Injectable()
export class OrganizationsRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  async insert(org: { id: string; name: string; region: Region; tier: Tier; walletBalance: number }): Promise<OrgRow> {
    const rows = await this.db.rows<OrgRow>(
      `INSERT INTO accounts.organizations (id, name, region, tier, wallet_balance) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [org.id, org.name, org.region, org.tier, org.walletBalance],
    );
    return rows[0]!;
  }

  async find(id: string): Promise<OrgRow | null> {
    const rows = await this.db.rows<OrgRow>(`SELECT * FROM accounts.organizations WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  async setTier(id: string, tier: Tier, limits: CustomLimits | null): Promise<OrgRow | null> {
    const rows = await this.db.rows<OrgRow>(
      `UPDATE accounts.organizations SET tier = $2, custom_limits = $3, updated_at = now() WHERE id = $1 RETURNING *`,
      [id, tier, limits === null ? null : JSON.stringify(limits)],
    );
    return rows[0] ?? null;
  }

  async setBilling(
    id: string,
    patch: { subscription_status?: SubscriptionStatus; wallet_balance?: number | null; wallet_locked?: boolean },
  ): Promise<OrgRow | null> {
    const rows = await this.db.rows<OrgRow>(
      `UPDATE accounts.organizations SET
         subscription_status = COALESCE($2, subscription_status),
         past_due_since = CASE
           WHEN $2::text IS NULL THEN past_due_since
           WHEN $2 = 'past_due' THEN COALESCE(CASE WHEN subscription_status = 'past_due' THEN past_due_since END, now())
           ELSE NULL END,
         wallet_balance = CASE WHEN $3 THEN $4::bigint ELSE wallet_balance END,
         wallet_locked = COALESCE($5, wallet_locked),
         updated_at = now()
       WHERE id = $1 RETURNING *`,
      [
        id,
        patch.subscription_status ?? null,
        patch.wallet_balance !== undefined,
        patch.wallet_balance ?? null,
        patch.wallet_locked ?? null,
      ],
    );
    return rows[0] ?? null;
  }
}
