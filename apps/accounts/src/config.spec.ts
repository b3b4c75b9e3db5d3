import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig, serviceEnv } from '@verity/platform';
import { DEFAULT_CHECK_PRICES } from './billing/pricing.js';
import { accountsEnv } from './config.js';

const PRINCIPAL_VERIFY_KEYS = `gateway/k1:${'A'.repeat(43)},console/k1:${'B'.repeat(43)}`;
const CONSOLE_TOTP_KEY = Buffer.alloc(32, 7).toString('base64');
const load = (vars: Record<string, string>) => loadConfig({ ...serviceEnv, ...accountsEnv }, { REGION: 'us', PRINCIPAL_VERIFY_KEYS, CONSOLE_TOTP_KEY, ...vars });

describe('accounts configuration', () => {
  it('defaults: the default prices, settle after 5 minutes', () => {
    const cfg = load({});
    assert.deepEqual(cfg.CHECK_PRICES, DEFAULT_CHECK_PRICES);
    assert.equal(cfg.BILLING_SETTLE_AFTER_MS, 300_000);
  });

  it('CHECK_PRICES overrides named checks; BILLING_SETTLE_AFTER_MS takes durations', () => {
    const cfg = load({ CHECK_PRICES: 'document=90,device=0', BILLING_SETTLE_AFTER_MS: '10m' });
    assert.deepEqual(cfg.CHECK_PRICES, { ...DEFAULT_CHECK_PRICES, document: 90, device: 0 });
    assert.equal(cfg.BILLING_SETTLE_AFTER_MS, 600_000);
  });

  it('a bad value stops the start with a line naming it', () => {
    for (const [name, value] of [
      ['CHECK_PRICES', 'passport=100'],
      ['CHECK_PRICES', 'document=-5'],
      ['BILLING_SETTLE_AFTER_MS', '30s'],
      ['BILLING_SETTLE_AFTER_MS', 'soon'],
      ['CONSOLE_TOTP_KEY', ''],
      ['CONSOLE_TOTP_KEY', Buffer.alloc(16).toString('base64')],
      ['CONSOLE_TOTP_KEY', 'not base64 at all, but forty-four characters'],
    ] as const) {
      assert.throws(() => load({ [name]: value }), (e: unknown) => e instanceof ConfigError && e.problems.some((p) => p.startsWith(name)), `${name}=${value}`);
    }
  });

  it('CONSOLE_TOTP_KEY is required: no start without it', () => {
    assert.throws(
      () => loadConfig({ ...serviceEnv, ...accountsEnv }, { REGION: 'us', PRINCIPAL_VERIFY_KEYS }),
      (e: unknown) => e instanceof ConfigError && e.problems.some((p) => p.startsWith('CONSOLE_TOTP_KEY')),
    );
  });
});
