import type { DomainEvent, SessionEventType } from '@verity/contracts';
import { newId, type Mode } from '@verity/keys';

/** A domain event of a session, as the sessions outbox publishes it (a completed one unless `type` says otherwise). */
export function sessionEvent(orgId: string, mode: Mode, type: SessionEventType = 'kyc.session.completed', over: Partial<DomainEvent> = {}): DomainEvent {
  const at = new Date().toISOString();
  const status = type === 'kyc.session.cancelled' ? 'cancelled' : type === 'kyc.session.manual_review_requested' ? 'manual_review' : 'completed';
  return {
    id: newId('event'),
    type,
    timestamp: at,
    org_id: orgId,
    mode,
    data: { sessionId: newId('session'), status, outcome: status === 'completed' ? 'approved' : null, occurredAt: at },
    ...over,
  };
}
