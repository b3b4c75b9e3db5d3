import type { DomainEvent, SessionOutcome, SessionStatus } from '@verity/contracts';
import { newId, type Mode } from '@verity/keys';
import { eventTypeFor } from '../sessions/transitions.js';

/**
 * The event a session's new status delivers (docs/webhooks.md, "Events"), or null when the Events table delivers none.
 * Reference fields only: no applicant data, no metadata.
 */
export function sessionEvent(
  s: { id: string; org_id: string; mode: Mode; status: SessionStatus; outcome: SessionOutcome },
  occurredAt: Date,
): DomainEvent | null {
  const type = eventTypeFor(s.status);
  if (!type) return null;
  const at = occurredAt.toISOString();
  return {
    id: newId('event'),
    type,
    timestamp: at,
    org_id: s.org_id,
    mode: s.mode,
    data: { sessionId: s.id, status: s.status, outcome: s.outcome, occurredAt: at },
  };
}
