import type { Principal, PrincipalEdge } from '@verity/contracts';
import { newId } from '@verity/keys';
import { newPrincipalKeyPair, PrincipalSigner, PrincipalVerifier } from '@verity/platform';

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

const gatewayKeys = newPrincipalKeyPair('gateway', 'test');
const consoleKeys = newPrincipalKeyPair('console', 'test');

/**
 * The edges' principal keys of this test process (new at each start): services under test verify with `verify`
 * (their PRINCIPAL_VERIFY_KEYS), a gateway or console under test signs with its own (PRINCIPAL_SIGNING_KEY), and a
 * test playing the gateway signs with `testSigner()`.
 */
export const TEST_PRINCIPAL_KEYS = {
  gateway: gatewayKeys.signing,
  console: consoleKeys.signing,
  verify: `${gatewayKeys.verify},${consoleKeys.verify}`,
} as const;

/** A signer of this process's test keys: what a test that plays the gateway (or the console) calls services with. */
export function testSigner(edge: PrincipalEdge = 'gateway'): PrincipalSigner {
  return new PrincipalSigner(edge, TEST_PRINCIPAL_KEYS[edge]);
}

/** A verifier of this process's test keys: for stand-ins of services (an RpcServer a test serves itself). */
export function testPrincipalVerifier(): PrincipalVerifier {
  return new PrincipalVerifier(TEST_PRINCIPAL_KEYS.verify);
}
