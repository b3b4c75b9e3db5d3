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
  });
});
