import type { KeyType, Mode, Region, Scope } from '@verity/keys';
import type { CustomLimits, Tier } from '@verity/ratelimit';
import type { BillingState, Principal, SubscriptionStatus } from './principal.js';

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
