import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { timelineOf } from './timeline.js';

describe('timelineOf', () => {
  it('lists created, events and notes oldest first, each with its text', () => {
    const row = {
      created_at: new Date('2026-03-14T09:00:00.000Z'),
      platform_metadata: {
        operatorNotes: [
          { note: 'called the applicant', created_at: '2026-03-14T09:05:00.000Z' },
          { note: 'documents fine', created_at: '2026-03-14T09:20:00.000Z' },
        ],
      },
    };
    const events = [
      { type: 'kyc.session.manual_review_requested', status: 'manual_review', at: '2026-03-14T09:01:00.000Z' },
      { type: 'kyc.session.completed', status: 'completed', at: '2026-03-14T09:30:00.000Z' },
    ];
    assert.deepEqual(timelineOf(row, events), [
      { kind: 'created', type: null, text: null, at: '2026-03-14T09:00:00.000Z' },
      { kind: 'event', type: 'kyc.session.manual_review_requested', text: 'manual_review', at: '2026-03-14T09:01:00.000Z' },
      { kind: 'note', type: null, text: 'called the applicant', at: '2026-03-14T09:05:00.000Z' },
      { kind: 'note', type: null, text: 'documents fine', at: '2026-03-14T09:20:00.000Z' },
      { kind: 'event', type: 'kyc.session.completed', text: 'completed', at: '2026-03-14T09:30:00.000Z' },
    ]);
  });

  it('keeps created, events and notes in that order at one instant; no notes (an erased session) is no note entry', () => {
    const at = '2026-03-14T09:00:00.000Z';
    const withNote = timelineOf({ created_at: new Date(at), platform_metadata: { operatorNotes: [{ note: 'n', created_at: at }] } }, [
      { type: 'kyc.session.cancelled', status: 'cancelled', at },
    ]);
    assert.deepEqual(withNote.map((e) => e.kind), ['created', 'event', 'note']);
    assert.deepEqual(timelineOf({ created_at: new Date(at), platform_metadata: {} }, []).map((e) => e.kind), ['created']);
  });
});
