import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig, natsEnv } from './config.js';
import { natsCredentialsOf } from './nats.js';

describe('NATS credentials from configuration', () => {
  it('a password the server would not read as a string stops the start, without echoing it', () => {
    for (const bad of ['123456789012345678901234567890', 'pw//comment-starts-here-in-nats', 'short1']) {
      assert.throws(
        () => loadConfig(natsEnv, { NATS_PASSWORD: bad }),
        (e: unknown) => e instanceof ConfigError && /NATS_PASSWORD/.test(e.message) && !e.message.includes(bad),
      );
    }
    assert.equal(loadConfig(natsEnv, { NATS_PASSWORD: `p${'a1'.repeat(24)}` }).NATS_PASSWORD, `p${'a1'.repeat(24)}`);
  });

  it('the identity is the service name unless NATS_USER names it; empty values mean unset', () => {
    assert.deepEqual(natsCredentialsOf({ NATS_PASSWORD: 'secret', NATS_TLS_CA: '' }, 'sessions'), {
      identity: 'sessions',
      password: 'secret',
      nkeySeed: undefined,
      tlsCa: undefined,
      tlsCert: undefined,
      tlsKey: undefined,
    });
    assert.equal(natsCredentialsOf({ NATS_USER: 'operator' }, 'admin-cli').identity, 'operator');
  });
});
