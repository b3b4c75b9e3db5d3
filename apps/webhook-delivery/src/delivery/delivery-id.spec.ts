import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deliveryId, RANDOM_DELIVERY_ID_LENGTH } from './deliveries.repository.js';

describe('delivery ids', () => {
  it('are derived from the event and the subscription: the same pair always gives the same id', () => {
    const id = deliveryId('evt_aaaaaaaaaaaaaaaaaaaaaaaa', 'whs_bbbbbbbbbbbbbbbbbbbbbbbb');
    assert.match(id, /^whd_[0-9a-f]{32}$/);
    assert.equal(deliveryId('evt_aaaaaaaaaaaaaaaaaaaaaaaa', 'whs_bbbbbbbbbbbbbbbbbbbbbbbb'), id);
    // the first 32 hex characters of SHA-256("evt_aaaaaaaaaaaaaaaaaaaaaaaa/whs_bbbbbbbbbbbbbbbbbbbbbbbb"), as sha256sum prints them
    assert.equal(id, 'whd_434142ac0da1b20fe480165d14d46f4d');
  });

  it('differ for another event or another subscription, and never look like the random ids of earlier deliveries', () => {
    const ids = new Set([
      deliveryId('evt_a', 'whs_b'),
      deliveryId('evt_a', 'whs_c'),
      deliveryId('evt_b', 'whs_b'),
      deliveryId('evt_a/whs', '_b'),
    ]);
    assert.equal(ids.size, 4);
    for (const id of ids) assert.notEqual(id.length, RANDOM_DELIVERY_ID_LENGTH);
  });
});
