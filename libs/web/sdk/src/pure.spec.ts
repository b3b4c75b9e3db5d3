import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { backoffDelay, DEFAULT_BACKOFF, DEFAULT_BASE_URLS, parseKey, rateLimitDelay, SDK_VERSION, Verity } from './index.js';
import { resetAtOf } from './retry.js';

const SECRET = 'Ab3'.repeat(14) + 'x';

describe('keys', () => {
  it('reads type, region and mode from the key', () => {
    assert.deepEqual(parseKey(`idv_sk_us_test_${SECRET}`), { type: 'sk', region: 'us', mode: 'test' });
    assert.deepEqual(parseKey(`idv_pk_eu_live_${SECRET}`), { type: 'pk', region: 'eu', mode: 'live' });
  });

  it('refuses anything not exactly a key, without echoing it', () => {
    for (const bad of ['', `idv_sk_us_test_${SECRET}x`, `idv_sk_us_test_${SECRET.slice(1)}`, `idv_sk_ap_test_${SECRET}`, `idv_rk_us_test_${SECRET}`,
      `idv_sk_us_prod_${SECRET}`, ` idv_sk_us_test_${SECRET}`, `idv_sk_us_test_${SECRET.slice(1)}-`, undefined as unknown as string]) {
      assert.throws(() => parseKey(bad), (e: Error) => e instanceof TypeError && !(bad && e.message.includes(bad)), String(bad));
    }
  });

  it('the client takes region, mode and endpoint from the key; a malformed key throws at construction', () => {
    const us = new Verity({ apiKey: `idv_sk_us_test_${SECRET}` });
    assert.deepEqual([us.region, us.mode, us.keyType, us.baseUrl], ['us', 'test', 'sk', DEFAULT_BASE_URLS.us]);
    const eu = new Verity({ apiKey: `idv_sk_eu_live_${SECRET}`, baseUrls: { us: 'http://us.invalid' } });
    assert.deepEqual([eu.region, eu.mode, eu.baseUrl], ['eu', 'live', 'http://127.0.0.1:8081']);
    assert.equal(new Verity({ apiKey: `idv_sk_eu_live_${SECRET}`, baseUrls: { eu: 'https://eu.example' } }).baseUrl, 'https://eu.example');
    assert.throws(() => new Verity({ apiKey: 'sk_test_123' }), TypeError);
    assert.throws(() => new Verity({ apiKey: `idv_sk_us_test_${SECRET}`, maxRetries: -1 }), TypeError);
  });

  it('never shows the key when the client is logged', async () => {
    const { inspect } = await import('node:util');
    const key = `idv_sk_us_test_${SECRET}`;
    const c = new Verity({ apiKey: key });
    assert.ok(!inspect(c, { depth: 10, showHidden: true }).includes(SECRET));
    assert.ok(!JSON.stringify(c).includes(SECRET));
  });
});

describe('retry timing', () => {
  it('full jitter under an exponential ceiling: 0.5 s, 1 s, 2 s … capped at 8 s', () => {
    const top = () => 0.999999;
    assert.deepEqual([0, 1, 2, 3, 4, 5, 10].map((r) => backoffDelay(r, DEFAULT_BACKOFF, top)), [499, 999, 1999, 3999, 7999, 7999, 7999]);
    assert.deepEqual([0, 3, 9].map((r) => backoffDelay(r, DEFAULT_BACKOFF, () => 0)), [0, 0, 0]);
    assert.equal(backoffDelay(2, { baseMs: 100, capMs: 250 }, () => 0.5), 125);
    for (let i = 0; i < 1000; i++) {
      const d = backoffDelay(i % 6);
      assert.ok(Number.isInteger(d) && d >= 0 && d < DEFAULT_BACKOFF.baseMs * 2 ** (i % 6) && d < DEFAULT_BACKOFF.capMs);
    }
  });

  it('a 429 waits until reset_at (epoch seconds) plus under 250 ms of jitter; never negative', () => {
    assert.equal(rateLimitDelay(1_700_000_060, 1_700_000_000_000, () => 0), 60_000);
    assert.equal(rateLimitDelay(1_700_000_060, 1_700_000_059_500, () => 0.999), 500 + 249);
    assert.equal(rateLimitDelay(1_700_000_000, 1_700_000_005_000, () => 0), 0);
    assert.equal(rateLimitDelay(null, Date.now()), null);
  });

  it('reset_at comes from the envelope, else from X-RateLimit-Reset', () => {
    assert.equal(resetAtOf({ reset_at: 1_700_000_060 }, new Headers({ 'x-ratelimit-reset': '1' })), 1_700_000_060);
    assert.equal(resetAtOf(undefined, new Headers({ 'x-ratelimit-reset': '1700000120' })), 1_700_000_120);
    assert.equal(resetAtOf({ reset_at: 'soon' }, new Headers({ 'x-ratelimit-reset': 'later' })), null);
  });
});

describe('package', () => {
  it('SDK_VERSION is the package version; no runtime dependency on private packages', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
      private?: boolean;
      license: string;
      dependencies: Record<string, string>;
    };
    assert.equal(SDK_VERSION, pkg.version);
    assert.equal(pkg.private, undefined);
    assert.equal(pkg.license, 'Apache-2.0');
    assert.deepEqual(Object.keys(pkg.dependencies), ['standardwebhooks']);
  });

  it('the compiled code and its declarations import no @verity/* package (a consumer could not resolve one)', async () => {
    const { readdirSync } = await import('node:fs');
    for (const sub of ['./', './generated/']) {
      const dir = new URL(sub, import.meta.url);
      for (const f of readdirSync(dir).filter((n) => (n.endsWith('.js') || n.endsWith('.d.ts')) && !n.includes('.spec.'))) {
        assert.doesNotMatch(readFileSync(new URL(f, dir), 'utf8'), /from ['"]@verity\//, f);
      }
    }
  });

  it('the generated types are those of the current OpenAPI document (npm run openapi regenerates them)', () => {
    const bin = fileURLToPath(new URL('../../../../../node_modules/.bin/openapi-typescript', import.meta.url));
    const doc = fileURLToPath(new URL('../../../../../apps/gateway/openapi/openapi.json', import.meta.url));
    const out = fileURLToPath(new URL('../../src/generated/openapi.ts', import.meta.url));
    const r = spawnSync(bin, [doc, '-o', out, '--default-non-nullable', 'false', '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, `libs/web/sdk/src/generated/openapi.ts is stale: run npm run openapi\n${r.stdout}${r.stderr}`);
  });
});
