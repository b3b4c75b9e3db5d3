import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS, type Principal } from '@verity/contracts';
import { ConfigError, loadConfig } from './config.js';
import {
  newPrincipalKeyPair,
  parseVerifyKeys,
  PRINCIPAL_SEAL_MAX_LIFETIME_MS,
  principalSigningEnv,
  principalVerifyEnv,
  PrincipalSigner,
  PrincipalVerifier,
  sealOf,
} from './principal-seal.js';

const principal = (org_id = 'org_a'): Principal =>
  ({ org_id, key_id: 'key_a', key_type: 'sk', mode: 'test', region: 'us', scopes: ['sessions:read'], tier: 'standard', custom_limits: null, billing: { subscription_status: 'active', past_due_since: null, wallet_balance: 0, wallet_locked: false } }) as Principal;
const gateway = newPrincipalKeyPair('gateway', 'k1');
const consoleKeys = newPrincipalKeyPair('console', 'k1');
const verifier = new PrincipalVerifier(`${gateway.verify},${consoleKeys.verify}`);
const signer = new PrincipalSigner('gateway', gateway.signing);

describe('principal keys: configuration', () => {
  it('a signing key is <key id>:<32-byte seed, base64>; anything else stops the start naming the variable, not the value', () => {
    assert.doesNotThrow(() => loadConfig(principalSigningEnv, { PRINCIPAL_SIGNING_KEY: gateway.signing }));
    for (const bad of ['', gateway.signing.split(':')[1]!, `k1:${'A'.repeat(40)}`, `k 1:${gateway.signing.split(':')[1]}`]) {
      assert.throws(
        () => loadConfig(principalSigningEnv, { PRINCIPAL_SIGNING_KEY: bad }),
        (e: Error) => e instanceof ConfigError && e.message.includes('PRINCIPAL_SIGNING_KEY') && (bad.length < 8 || !e.message.includes(bad)),
      );
    }
  });

  it('verify keys are <edge>/<key id>:<x>, comma-separated, of the gateway and the console, none twice', () => {
    assert.deepEqual(
      parseVerifyKeys(` ${gateway.verify} , ${consoleKeys.verify}`).map((k) => `${k.edge}/${k.kid}`),
      ['gateway/k1', 'console/k1'],
    );
    for (const bad of ['', `sessions/k1:${'A'.repeat(43)}`, `gateway/k1:${'A'.repeat(42)}`, `${gateway.verify},${gateway.verify}`, 'gateway:k1']) {
      assert.throws(() => loadConfig(principalVerifyEnv, { PRINCIPAL_VERIFY_KEYS: bad }), (e: Error) => e instanceof ConfigError && e.message.includes('PRINCIPAL_VERIFY_KEYS'), bad);
    }
  });

  it("a signer's verify key is what region-secrets.sh writes for it", () => {
    assert.match(signer.verifyKey, /^gateway\/k1:[A-Za-z0-9_-]{43}$/);
    assert.equal(signer.verifyKey, gateway.verify);
  });
});

describe('principal signatures', () => {
  const now = 1_800_000_000_000;

  it('verify for the principal, the request and the edge they were made for, until their expiry', () => {
    const p = principal();
    const seal = signer.seal(p, 'req_1', now + 5000, now);
    assert.deepEqual([seal.edge, seal.kid, seal.exp], ['gateway', 'k1', now + 5000]);
    assert.equal(verifier.check(p, seal, 'req_1', now), null);
    assert.equal(verifier.check(JSON.parse(JSON.stringify(p)) as Principal, seal, 'req_1', now + 5000), null, 'as it travels, up to its expiry');
    assert.equal(verifier.check(p, seal, 'req_1', now + 5001), 'expired');
    assert.equal(verifier.check(principal('org_b'), seal, 'req_1', now), 'bad_signature');
    assert.equal(verifier.check({ ...p, scopes: ['sessions:read', 'sessions:write'] } as Principal, seal, 'req_1', now), 'bad_signature');
    assert.equal(verifier.check(p, seal, 'req_2', now), 'bad_signature');
    assert.equal(verifier.check(p, { ...seal, edge: 'console' }, 'req_1', now), 'bad_signature');
    assert.equal(verifier.check(p, { ...seal, kid: 'k2' }, 'req_1', now), 'unknown_key');
    assert.equal(verifier.check(p, { ...seal, sig: seal.sig.slice(2) }, 'req_1', now), 'bad_signature');
    for (const malformed of ['x', 1, { ...seal, exp: String(seal.exp) }, { ...seal, sig: undefined }, []]) assert.equal(verifier.check(p, malformed, 'req_1', now), 'malformed');
    assert.equal(verifier.check(p, undefined, 'req_1', now), 'unsigned');
  });

  it('last at most PRINCIPAL_SEAL_MAX_LIFETIME_MS, whatever the deadline; a longer one is refused', () => {
    const p = principal();
    assert.equal(signer.seal(p, 'r', now + 3_600_000, now).exp, now + PRINCIPAL_SEAL_MAX_LIFETIME_MS);
    const ahead = signer.seal(p, 'r', now + 3_600_000, now + 3_600_000);
    assert.equal(verifier.check(p, ahead, 'r', now), 'too_long');
  });

  it('admit: a signed principal is verified and remembered for forwarding; an unsigned one only on an own-account subject; none is the handler\'s business', () => {
    const t = Date.now();
    const p = principal();
    assert.equal(verifier.admit(SUBJECTS.sessionsGet, p, signer.seal(p, 'r', t + 5000), 'r'), null);
    assert.equal(sealOf(p)?.kid, 'k1');
    const built = principal();
    assert.equal(verifier.admit(SUBJECTS.sessionsGet, built, undefined, 'r'), 'unsigned');
    assert.equal(verifier.admit(SUBJECTS.sessionsExists, built, undefined, 'r'), null);
    assert.equal(sealOf(built), undefined);
    assert.equal(verifier.admit(SUBJECTS.sessionsGet, null, undefined, 'r'), null);
  });
});
