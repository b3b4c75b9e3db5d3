import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sessionEvent } from './session-event.js';

const base = { id: 'ses_abc', org_id: 'org_x', mode: 'test' as const };

describe('session events', () => {
  it('carry the type, a timestamp and exactly the four reference fields', () => {
    const at = new Date('2026-03-14T09:30:00.000Z');
    const e = sessionEvent({ ...base, status: 'completed', outcome: 'approved' }, at)!;
    assert.match(e.id, /^evt_[A-Za-z0-9]{24}$/);
    assert.equal(e.type, 'kyc.session.completed');
    assert.equal(e.timestamp, '2026-03-14T09:30:00.000Z');
    assert.deepEqual(e.data, { sessionId: 'ses_abc', status: 'completed', outcome: 'approved', occurredAt: '2026-03-14T09:30:00.000Z' });
    assert.deepEqual(Object.keys(e).sort(), ['data', 'id', 'mode', 'org_id', 'timestamp', 'type']);
  });

  it('only for statuses the Events table delivers', () => {
    const at = new Date();
    assert.equal(sessionEvent({ ...base, status: 'cancelled', outcome: null }, at)!.type, 'kyc.session.cancelled');
    assert.equal(sessionEvent({ ...base, status: 'manual_review', outcome: null }, at)!.type, 'kyc.session.manual_review_requested');
    for (const status of ['pending', 'in_progress', 'errored', 'expired', 'skipped'] as const) {
      assert.equal(sessionEvent({ ...base, status, outcome: null }, at), null, status);
    }
  });

  it('a new id every time', () => {
    const at = new Date();
    assert.notEqual(sessionEvent({ ...base, status: 'completed', outcome: 'approved' }, at)!.id, sessionEvent({ ...base, status: 'completed', outcome: 'approved' }, at)!.id);
  });
});
