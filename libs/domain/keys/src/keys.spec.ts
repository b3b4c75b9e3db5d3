import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { captureSecretFor, generateApiKey, hashApiKey, hashCaptureSecret, isCaptureSecret, isId, newId, parseApiKey } from './index.js';

describe('api keys', () => {
  it('generates keys in the documented format that parse back', () => {
    const key = generateApiKey('sk', 'eu', 'test');
    assert.match(key, /^idv_sk_eu_test_[A-Za-z0-9]{43}$/);
    assert.deepEqual(parseApiKey(key), { type: 'sk', region: 'eu', mode: 'test' });
  });

  it('reads region and mode from the text alone', () => {
    const secret = 'a'.repeat(43);
    assert.deepEqual(parseApiKey(`idv_pk_us_live_${secret}`), { type: 'pk', region: 'us', mode: 'live' });
  });

  it('refuses anything not exactly in the format', () => {
    const secret = 'a'.repeat(43);
    for (const bad of [
      '',
      `idv_sk_us_test_${secret}x`,
      `idv_sk_us_test_${'a'.repeat(42)}`,
      `idv_sk_ap_test_${secret}`,
      `idv_rk_us_test_${secret}`,
      `idv_sk_us_prod_${secret}`,
      `xyz_sk_us_test_${secret}`,
      `idv_sk_us_test_${'a'.repeat(42)}-`,
      ` idv_sk_us_test_${secret}`,
    ]) {
      assert.equal(parseApiKey(bad), null, bad);
    }
  });

  it('hashes with SHA-256 and never returns the key', () => {
    const key = generateApiKey('sk', 'us', 'live');
    const h = hashApiKey(key);
    assert.match(h, /^[0-9a-f]{64}$/);
    assert.ok(!h.includes(key.slice(15)));
    assert.equal(hashApiKey(key), h);
  });

  it('secrets are distinct and use the whole alphabet', () => {
    const seen = new Set<string>();
    const chars = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const k = generateApiKey('sk', 'us', 'test');
      seen.add(k);
      for (const c of k.slice(15)) chars.add(c);
    }
    assert.equal(seen.size, 200);
    assert.equal(chars.size, 62);
  });
});

describe('ids', () => {
  it('carry their type prefix and validate by kind', () => {
    const id = newId('applicant');
    assert.match(id, /^app_[A-Za-z0-9]{24}$/);
    assert.ok(isId('applicant', id));
    assert.ok(!isId('session', id));
    assert.ok(!isId('applicant', 'app_short'));
    assert.ok(!isId('applicant', `${id}'--`));
    assert.ok(!isId('applicant', 42));
  });
});

describe('capture client secrets', () => {
  it('are vcs_ and 43 characters of [A-Za-z0-9], derived from the session id and the key', () => {
    const a = captureSecretFor('k'.repeat(32), 'ses_abc');
    assert.match(a, /^vcs_[A-Za-z0-9]{43}$/);
    assert.ok(isCaptureSecret(a));
    assert.equal(captureSecretFor('k'.repeat(32), 'ses_abc'), a);
    assert.notEqual(captureSecretFor('k'.repeat(32), 'ses_abd'), a);
    assert.notEqual(captureSecretFor('j'.repeat(32), 'ses_abc'), a);
    assert.equal(hashCaptureSecret(a).length, 64);
    assert.ok(!isCaptureSecret('vcs_short') && !isCaptureSecret(`${a}x`) && !isCaptureSecret(a.replace('vcs_', 'idv_')));
  });
});
