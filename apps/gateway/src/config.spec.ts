import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '@verity/platform';
import { loadGatewayConfig } from './config.js';

const env = { REGION: 'us', INTERNAL_AUTH_SECRET: 'a-test-secret-of-at-least-32-characters', PRINCIPAL_SIGNING_KEY: `k1:${'A'.repeat(43)}=` };

describe('gateway configuration: the edge timeouts', () => {
  it('the defaults hold together, and the connection bound defaults to 10000', () => {
    const cfg = loadGatewayConfig(env);
    assert.equal(cfg.HTTP_MAX_CONNECTIONS, 10_000);
  });

  it('an idle timeout no longer than a wait on a service is refused: that request would be cut off without an answer', () => {
    for (const wait of ['ID_SCAN_TIMEOUT_MS', 'CAPTURE_UPLOAD_TIMEOUT_MS', 'RPC_TIMEOUT_MS']) {
      const short = { ...env, HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000', HTTP_IDLE_TIMEOUT_MS: '5000', ID_SCAN_TIMEOUT_MS: '4000', CAPTURE_UPLOAD_TIMEOUT_MS: '4000', RPC_TIMEOUT_MS: '4000' };
      assert.doesNotThrow(() => loadGatewayConfig(short));
      assert.throws(() => loadGatewayConfig({ ...short, [wait]: '5000' }), (e: Error) => e instanceof ConfigError && e.message.includes('HTTP_IDLE_TIMEOUT_MS'), wait);
    }
  });
});

describe('gateway configuration: DOCS_BASE_URL', () => {
  it('defaults to this gateway on loopback, where /docs/errors is served', () => {
    assert.equal(loadGatewayConfig(env).DOCS_BASE_URL, 'http://127.0.0.1:8080/docs');
    assert.equal(loadGatewayConfig({ ...env, REGION: 'eu' }).DOCS_BASE_URL, 'http://127.0.0.1:8081/docs');
    assert.equal(loadGatewayConfig({ ...env, PORT: '9191' }).DOCS_BASE_URL, 'http://127.0.0.1:9191/docs');
  });

  it('takes an absolute http(s) address, without its trailing slash', () => {
    assert.equal(loadGatewayConfig({ ...env, DOCS_BASE_URL: 'https://us.verity.example.com/docs/' }).DOCS_BASE_URL, 'https://us.verity.example.com/docs');
    for (const bad of ['/docs', 'docs.example.com', 'ftp://docs.example.com', 'https://x.example.com/docs?v=1', 'https://x.example.com/docs#top']) {
      assert.throws(() => loadGatewayConfig({ ...env, DOCS_BASE_URL: bad }), (e: Error) => e instanceof ConfigError && e.message.includes('DOCS_BASE_URL'), bad);
    }
  });
});
