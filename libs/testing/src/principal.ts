import type { Principal } from '@verity/contracts';
import { newId } from '@verity/keys';

/**
 * What the gateway attaches to a call for a secret key in good standing: a new organization and key, test
 * mode, region us, the standard tier and an active subscription unless `over` says otherwise.
 */
export function testPrincipal(over: Partial<Principal> = {}): Principal {
  return {
    org_id: newId('org'),
    key_id: newId('key'),
    key_type: 'sk',
    mode: 'test',
    region: 'us',
    scopes: [],
    tier: 'standard',
    custom_limits: null,
    billing: { subscription_status: 'active', past_due_since: null, wallet_balance: 0, wallet_locked: false },
    ...over,
  };
}
