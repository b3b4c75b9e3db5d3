import { randomBytes } from 'node:crypto';
import { TEST_PRINCIPAL_KEYS } from './principal.js';

/**
 * The servers integration tests talk to: those the test runner started or was given (tools/scripts/test.mjs sets
 * NATS_URL and REDIS_URL), else the conventional local ones.
 */
export const TEST_NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The variables a service under test connects to them with (its NATS and Redis), to spread into its environment;
 * with the edges' test keys (principal.ts): services verify principals with them, a gateway under test signs with its
 * own; and accounts' key for the console's TOTP secrets (new for each test process).
 */
export const TEST_SERVER_ENV = {
  NATS_URL: TEST_NATS_URL,
  REDIS_URL: TEST_REDIS_URL,
  PRINCIPAL_VERIFY_KEYS: TEST_PRINCIPAL_KEYS.verify,
  PRINCIPAL_SIGNING_KEY: TEST_PRINCIPAL_KEYS.gateway,
  CONSOLE_TOTP_KEY: randomBytes(32).toString('base64'),
};
