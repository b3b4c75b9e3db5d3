import type { SessionWatchlistHit, TimelineEntry } from '@verity/contracts';
import type { SessionRow } from './sessions.repository.js';

/** A domain event of a session as its outbox row holds it: the type, the status it carried and when it happened. */
export interface OutboxEvent {
  type: string;
  status: string | null;
  at: string;
}

/**
 * A session's timeline (`sessions.timeline.v1`), oldest first: `created`, one `event` per event of the outbox (in the
 * order they were written), one `note` per operator note, one `watchlist_decision` per reviewer's decision on a watchlist
 * hit. Entries of the same instant keep that order (created, events, notes, decisions).
 */
export function timelineOf(row: Pick<SessionRow, 'created_at' | 'platform_metadata'>, events: readonly OutboxEvent[], hits: readonly SessionWatchlistHit[] = []): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    { kind: 'created', type: null, text: null, at: row.created_at.toISOString() },
    ...events.map((e): TimelineEntry => ({ kind: 'event', type: e.type, text: e.status, at: iso(e.at) })),
    ...(row.platform_metadata.operatorNotes ?? []).map((n): TimelineEntry => ({ kind: 'note', type: null, text: n.note, at: iso(n.created_at) })),
    ...hits.flatMap((h): TimelineEntry[] =>
      h.decision
        ? [{ kind: 'watchlist_decision', type: h.decision.outcome, text: h.decision.reason, at: h.decision.decided_at, hit: { list: h.list, entity_id: h.entity_id, matched_name: h.matched_name, decided_by: h.decision.decided_by.email } }]
        : [],
    ),
  ];
  // a stable sort: ties keep the order above
  return entries
    .map((e, i) => ({ e, i, t: Date.parse(e.at) }))
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map((x) => x.e);
}

/** An instant as `toISOString` writes it (what every other timestamp of the API looks like). */
function iso(at: string): string {
  const t = Date.parse(at);
  return Number.isNaN(t) ? at : new Date(t).toISOString();
}
