import type { DomainEvent, SessionOutcome, SessionStatus, SessionWatchlistHitRef } from '@verity/contracts';
import { newId, type Mode } from '@verity/keys';
import { sessionChecks } from '../sessions/checks.js';
import { eventTypeFor } from '../sessions/transitions.js';

/** Events of a resting session: they carry its checks. */
const RESTING_EVENTS: ReadonlySet<string> = new Set(['kyc.session.completed', 'kyc.session.manual_review_requested']);

/**
 * The event a session's new status delivers (docs/webhooks.md, "Events"), or null when the Events table delivers none.
 * Reference fields, and for a resting session its checks (outcomes, reason codes, scores): no applicant data, no
 * metadata.
 */
export function sessionEvent(
  s: { id: string; org_id: string; mode: Mode; status: SessionStatus; outcome: SessionOutcome; checks?: unknown },
  occurredAt: Date,
): DomainEvent | null {
  const type = eventTypeFor(s.status);
  if (!type) return null;
  const at = occurredAt.toISOString();
  const data: DomainEvent['data'] = { sessionId: s.id, status: s.status, outcome: s.outcome, occurredAt: at };
  if (RESTING_EVENTS.has(type)) data.checks = sessionChecks(s.checks);
  return { id: newId('event'), type, timestamp: at, org_id: s.org_id, mode: s.mode, data };
}

/**
 * `kyc.session.watchlist_hit` (docs/webhooks.md, docs/watchlist.md "Monitoring"): an approved live session matched a
 * reloaded list and is back in review. Reference fields, the session's checks, and the new hits as references (the
 * list, the listed person's id, the score): no applicant data.
 */
export function watchlistHitEvent(
  s: { id: string; org_id: string; mode: Mode; status: SessionStatus; outcome: SessionOutcome; checks?: unknown },
  hits: readonly SessionWatchlistHitRef[],
  occurredAt: Date,
): DomainEvent {
  const at = occurredAt.toISOString();
  return {
    id: newId('event'),
    type: 'kyc.session.watchlist_hit',
    timestamp: at,
    org_id: s.org_id,
    mode: s.mode,
    data: { sessionId: s.id, status: s.status, outcome: s.outcome, occurredAt: at, checks: sessionChecks(s.checks), watchlistHits: hits.map((h) => ({ ...h })) },
  };
}
