import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Stack } from './stack.js';

describe('the local stack: DOCS_BASE_URL', () => {
  const stack = (env?: Record<string, string>) => new Stack({ regions: ['us', 'eu'], ports: { us: 18080, eu: 18081 }, databaseUrl: () => '', env });

  it("points each region's gateway at its own error reference, and no other service gets it", { skip: process.env.DOCS_BASE_URL !== undefined }, () => {
    assert.equal(stack().envFor('us', 'gateway').DOCS_BASE_URL, 'http://127.0.0.1:18080/docs');
    assert.equal(stack().envFor('eu', 'gateway').DOCS_BASE_URL, 'http://127.0.0.1:18081/docs');
    assert.equal(stack().envFor('us', 'accounts').DOCS_BASE_URL, undefined);
  });

  it("a stack's own setting wins", () => {
    assert.equal(stack({ DOCS_BASE_URL: 'https://docs.example.com' }).envFor('us', 'gateway').DOCS_BASE_URL, 'https://docs.example.com');
  });
});
