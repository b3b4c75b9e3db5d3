import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '@verity/contracts';
import { KeyCache } from './key-cache.js';

const p = (key_id: string, org_id: string) => ({ key_id, org_id }) as Principal;

describe('key cache', () => {
  it('drops by key and by organization', () => {
    const c = new KeyCache(5000);
    c.set('h1', p('key_1', 'org_1'));
    c.set('h2', p('key_2', 'org_1'));
    c.set('h3', p('key_3', 'org_2'));
    c.dropKey('key_1');
    assert.equal(c.get('h1'), undefined);
    assert.ok(c.get('h2'));
    c.dropOrg('org_1');
    assert.equal(c.get('h2'), undefined);
    assert.ok(c.get('h3'));
    c.clear();
    assert.equal(c.size, 0);
  });

  it('serves entries until they expire', async () => {
    const c = new KeyCache(40);
    c.set('h1', p('key_1', 'org_1'));
    assert.ok(c.get('h1'));
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(c.get('h1'), undefined);
  });

  it('is bounded: the least recently used entry makes room; replacing an entry evicts nothing', () => {
    const c = new KeyCache(5000, 2);
    c.set('h1', p('key_1', 'org_1'));
    c.set('h2', p('key_2', 'org_1'));
    c.set('h2', p('key_2', 'org_2'));
    assert.equal(c.size, 2);
    assert.ok(c.get('h1'));
    c.set('h3', p('key_3', 'org_1'));
    assert.equal(c.size, 2);
    assert.equal(c.get('h2'), undefined);
    assert.deepEqual([c.get('h1')?.key_id, c.get('h3')?.key_id], ['key_1', 'key_3']);
  });

  it('a zero ttl caches nothing', async () => {
    const c = new KeyCache(0);
    c.set('h1', p('key_1', 'org_1'));
    assert.equal(c.get('h1'), undefined);
    const calls: number[] = [];
    const verify = () => (calls.push(1), Promise.resolve(p('key_1', 'org_1')));
    await c.lookup('h1', verify);
    await c.lookup('h1', verify);
    assert.equal(calls.length, 2, 'every lookup asks');
  });
});

/** A verify call whose answer the test releases: the accounts service's reply on its way. */
function pending() {
  const calls: Array<(p: Principal | null) => void> = [];
  return {
    calls,
    verify: () => new Promise<Principal | null>((resolve) => calls.push(resolve)),
  };
}

describe('key cache lookups', () => {
  it('one lookup per key at a time, cached once answered', async () => {
    const c = new KeyCache(5000);
    const v = pending();
    const a = c.lookup('h1', v.verify);
    const b = c.lookup('h1', v.verify);
    assert.equal(v.calls.length, 1);
    v.calls[0]!(p('key_1', 'org_1'));
    assert.deepEqual(await a, p('key_1', 'org_1'));
    assert.deepEqual(await b, p('key_1', 'org_1'));
    assert.deepEqual(c.get('h1'), p('key_1', 'org_1'));
    assert.deepEqual(await c.lookup('h1', v.verify), p('key_1', 'org_1'));
    assert.equal(v.calls.length, 1);
  });

  for (const [what, invalidate] of [
    ['the key is revoked', (c: KeyCache) => c.dropKey('key_1')],
    ['its organization changes', (c: KeyCache) => c.dropOrg('org_1')],
    ['the connection to the events drops', (c: KeyCache) => c.clear()],
  ] as const) {
    it(`${what} while the lookup is on its way: the revocation wins, nothing stale is cached or used`, async () => {
      const c = new KeyCache(5000);
      const v = pending();
      const first = c.lookup('h1', v.verify);
      invalidate(c);
      // a request arriving after the revocation does not join the older lookup
      const later = c.lookup('h1', v.verify);
      assert.equal(v.calls.length, 2);
      // the older answer, read before the revocation, arrives: the key is asked about again
      v.calls[0]!(p('key_1', 'org_1'));
      await new Promise((r) => setImmediate(r));
      assert.equal(v.calls.length, 3);
      v.calls[1]!(null);
      v.calls[2]!(null);
      assert.equal(await first, null);
      assert.equal(await later, null);
      assert.equal(c.get('h1'), undefined, 'the revoked key is not cached');
    });
  }

  it('an invalidation of another key during the lookup costs one more lookup, and the answer is used', async () => {
    const c = new KeyCache(5000);
    const v = pending();
    const a = c.lookup('h1', v.verify);
    c.dropKey('key_9');
    v.calls[0]!(p('key_1', 'org_1'));
    await new Promise((r) => setImmediate(r));
    v.calls[1]!(p('key_1', 'org_1'));
    assert.deepEqual(await a, p('key_1', 'org_1'));
    assert.deepEqual(c.get('h1'), p('key_1', 'org_1'));
  });
});
