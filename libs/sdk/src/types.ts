/**
 * The wire shapes the client sends and receives, in one file. Today they are type-only imports of the
 * repository's own contracts (erased at runtime); this file is meant to be replaced by types generated from
 * `GET /v1/openapi.json` (docs/openapi.md) without touching the rest of the client.
 */
import type {
  Address,
  Applicant,
  CheckOutcome,
  CheckType,
  DataSubjectRequest,
  DsarExport,
  DsarType,
  EvidenceArtifact,
  ExpectedOutcome,
  IdScanResult,
  Idv,
  Page,
  Session,
  SessionEventData,
  SessionEventType,
  SessionOutcome,
  SessionStatus,
  SigningDocument,
  WebhookAttempt,
  WorkflowTemplate,
} from '@verity/contracts';
import type { ErrorCode, ErrorEnvelope, ErrorType, Issue } from '@verity/errors';
import type { KeyType, Mode, Region, Scope } from '@verity/keys';
import type { ScreeningRule } from '@verity/screening-engine';

export type {
  Address,
  Applicant,
  CheckOutcome,
  CheckType,
  DataSubjectRequest,
  DsarExport,
  DsarType,
  ErrorCode,
  ErrorEnvelope,
  ErrorType,
  EvidenceArtifact,
  ExpectedOutcome,
  IdScanResult,
  Idv,
  Issue,
  KeyType,
  Mode,
  Page,
  Region,
  Scope,
  ScreeningRule,
  Session,
  SessionEventData,
  SessionEventType,
  SessionOutcome,
  SessionStatus,
  SigningDocument,
  WebhookAttempt,
  WorkflowTemplate,
};

/** `GET /v1/me`: the calling key. */
export interface ApiKeyInfo {
  id: string;
  object: 'api_key';
  org_id: string;
  mode: Mode;
  region: Region;
  scopes: Scope[];
}

/** Common list parameters (docs/authentication.md): `limit` 1 to 100 (default 20), `cursor` from the previous page. */
export interface ListParams {
  limit?: number;
  cursor?: string;
}

/** `POST /v1/applicants` (docs/applicants.md). */
export interface ApplicantCreateParams {
  family_name: string;
  given_names?: string[];
  name_suffix?: string;
  email?: string;
  /** E.164 */
  phone?: string;
  /** `YYYY-MM-DD` */
  date_of_birth?: string;
  address?: Address;
  external_id?: string;
}

/** A screening rule as sent: `priority` (default 100) and `isActive` (default true) may be left out. */
export type ScreeningRuleInput = Omit<ScreeningRule, 'priority' | 'isActive'> & Partial<Pick<ScreeningRule, 'priority' | 'isActive'>>;

/** `POST /v1/workflow-templates` (docs/screening.md). */
export interface WorkflowTemplateCreateParams {
  name: string;
  checks?: CheckType[];
  screening_rules?: ScreeningRuleInput[];
  metadata?: Record<string, unknown>;
  device_intelligence?: boolean;
  photo_upload?: boolean;
  review_threshold?: number;
  /** Required when `checks` holds `document_signing`. */
  signing_document?: SigningDocument;
}

/** `PATCH /v1/workflow-templates/{id}`: only the fields sent change; `signing_document: null` removes it. */
export type WorkflowTemplateUpdateParams = Partial<Omit<WorkflowTemplateCreateParams, 'signing_document'>> & {
  signing_document?: SigningDocument | null;
};

/** `POST /v1/sessions` (docs/sessions.md). */
export interface SessionCreateParams {
  applicant_id: string;
  workflow_template_id: string;
  metadata?: Record<string, unknown>;
  /** Test mode only (default `pass`); ignored in live mode. */
  expected_outcome?: ExpectedOutcome;
}

/** `GET /v1/sessions` filters. */
export interface SessionListParams extends ListParams {
  status?: SessionStatus;
  applicant_id?: string;
}

/** `POST /v1/sessions/{id}/decision`: only from `manual_review`. */
export interface SessionDecisionParams {
  outcome: 'approved' | 'declined';
  reason?: string;
}

/** `GET /v1/webhook-events` filters. */
export interface WebhookEventListParams extends ListParams {
  session_id?: string;
  subscription_id?: string;
}

/** `POST /v1/data_subject_requests` (docs/privacy.md). */
export interface DataSubjectRequestCreateParams {
  type: DsarType;
  applicant_id: string;
}

/** `POST /v1/id-verification` (docs/id-scan.md): images as bytes (JPEG, PNG or WebP, recognised by their bytes). */
export interface IdScanParams {
  front: Uint8Array;
  back?: Uint8Array;
  /** Test mode only (refused in live mode). */
  expected_outcome?: ExpectedOutcome;
}

/** The body of a webhook delivery (docs/webhooks.md). */
export interface WebhookEvent {
  type: SessionEventType;
  /** ISO 8601 */
  timestamp: string;
  data: SessionEventData;
}

/** The `error` member of every non-2xx answer (docs/errors.md). */
export type ErrorBody = ErrorEnvelope['error'];
