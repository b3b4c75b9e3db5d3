import type { KeyType, Mode, Region, Scope } from '@verity/keys';
import type { CustomLimits, Tier } from '@verity/ratelimit';
import type { BillingState, Principal, SubscriptionStatus } from './principal.js';
import type { CheckType } from './screening.js';

export interface VerifyKeyRequest {
  key_hash: string;
}
/** `principal: null` when the key is unknown or revoked. */
export interface VerifyKeyReply {
  principal: Principal | null;
}

export interface Organization {
  id: string;
  object: 'organization';
  name: string;
  region: Region;
  tier: Tier;
  custom_limits: CustomLimits | null;
  billing: BillingState;
  created_at: string;
}

export interface OrgCreateRequest {
  name: string;
  tier?: Tier;
}
export interface OrgSetTierRequest {
  org_id: string;
  tier: Tier;
  limits?: unknown;
}
export interface BillingSetRequest {
  org_id: string;
  subscription_status?: SubscriptionStatus;
  wallet_balance?: number | null;
  wallet_locked?: boolean;
}

export interface KeyCreateRequest {
  org_id: string;
  mode: Mode;
  type: KeyType;
  scopes: string[];
}

/** A key as stored: never the secret. */
export interface ApiKeyRecord {
  id: string;
  object: 'api_key';
  org_id: string;
  type: KeyType;
  mode: Mode;
  region: Region;
  scopes: Scope[];
  revoked: boolean;
  created_at: string;
}

/** Returned once, at creation or rotation: the only time the key is shown. */
export interface CreatedApiKey extends ApiKeyRecord {
  key: string;
}

/**
 * Billing of a live session create (docs/sessions.md, "Billing"): the price of the workflow's checks, debited from the
 * organization's wallet before the session is written. Idempotent by `session_id`.
 */
export interface BillingDebitRequest {
  session_id: string;
  checks: CheckType[];
}
export interface BillingRefundRequest {
  session_id: string;
}

/** One debit of a wallet, as stored: settled once its session was seen, refunded when it never came. */
export interface WalletDebit {
  session_id: string;
  org_id: string;
  /** Minor units of the organization's billing currency. */
  amount: number;
  checks: CheckType[];
  created_at: string;
  settled_at: string | null;
  refunded_at: string | null;
}
