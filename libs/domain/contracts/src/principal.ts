import type { KeyType, Mode, Region, Scope } from '@verity/keys';
import type { CustomLimits, Tier } from '@verity/ratelimit';
import type { ConsoleActor } from './console.js';

export type SubscriptionStatus = 'active' | 'past_due' | 'canceled';

/** Billing state of an organization, carried with the principal so the gateway can refuse without a lookup. */
export interface BillingState {
  subscription_status: SubscriptionStatus;
  /** When the subscription became past due (ISO 8601), for the grace period. */
  past_due_since: string | null;
  wallet_balance: number | null;
  wallet_locked: boolean;
}

/**
 * Who is calling: attached, and signed (`PrincipalSeal`), by the gateway or the console to every message it sends.
 * Services verify the signature before any handler runs, and scope every query by it.
 */
export interface Principal {
  org_id: string;
  key_id: string;
  key_type: KeyType;
  mode: Mode;
  region: Region;
  scopes: Scope[];
  tier: Tier;
  custom_limits: CustomLimits | null;
  billing: BillingState;
  /**
   * The person signed in to the console, with their role as accounts has it now: set by the console only (the gateway
   * never does), signed with the rest. A service serving a console subject takes the person and their role from here
   * and checks the role itself (`requireConsolePerson`), so that no request can do more than the person may.
   */
  actor?: ConsoleActor;
}

/** The part of a principal a service needs to scope data: organization and mode. */
export type Owner = Pick<Principal, 'org_id' | 'mode'>;
