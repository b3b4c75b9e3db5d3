import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LruCache } from './lru-cache.js';

describe('LruCache', () => {
  it('never holds more than its capacity, evicting the least recently used', () => {
    const c = new LruCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    assert.equal(c.get('a'), 1); // a is now the most recently used
    c.set('c', 3);
    assert.equal(c.size, 2);
    assert.equal(c.has('b'), false);
    assert.equal(c.get('a'), 1);
    assert.equal(c.get('c'), 3);
  });

  it('re-setting a key refreshes it without growing', () => {
    const c = new LruCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    c.set('a', 10);
    c.set('c', 3);
    assert.deepEqual([c.get('a'), c.has('b'), c.get('c'), c.size], [10, false, 3, 2]);
  });

  it('deleteIf removes only the entry it was given', () => {
    const c = new LruCache<string, object>(3);
    const first = {};
    const second = {};
    c.set('k', first);
    c.set('k', second);
    c.deleteIf('k', first);
    assert.equal(c.get('k'), second);
    c.deleteIf('k', second);
    assert.equal(c.has('k'), false);
  });

  it('keeps falsy values and refuses a capacity below 1', () => {
    const c = new LruCache<string, number>(1);
    c.set('z', 0);
    assert.equal(c.get('z'), 0);
    assert.throws(() => new LruCache(0), RangeError);
    assert.throws(() => new LruCache(1.5), RangeError);
  });

  it('deleteWhere removes every matching entry and counts them', () => {
    const c = new LruCache<string, number>(4);
    for (const [k, v] of [['org_a/test/1', 1], ['org_a/live/1', 2], ['org_a/test/2', 3], ['org_b/test/1', 4]] as const) c.set(k, v);
    assert.equal(c.deleteWhere((k) => k.startsWith('org_a/test/')), 2);
    assert.deepEqual([c.size, c.has('org_a/live/1'), c.has('org_b/test/1')], [2, true, true]);
  });
});
