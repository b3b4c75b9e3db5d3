import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TtlCache } from './ttl-cache.js';

describe('ttl cache', () => {
  it('serves entries until they expire', () => {
    const c = new TtlCache<string, number>(5000, 10);
    c.set('a', 1, 1000);
    assert.equal(c.get('a', 5999), 1);
    assert.equal(c.get('a', 6000), undefined);
    assert.equal(c.size, 0, 'an expired entry is dropped when read');
  });
  it('is bounded: the oldest entry makes room; replacing an entry evicts nothing', () => {
    const c = new TtlCache<string, number>(5000, 2);
    c.set('a', 1);
    c.set('b', 2);
    c.set('b', 3);
    assert.equal(c.get('a'), 1);
    c.set('c', 4);
    assert.equal(c.size, 2);
    assert.equal(c.get('a'), undefined);
    assert.deepEqual([c.get('b'), c.get('c')], [3, 4]);
  });
  it('a key set again is the newest: the one set longest ago makes room', () => {
    const c = new TtlCache<string, number>(5000, 2);
    c.set('a', 1);
    c.set('b', 2);
    c.set('a', 3);
    c.set('c', 4);
    assert.deepEqual([c.get('a'), c.get('b'), c.get('c')], [3, undefined, 4]);
  });
  it('drops by key, by value and all at once', () => {
    const c = new TtlCache<string, number>(5000, 10);
    for (const [k, v] of [['a', 1], ['b', 2], ['c', 3]] as const) c.set(k, v);
    c.delete('a');
    c.deleteWhere((v) => v === 2);
    assert.deepEqual([c.get('a'), c.get('b'), c.get('c')], [undefined, undefined, 3]);
    c.clear();
    assert.equal(c.size, 0);
  });
  it('a zero ttl caches nothing', () => {
    const c = new TtlCache<string, number>(0, 10);
    c.set('a', 1);
    assert.equal(c.get('a'), undefined);
  });
});
