import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Stack } from './stack.js';

describe('the local stack: DOCS_BASE_URL', () => {
  const stack = (env?: Record<string, string>) => new Stack({ regions: ['us', 'eu'], ports: { us: 18080, eu: 18081 }, databaseUrl: (r) => `postgres://verity:owner-pw@127.0.0.1:5432/verity_${r}`, env });

  it("points each region's gateway at its own error reference, and no other service gets it", { skip: process.env.DOCS_BASE_URL !== undefined }, () => {
    assert.equal(stack().envFor('us', 'gateway').DOCS_BASE_URL, 'http://127.0.0.1:18080/docs');
    assert.equal(stack().envFor('eu', 'gateway').DOCS_BASE_URL, 'http://127.0.0.1:18081/docs');
    assert.equal(stack().envFor('us', 'accounts').DOCS_BASE_URL, undefined);
  });

  it("a stack's own setting wins", () => {
    assert.equal(stack({ DOCS_BASE_URL: 'https://docs.example.com' }).envFor('us', 'gateway').DOCS_BASE_URL, 'https://docs.example.com');
  });
});

describe('the local stack: database roles', () => {
  const stack = new Stack({ regions: ['us'], ports: { us: 18080, eu: 0 }, databaseUrl: (r) => `postgres://verity:owner-pw@127.0.0.1:5432/verity_${r}` });

  it("connects each service as its own role, with a password derived from the owner's; the gateway keeps no role", () => {
    const sessions = new URL(stack.envFor('us', 'sessions').DATABASE_URL!);
    assert.equal(sessions.username, 'verity_sessions');
    assert.equal(sessions.pathname, '/verity_us');
    assert.notEqual(sessions.password, 'owner-pw');
    assert.equal(new URL(stack.envFor('us', 'webhook-delivery').DATABASE_URL!).username, 'verity_webhook_delivery');
    assert.notEqual(new URL(stack.envFor('us', 'accounts').DATABASE_URL!).password, sessions.password, 'each role its own password');
    assert.equal(new URL(stack.envFor('us', 'gateway').DATABASE_URL!).username, 'verity');
  });
});
