import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseDomainEvent, type DomainEvent } from '@verity/contracts';
import { deliveryId, matchDeliveries, type MatchRow } from './fanout.js';

const at = '2026-11-22T10:00:00.000Z';
const event: DomainEvent = {
  id: 'evt_aaaaaaaaaaaaaaaaaaaaaaaa',
  type: 'kyc.session.completed',
  timestamp: at,
  org_id: 'org_a',
  mode: 'test',
  data: { sessionId: 'ses_aaaaaaaaaaaaaaaaaaaaaaaa', status: 'completed', outcome: 'approved', occurredAt: at },
};
const sub = (id: string, over: Partial<MatchRow> = {}): MatchRow => ({
  id,
  org_id: 'org_a',
  mode: 'test',
  event_types: ['kyc.session.completed', 'kyc.session.cancelled'],
  created_at: new Date('2026-11-22T09:00:00Z'),
  ...over,
});

describe('fan-out matching', () => {
  it('makes one delivery per subscription of the same organization and mode that lists the type', () => {
    const subs = [
      sub('whs_same'),
      sub('whs_live', { mode: 'live' }),
      sub('whs_other_org', { org_id: 'org_b' }),
      sub('whs_other_type', { event_types: ['kyc.session.cancelled'] }),
      sub('whs_newer', { created_at: new Date('2026-11-22T10:00:01Z') }),
      sub('whs_same2', { event_types: ['kyc.session.completed'] }),
    ];
    const out = matchDeliveries(event, subs);
    assert.deepEqual(out.map((d) => d.subscription_id), ['whs_same', 'whs_same2']);
    // the trace the event's message carried goes with each of its deliveries
    assert.deepEqual(out.map((d) => d.trace_context), [null, null]);
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    assert.deepEqual(matchDeliveries(event, subs, traceparent).map((d) => d.trace_context), [traceparent, traceparent]);
    for (const d of out) {
      assert.equal(d.id, deliveryId(event.id, d.subscription_id));
      assert.equal(d.event_id, event.id);
      assert.equal(d.session_id, event.data.sessionId);
      assert.deepEqual(JSON.parse(d.body), { type: event.type, timestamp: at, data: event.data });
    }
    assert.notEqual(out[0]!.id, out[1]!.id);
  });

  it('a live event never reaches a test endpoint', () => {
    assert.deepEqual(matchDeliveries({ ...event, mode: 'live' }, [sub('whs_test')]), []);
    assert.equal(matchDeliveries({ ...event, mode: 'live' }, [sub('whs_live', { mode: 'live' })]).length, 1);
  });

  it('never delivers the reserved types, even to a subscription that lists them', () => {
    const s = sub('whs_all', { event_types: ['kyc.session.expired', 'kyc.session.skipped_by_applicant'] });
    assert.deepEqual(matchDeliveries({ ...event, type: 'kyc.session.expired' }, [s]), []);
    assert.deepEqual(matchDeliveries({ ...event, type: 'kyc.session.skipped_by_applicant' }, [s]), []);
  });

  it('delivers kyc.session.watchlist_hit, with its hits, to a live subscription that lists it, and only to one', () => {
    const hit: DomainEvent = {
      ...event,
      type: 'kyc.session.watchlist_hit',
      mode: 'live',
      data: { ...event.data, status: 'manual_review', outcome: 'approved', watchlistHits: [{ list: 'ofac-sdn', entityId: '36418', score: 0.94 }] },
    };
    const out = matchDeliveries(hit, [sub('whs_hits', { mode: 'live', event_types: ['kyc.session.watchlist_hit'] }), sub('whs_other', { mode: 'live' })]);
    assert.deepEqual(out.map((d) => d.subscription_id), ['whs_hits']);
    assert.deepEqual(JSON.parse(out[0]!.body), { type: 'kyc.session.watchlist_hit', timestamp: at, data: hit.data });
  });

  it('reads events defensively', () => {
    assert.deepEqual(parseDomainEvent(JSON.parse(JSON.stringify(event))), event);
    assert.deepEqual(parseDomainEvent(new TextEncoder().encode(JSON.stringify(event))), event, 'from the bytes of a message');
    assert.equal(parseDomainEvent(new TextEncoder().encode('{not json')), null);
    for (const bad of [null, 'x', {}, { ...event, mode: 'prod' }, { ...event, timestamp: 'yesterday' }, { ...event, data: {} }, { ...event, id: '' }]) {
      assert.equal(parseDomainEvent(bad), null, JSON.stringify(bad));
    }
  });
});

describe('delivery ids', () => {
  it('are derived from the event and the subscription: the same pair always gives the same id', () => {
    const id = deliveryId('evt_aaaaaaaaaaaaaaaaaaaaaaaa', 'whs_bbbbbbbbbbbbbbbbbbbbbbbb');
    assert.match(id, /^whd_[0-9a-f]{32}$/);
    assert.equal(deliveryId('evt_aaaaaaaaaaaaaaaaaaaaaaaa', 'whs_bbbbbbbbbbbbbbbbbbbbbbbb'), id);
    // the first 32 hex characters of SHA-256("evt_aaaaaaaaaaaaaaaaaaaaaaaa/whs_bbbbbbbbbbbbbbbbbbbbbbbb"), as sha256sum prints them
    assert.equal(id, 'whd_434142ac0da1b20fe480165d14d46f4d');
  });

  it('differ for another event or another subscription, each its own', () => {
    const ids = new Set([
      deliveryId('evt_a', 'whs_b'),
      deliveryId('evt_a', 'whs_c'),
      deliveryId('evt_b', 'whs_b'),
      deliveryId('evt_a/whs', '_b'),
    ]);
    assert.equal(ids.size, 4);
  });
});
