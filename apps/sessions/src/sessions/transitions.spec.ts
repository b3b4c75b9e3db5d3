import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SESSION_STATUSES, type SessionStatus } from '@verity/contracts';
import { actionTarget, canTransition, eventTypeFor, isTerminal } from './transitions.js';

describe('session transition table (docs/sessions.md)', () => {
  it('answers every operator action from every status exactly as the table says', () => {
    const expected: Record<SessionStatus, [SessionStatus | null, SessionStatus | null, SessionStatus | null]> = {
      //              cancel        review           decision
      pending: ['cancelled', 'manual_review', null],
      in_progress: ['cancelled', 'manual_review', null],
      manual_review: ['cancelled', null, 'completed'],
      completed: [null, null, null],
      cancelled: [null, null, null],
      expired: [null, null, null],
      skipped: [null, null, null],
      errored: [null, null, null],
    };
    for (const from of SESSION_STATUSES) {
      const [cancel, review, decision] = expected[from];
      assert.equal(actionTarget(from, 'cancel'), cancel, `${from} cancel`);
      assert.equal(actionTarget(from, 'review'), review, `${from} review`);
      assert.equal(actionTarget(from, 'decision'), decision, `${from} decision`);
    }
  });

  it('lets the system move pending and in_progress sessions only', () => {
    assert.ok(canTransition('pending', 'system', 'in_progress'));
    assert.ok(canTransition('pending', 'system', 'expired'));
    assert.ok(!canTransition('pending', 'system', 'completed'));
    for (const to of ['completed', 'manual_review', 'errored', 'skipped'] as const) assert.ok(canTransition('in_progress', 'system', to), to);
    assert.ok(!canTransition('in_progress', 'system', 'cancelled'));
    for (const from of ['manual_review', 'completed', 'cancelled', 'expired', 'skipped', 'errored'] as const) {
      for (const to of SESSION_STATUSES) assert.ok(!canTransition(from, 'system', to), `${from} → ${to}`);
    }
  });

  it('knows the terminal statuses', () => {
    assert.deepEqual(
      SESSION_STATUSES.filter((s) => isTerminal(s)),
      ['completed', 'cancelled', 'expired', 'skipped', 'errored'],
    );
  });

  it('emits exactly the three delivered event types, for their statuses', () => {
    assert.deepEqual(
      Object.fromEntries(SESSION_STATUSES.map((s) => [s, eventTypeFor(s)])),
      {
        pending: null,
        in_progress: null,
        completed: 'kyc.session.completed',
        manual_review: 'kyc.session.manual_review_requested',
        cancelled: 'kyc.session.cancelled',
        expired: null,
        skipped: null,
        errored: null,
      },
    );
  });
});
