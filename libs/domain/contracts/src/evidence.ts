import type { Mode } from '@verity/keys';
import type { EvidenceArtifact } from './sessions.js';

/** Artifacts the image endpoint serves, in the order of `idv.available_images`. The back of a document is never served. */
export const SERVED_ARTIFACTS = ['portrait', 'front', 'selfie'] as const satisfies readonly EvidenceArtifact[];

/** Every artifact the evidence service can hold: the served ones, `back` (stored, never served), and the liveness challenge's frames as uploaded. */
export type StoredArtifact = EvidenceArtifact | 'back' | ChallengeFrameArtifact;

/** The uploads of a liveness challenge's frames: `frame_0` to `frame_7` (docs/capture.md). */
export const CHALLENGE_FRAME_ARTIFACTS = ['frame_0', 'frame_1', 'frame_2', 'frame_3', 'frame_4', 'frame_5', 'frame_6', 'frame_7'] as const;
export type ChallengeFrameArtifact = (typeof CHALLENGE_FRAME_ARTIFACTS)[number];

export type CaptureAcquisition = 'camera' | 'upload' | null;

/**
 * `evidence.synthetic.store.v1` (principal of a test-mode organization): render and store the synthetic
 * artifacts of a test run (docs/evidence.md). Idempotent: artifacts already stored for the session are kept.
 */
export interface StoreSyntheticRequest {
  session_id: string;
  capture_acquisition: CaptureAcquisition;
  artifacts: EvidenceArtifact[];
}

/** What the evidence service holds for one session: `idv.capture_acquisition` and `idv.available_images`. */
export interface EvidenceAvailability {
  /** Stored artifacts among portrait, front, selfie, in that order; never `back`. */
  available_images: EvidenceArtifact[];
  /** Null when nothing was recorded for the session. */
  capture_acquisition: CaptureAcquisition;
}

/**
 * `evidence.available.v1`'s answer: the availability above, and whether the back of the document is stored. The back
 * is shown to reviewers in the console only (docs/evidence.md); the API's session read never carries this flag.
 */
export interface EvidenceHoldings extends EvidenceAvailability {
  back_stored?: boolean;
}

/**
 * Whether a principal is a person signed in to the console (its `key_id` is their user id, `usr_…`), not an API key:
 * the only caller the back of a document is ever served to.
 */
export function isConsolePrincipal(p: { key_id: string } | null | undefined): boolean {
  return typeof p?.key_id === 'string' && /^usr_[A-Za-z0-9]{24}$/.test(p.key_id);
}

export const ACTIVITY_ACTIONS = ['kyc.idv.evidence_exported', 'kyc.idv.evidence_export_failed', 'kyc.idv.document_scanned'] as const;
export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

/**
 * One entry of an organization's activity log: who did what to which verification, and how it ended. Never
 * applicant data, image bytes or extracted document fields.
 */
export interface ActivityEntry {
  id: string;
  object: 'activity';
  action: ActivityAction;
  org_id: string;
  mode: Mode;
  /** The verification, for image-endpoint entries; null for ID scans (which create none). */
  session_id: string | null;
  /** `portrait`, `front` or `selfie` for image-endpoint entries (`back`: a reviewer in the console); never a challenge frame; null otherwise. */
  artifact: EvidenceArtifact | 'back' | null;
  /**
   * Image endpoint: `served` or `artifact_not_available`. ID scan: in test mode the synthetic outcome, `pass`,
   * `review`, `fail` or `doc_quality`; in live mode `pass`, `review` or `unreadable`.
   */
  outcome: string;
  request_id: string;
  key_id: string | null;
  created_at: string;
}

/** Operator request of the activity log: newest first, `limit` 1 to 100 (default 20). */
export interface ActivityListRequest {
  org_id: string;
  session_id?: string;
  limit?: number;
}

/** The 200 answer of POST /v1/id-verification (docs/id-scan.md). */
export interface IdScanResult {
  object: 'id_scan';
  mode: Mode;
  outcome: 'pass' | 'review';
  /**
   * Why the outcome is `review`, most serious first (`document_expired`, `date_of_birth_invalid`,
   * `unknown_issuing_state`, `unknown_nationality`); empty on a `pass`, and always empty in test mode.
   */
  reasons: string[];
  /** `issuing_country` is ISO 3166-1 alpha-2, or null when the issuer is not a country. */
  document: { type: string; issuing_country: string | null; number: string; expiry_date: string };
  /** `nationality` is ISO 3166-1 alpha-2, or null when it names no country (and on driving licences). */
  holder: { family_name: string; given_names: string[]; date_of_birth: string; nationality: string | null };
}
