import type { SessionEventType, SessionStatus } from '@verity/contracts';

/** What moves a session: an operator action (docs/sessions.md) or the platform itself (`system`). */
export type Actor = 'cancel' | 'review' | 'decision' | 'system';

/**
 * The transition table of docs/sessions.md. A status missing from a row does not allow that actor at all
 * (409 `invalid_state_transition` for an operator action). Notes are not a transition: allowed in every status.
 */
const TABLE: Record<SessionStatus, Partial<Record<Actor, readonly SessionStatus[]>>> = {
  pending: { cancel: ['cancelled'], review: ['manual_review'], system: ['in_progress', 'expired'] },
  in_progress: { cancel: ['cancelled'], review: ['manual_review'], system: ['completed', 'manual_review', 'errored', 'skipped'] },
  manual_review: { cancel: ['cancelled'], decision: ['completed'] },
  completed: {},
  cancelled: {},
  expired: {},
  skipped: {},
  errored: {},
};

export function canTransition(from: SessionStatus, actor: Actor, to: SessionStatus): boolean {
  return TABLE[from][actor]?.includes(to) ?? false;
}

/** The status an operator action leads to from `from`, or null when the table refuses it. */
export function actionTarget(from: SessionStatus, action: Exclude<Actor, 'system'>): SessionStatus | null {
  return TABLE[from][action]?.[0] ?? null;
}

/** A status no transition leaves. */
export function isTerminal(status: SessionStatus): boolean {
  return Object.keys(TABLE[status]).length === 0;
}

/**
 * The event the Events table of docs/webhooks.md delivers for reaching `status`, or null. `expired` and `skipped` have
 * reserved event types that are never emitted; `errored`, `in_progress` and `pending` have none.
 */
export function eventTypeFor(status: SessionStatus): SessionEventType | null {
  switch (status) {
    case 'completed':
      return 'kyc.session.completed';
    case 'cancelled':
      return 'kyc.session.cancelled';
    case 'manual_review':
      return 'kyc.session.manual_review_requested';
    default:
      return null;
  }
}
