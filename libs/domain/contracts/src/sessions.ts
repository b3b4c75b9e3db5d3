import type { IdvDocument, IdvHolder } from './capture.js';
import type { Mode } from '@verity/keys';
import type { CheckOutcome, CheckType } from './screening.js';
import type { EvidenceAvailability } from './evidence.js';

export const SESSION_STATUSES = ['pending', 'in_progress', 'completed', 'manual_review', 'cancelled', 'expired', 'skipped', 'errored'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export type SessionOutcome = 'approved' | 'declined' | null;
export type ExpectedOutcome = 'pass' | 'review' | 'fail' | 'doc_quality';
export type EvidenceArtifact = 'portrait' | 'front' | 'selfie';

/**
 * One check of a session as read (contract §20): its outcome (null before it ran), the stable codes of what was
 * found (docs/reading.md, "Reasons"; empty when nothing was, and always in test mode), and a score in [0, 1] for
 * `face_match` and `liveness` (null for the other checks, in test mode, and when nothing was scored).
 */
export interface SessionCheck {
  type: CheckType;
  outcome: CheckOutcome | null;
  reasons: string[];
  score: number | null;
}

export interface Session {
  id: string;
  object: 'session';
  applicant_id: string;
  workflow_template_id: string;
  /** The version of the template the session is pinned to: the one its runs ran. */
  workflow_template_version: number;
  mode: Mode;
  status: SessionStatus;
  outcome: SessionOutcome;
  checks: SessionCheck[];
  metadata: Record<string, unknown>;
  /** Only on GET /v1/sessions/{id}, only for runs with an identity check. */
  idv?: Idv;
  /**
   * Only on GET /v1/sessions/{id}: how screening decided the last run; null before a run has rested, or when it
   * ended without screening (a run given up).
   */
  screening?: SessionScreening | null;
  /** The capture link (docs/capture.md): live sessions while `pending` or `in_progress`; null otherwise, always in test mode. */
  url: string | null;
  client_secret: string | null;
  expires_at: string | null;
  /** The applicant's personal data was erased (docs/privacy.md): `metadata` is empty and `idv` holds nothing read from the document. */
  erased: boolean;
  created_at: string;
  updated_at: string;
}

/** Why screening decided what it did: the rules that fired (names and field paths, never an applicant value). */
export interface SessionScreening {
  /** `review` sends the run to manual review; `approve` never overrides a check; `none`: no rule decided. */
  decision: 'approve' | 'review' | 'none';
  /** The sum of the fired `adjust_score` rules. */
  score: number;
  /** A score at or above it sends the run to review; null for runs recorded before it was reported. */
  review_threshold: number | null;
  /** A `decline` fired and was floored to review. */
  decline_floored: boolean;
  tags: string[];
  /** In evaluation order (ascending priority, then position in the template). */
  rules_fired: Array<{ name: string; rule_type: string; action: string; priority: number | null; fields: string[] }>;
}

/**
 * `idv` of a session read: the stored images and the acquisition; for a live run also what was read from the
 * document (null when it could not be read). Test runs read no document and carry neither.
 */
export interface Idv extends EvidenceAvailability {
  document?: IdvDocument | null;
  holder?: IdvHolder | null;
}

/**
 * Payload of every kyc.session.* event: reference fields, no personal data. The events of a resting session
 * (`kyc.session.completed`, `kyc.session.manual_review_requested`) also carry its `checks` (codes and scores).
 */
export interface SessionEventData {
  sessionId: string;
  status: SessionStatus;
  outcome: SessionOutcome;
  occurredAt: string;
  checks?: SessionCheck[];
  /**
   * `kyc.session.watchlist_hit`: the new hits found when a list was reloaded (docs/watchlist.md, "Monitoring"): which
   * list, the listed person's id in it and the score; no name of the applicant's.
   */
  watchlistHits?: SessionWatchlistHitRef[];
}

/** A hit as a `kyc.session.watchlist_hit` event names it: references and the score only. */
export interface SessionWatchlistHitRef {
  list: string;
  entityId: string;
  score: number;
}

export const SESSION_EVENT_TYPES = [
  'kyc.session.completed',
  'kyc.session.cancelled',
  'kyc.session.manual_review_requested',
  'kyc.session.expired',
  'kyc.session.skipped_by_applicant',
  'kyc.session.watchlist_hit',
] as const;
export type SessionEventType = (typeof SESSION_EVENT_TYPES)[number];
/** Types actually delivered; the other two are reserved (accepted on a subscription, never emitted). */
export const DELIVERED_SESSION_EVENT_TYPES: readonly SessionEventType[] = [
  'kyc.session.completed',
  'kyc.session.cancelled',
  'kyc.session.manual_review_requested',
  'kyc.session.watchlist_hit',
];

/** A message of the region's event stream. Its JetStream message id is `id`, so a relay twice publishes once. */
export interface DomainEvent {
  id: string;
  type: SessionEventType;
  /** ISO 8601 */
  timestamp: string;
  org_id: string;
  mode: Mode;
  data: SessionEventData;
}

const UTF8 = new TextDecoder();

/**
 * A domain event read defensively from the stream (raw JSON bytes, or a parsed value): null unless it has the
 * fields consumers rely on. Anything else in it is ignored.
 */
export function parseDomainEvent(data: unknown): DomainEvent | null {
  let e: Partial<DomainEvent> | null;
  try {
    e = (data instanceof Uint8Array ? JSON.parse(UTF8.decode(data)) : data) as Partial<DomainEvent> | null;
  } catch {
    return null;
  }
  if (!e || typeof e !== 'object') return null;
  const d = e.data as Partial<DomainEvent['data']> | undefined;
  if (typeof e.id !== 'string' || e.id.length === 0 || e.id.length > 100) return null;
  if (typeof e.type !== 'string' || typeof e.org_id !== 'string' || (e.mode !== 'test' && e.mode !== 'live')) return null;
  if (typeof e.timestamp !== 'string' || Number.isNaN(Date.parse(e.timestamp))) return null;
  if (!d || typeof d !== 'object' || typeof d.sessionId !== 'string') return null;
  return e as DomainEvent;
}

/** The region's JetStream stream of domain events and its subjects: `<root>.events.<type>`. */
export function eventStreamName(root: string): string {
  return `${root.replace(/[^A-Za-z0-9_-]/g, '_')}_EVENTS`;
}
export function eventSubject(root: string, type: string): string {
  return `${root}.events.${type}`;
}

/** Operator request of `sessions.email-log.v1`: newest first, `limit` 1 to 100 (default 20). */
export interface EmailLogRequest {
  org_id: string;
  limit?: number;
  mode?: Mode;
}

/**
 * One email the platform sent or, in test mode, would have sent. The recipient is masked (`j***@e***.com`);
 * the address itself and the body are never stored.
 */
export interface EmailLogEntry {
  id: string;
  object: 'email';
  session_id: string;
  mode: Mode;
  template: string;
  subject: string;
  recipient: string;
  /** `suppressed` (test mode: never delivered), `pending`, `sent`, `failed`, `skipped` (the session left pending first). */
  status: 'suppressed' | 'pending' | 'sent' | 'failed' | 'skipped';
  created_at: string;
  sent_at: string | null;
}
