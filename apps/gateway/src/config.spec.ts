import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '@verity/platform';
import { loadGatewayConfig } from './config.js';

const env = { REGION: 'us', INTERNAL_AUTH_SECRET: 'a-test-secret-of-at-least-32-characters' };

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
