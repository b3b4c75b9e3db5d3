import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseReplicas, Stack } from './stack.js';

describe('--replicas', () => {
  it('takes one count for every app, or counts of named apps', () => {
    assert.equal(parseReplicas('3'), 3);
    assert.deepEqual(parseReplicas('sessions=3,webhook-delivery=2'), { sessions: 3, 'webhook-delivery': 2 });
    assert.deepEqual(parseReplicas(' gateway = 2 '), { gateway: 2 });
  });

  it('refuses an unknown app, a count out of 1–32 and anything else', () => {
    assert.throws(() => parseReplicas('billing=2'), /not <app>=<n>/);
    assert.throws(() => parseReplicas('0'), /1 to 32/);
    assert.throws(() => parseReplicas('sessions=33'), /1 to 32/);
    assert.throws(() => parseReplicas('sessions=two'), /not <app>=<n>/);
    assert.throws(() => parseReplicas(''), /not <app>=<n>/);
  });

  it('a stack counts its replicas per app: the number for all, or the named ones and 1 for the others', () => {
    const base = { regions: ['us' as const], ports: { us: 1, eu: 2 }, databaseUrl: () => '' };
    assert.equal(new Stack(base).replicas('sessions'), 1);
    assert.equal(new Stack({ ...base, replicas: 3 }).replicas('gateway'), 3);
    const some = new Stack({ ...base, replicas: { sessions: 3 } });
    assert.deepEqual([some.replicas('sessions'), some.replicas('gateway'), some.replicas('accounts')], [3, 1, 1]);
  });
});
