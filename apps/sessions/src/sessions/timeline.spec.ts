import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { timelineOf } from './timeline.js';
import { hitsOf } from './watchlist-hits.js';

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

  it("places each decision on a watchlist hit (hitsOf: the run's watchlist_match findings) at its time, with the hit and who decided", () => {
    const findings = [
      { id: 'fnd_a_l1', subjectType: 'sanction', severity: 'medium', sourceAuthority: 'ofac-sdn', findingType: 'watchlist_match', evidence: { matchScore: 0.93, listId: 'ofac-sdn', entityId: '36117', matchedName: 'DOE, Jane', features: null } },
      { id: 'fnd_a_l2', subjectType: 'sanction', severity: 'medium', sourceAuthority: 'un-sc', findingType: 'watchlist_match', evidence: { matchScore: 0.84, listId: 'un-sc', entityId: '6908555', matchedName: 'Джейн Доу', features: null } },
      { id: 'fnd_a_1', subjectType: 'adverse_media', severity: 'low', sourceAuthority: 'synthetic', findingType: 'negative_news', evidence: {} },
    ];
    const decisions = [{ finding_id: 'fnd_a_l2', outcome: 'cleared' as const, reason: 'another woman', decided_by: 'usr_1', decided_by_email: 'r@example.com', decided_at: new Date('2026-03-14T09:10:00.000Z') }];
    const hits = hitsOf(findings, decisions);
    assert.deepEqual(hits.map((h) => [h.finding_id, h.list, h.entity_id, h.score, h.decision?.outcome ?? null]), [
      ['fnd_a_l1', 'ofac-sdn', '36117', 0.93, null],
      ['fnd_a_l2', 'un-sc', '6908555', 0.84, 'cleared'],
    ]);
    const at = '2026-03-14T09:00:00.000Z';
    assert.deepEqual(timelineOf({ created_at: new Date(at), platform_metadata: {} }, [{ type: 'kyc.session.manual_review_requested', status: 'manual_review', at }], hits).slice(2), [
      { kind: 'watchlist_decision', type: 'cleared', text: 'another woman', at: '2026-03-14T09:10:00.000Z', hit: { list: 'un-sc', entity_id: '6908555', matched_name: 'Джейн Доу', decided_by: 'r@example.com' } },
    ]);
  });
});
