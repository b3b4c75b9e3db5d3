import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sessionEvent } from './session-event.js';

const base = { id: 'ses_abc', org_id: 'org_x', mode: 'test' as const };

describe('session events', () => {
  it('carry the type, a timestamp, the four reference fields and, resting, the checks', () => {
    const at = new Date('2026-03-14T09:30:00.000Z');
    const checks = [
      { type: 'document', outcome: 'review', reasons: ['applicant_mismatch'], score: null },
      { type: 'face_match', outcome: 'pass', reasons: [], score: 0.91 },
    ];
    const e = sessionEvent({ ...base, status: 'completed', outcome: 'approved', checks }, at)!;
    assert.match(e.id, /^evt_[A-Za-z0-9]{24}$/);
    assert.equal(e.type, 'kyc.session.completed');
    assert.equal(e.timestamp, '2026-03-14T09:30:00.000Z');
    assert.deepEqual(e.data, { sessionId: 'ses_abc', status: 'completed', outcome: 'approved', occurredAt: '2026-03-14T09:30:00.000Z', checks });
    assert.deepEqual(Object.keys(e).sort(), ['data', 'id', 'mode', 'org_id', 'timestamp', 'type']);
    assert.deepEqual(sessionEvent({ ...base, status: 'manual_review', outcome: null, checks }, at)!.data.checks, checks);
  });

  it('a check recorded before reasons and scores reads with none; a cancellation carries no checks', () => {
    const at = new Date();
    const old = [{ type: 'document', outcome: 'pass' }];
    assert.deepEqual(sessionEvent({ ...base, status: 'completed', outcome: 'approved', checks: old }, at)!.data.checks, [{ type: 'document', outcome: 'pass', reasons: [], score: null }]);
    assert.equal('checks' in sessionEvent({ ...base, status: 'cancelled', outcome: null, checks: old }, at)!.data, false);
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
