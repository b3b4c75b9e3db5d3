import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { open, seal } from './aead.js';

describe('AES-256-GCM sealing', () => {
  const key = randomBytes(32);

  it('round-trips, with a fresh nonce each time', () => {
    const a = seal(key, Buffer.from('secret'), Buffer.from('row_1'));
    const b = seal(key, Buffer.from('secret'), Buffer.from('row_1'));
    assert.notDeepEqual(a, b);
    assert.equal(open(key, a, Buffer.from('row_1')).toString(), 'secret');
    assert.equal(open(key, seal(key, Buffer.from('no context'))).toString(), 'no context');
  });

  it('refuses another key, other associated data, a tampered or a truncated value', () => {
    const sealed = seal(key, Buffer.from('secret'), Buffer.from('row_1'));
    assert.throws(() => open(randomBytes(32), sealed, Buffer.from('row_1')));
    assert.throws(() => open(key, sealed, Buffer.from('row_2')));
    const tampered = Buffer.from(sealed);
    tampered.writeUInt8(tampered.readUInt8(tampered.length - 1) ^ 1, tampered.length - 1);
    assert.throws(() => open(key, tampered, Buffer.from('row_1')));
    assert.throws(() => open(key, sealed.subarray(0, 20)));
  });
});
