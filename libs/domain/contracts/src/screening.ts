import type { Mode } from '@verity/keys';
import type { CheckOutcome, EvaluationContext } from '@verity/screening-engine';

/** Check types of a workflow (docs/screening.md); `document`, `face_match` and `liveness` together are the identity check. */
export const CHECK_TYPES = ['document', 'face_match', 'liveness', 'credit_history', 'watchlist', 'adverse_media', 'device', 'document_signing'] as const;
export type CheckType = (typeof CHECK_TYPES)[number];
export type { CheckOutcome };

/** Variables a signing document can place (docs/screening.md), each fed by the session metadata key of the same name. */
export const SIGNING_VARIABLES = ['start_datetime', 'end_datetime', 'amount', 'currency', 'location'] as const;
export type SigningVariable = (typeof SIGNING_VARIABLES)[number];

export interface SigningDocument {
  title: string;
  /** The variables the document places, in document order. */
  variables: SigningVariable[];
}

/** Kinds of identity document a live run reads (`idv.document.type`). */
export const DOCUMENT_TYPES = ['passport', 'identity_card', 'driver_license'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** What a live run's `document` check does when the applicant's names or date of birth are not the holder's. */
export const APPLICANT_MISMATCH_POLICIES = ['review', 'fail'] as const;
export type ApplicantMismatchPolicy = (typeof APPLICANT_MISMATCH_POLICIES)[number];

/**
 * The document policy of a template (docs/screening.md, "Document policy"), judged by live runs from what the
 * document says. Null: no limit.
 */
export interface DocumentPolicyFields {
  /** The youngest accepted age in whole years on the day of the run, from the document's date of birth (`underage`). */
  minimum_age: number | null;
  /** `document_type_not_accepted` for any other type. */
  accepted_document_types: DocumentType[] | null;
  /** ISO 3166-1 alpha-2; `issuer_not_accepted` for any other issuer, or one that is no country. */
  accepted_issuing_countries: string[] | null;
  /** `applicant_mismatch` sends the `document` check to `review` (default) or fails it. */
  applicant_mismatch: ApplicantMismatchPolicy;
  /**
   * Overrides of the reader's face thresholds (its `Thresholds` names, e.g. `faceMatchPass`, `faceMatchReview`):
   * each in [0, 1], a pass and its review set together, review ≤ pass. Empty: the region's configuration.
   */
  thresholds: Record<string, number>;
}

/**
 * A template's own watchlist thresholds (docs/watchlist.md, "Per workflow"), over the region's
 * `WATCHLIST_REVIEW_THRESHOLD` and `WATCHLIST_FAIL_THRESHOLD`: each absent one is the region's; `fail: null` fails no
 * hit by itself whatever the region sets. Each in [0.5, 1], `review` ≤ `fail` when both are set.
 */
export interface WatchlistThresholds {
  review?: number;
  fail?: number | null;
}

export interface WorkflowTemplate extends DocumentPolicyFields {
  id: string;
  object: 'workflow_template';
  mode: Mode;
  name: string;
  /** Increments on every accepted change; a version is immutable once created. */
  version: number;
  checks: CheckType[];
  /** Normalized rules as stored (defaults applied). */
  screening_rules: unknown[];
  metadata: Record<string, unknown>;
  device_intelligence: boolean;
  photo_upload: boolean;
  review_threshold: number;
  /** Present exactly when `checks` holds `document_signing`. */
  signing_document: SigningDocument | null;
  /** The `watchlist` check's thresholds for this workflow; empty: the region's configuration. */
  watchlist_thresholds: WatchlistThresholds;
  created_at: string;
  updated_at: string;
}

/** What a verification run needs of a template, pinned to one version. */
export type TemplateVersion = Omit<WorkflowTemplate, 'object' | 'created_at' | 'updated_at'>;

/**
 * The resolved facts of one run as they travel to the screening service: the engine's own type
 * (libs/domain/screening-engine), with `now` an ISO 8601 instant.
 */
export type EvaluationContextWire = EvaluationContext<string>;

export interface EvaluateRequest {
  template_id: string;
  version: number;
  context: EvaluationContextWire;
}

export type EvaluateReply =
  | {
      status: 'ok';
      decision: 'approve' | 'review' | 'none';
      score: number;
      /** The template version's review threshold: a score at or above it sends the run to review. */
      review_threshold: number;
      tags: string[];
      decline_floored: boolean;
      /** `priority` is null only in runs recorded before it was reported. */
      fired: Array<{ index: number; name: string; ruleType: string; action: string; priority: number | null; fields: string[] }>;
      trace: Array<{ index: number; name: string; fired: boolean; fields: string[] }>;
    }
  | { status: 'errored'; reason: 'session_metadata_invalid'; key: string };
