import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { isSecretKey, SecretBox } from './secret-box.js';

describe('secrets at rest (AES-256-GCM)', () => {
  const keyText = randomBytes(32).toString('base64');
  const box = SecretBox.fromBase64(keyText);

  it('round-trips, with a fresh nonce each time and no plaintext in the sealed form', () => {
    const secret = 'whsec_' + randomBytes(32).toString('base64');
    const a = box.seal(secret, 'whs_1');
    const b = box.seal(secret, 'whs_1');
    assert.notEqual(a, b);
    assert.match(a, /^v1\./);
    assert.ok(!a.includes(secret.slice(6, 20)));
    assert.equal(box.open(a, 'whs_1'), secret);
    assert.equal(box.open(b, 'whs_1'), secret);
  });

  it('refuses another subscription id, another key or a tampered value', () => {
    const sealed = box.seal('whsec_x', 'whs_1');
    assert.throws(() => box.open(sealed, 'whs_2'));
    assert.throws(() => SecretBox.fromBase64(randomBytes(32).toString('base64')).open(sealed, 'whs_1'));
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1]! ^= 1;
    assert.throws(() => box.open(`v1.${raw.toString('base64')}`, 'whs_1'));
    assert.throws(() => box.open('v2.abc', 'whs_1'));
  });

  it('accepts only 32-byte base64 keys', () => {
    assert.ok(isSecretKey(keyText));
    assert.equal(isSecretKey(randomBytes(16).toString('base64')), false);
    assert.equal(isSecretKey('not a key'), false);
    assert.throws(() => new SecretBox(randomBytes(31)));
  });
});
