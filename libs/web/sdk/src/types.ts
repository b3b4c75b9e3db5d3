/**
 * The wire shapes the client sends and receives. They are generated from the gateway's OpenAPI document
 * (`src/generated/openapi.ts`, by openapi-typescript from apps/gateway/openapi/openapi.json; `npm run openapi`
 * regenerates both); this file names them for the client. Only list and upload parameters are written here.
 */
import type { components } from './generated/openapi.js';

type Schemas = components['schemas'];

export type Applicant = Schemas['Applicant'];
export type Address = NonNullable<Applicant['address']>;
export type WorkflowTemplate = Schemas['WorkflowTemplate'];
export type ScreeningRule = Schemas['ScreeningRule'];
export type ScreeningRuleInput = Schemas['ScreeningRuleInput'];
export type SigningDocument = NonNullable<WorkflowTemplate['signing_document']>;
export type CheckType = WorkflowTemplate['checks'][number];
export type Session = Schemas['Session'];
export type SessionStatus = Session['status'];
export type SessionOutcome = Session['outcome'];
/** A check of a session: outcome, reason codes (docs/reading.md, "Reasons") and, for the face checks, a score. */
export type SessionCheck = Schemas['SessionCheck'];
export type CheckOutcome = NonNullable<SessionCheck['outcome']>;
export type Idv = Schemas['Idv'];
export type EvidenceArtifact = Idv['available_images'][number];
export type SessionScreening = Schemas['SessionScreening'];
export type DataSubjectRequest = Schemas['DataSubjectRequest'];
export type DsarType = DataSubjectRequest['type'];
export type DsarExport = NonNullable<DataSubjectRequest['export']>;
export type WebhookAttempt = Schemas['WebhookAttempt'];
export type IdScanResult = Schemas['IdScanResult'];
/** `GET /v1/me`: the calling key. */
export type ApiKeyInfo = Schemas['ApiKey'];
export type Mode = ApiKeyInfo['mode'];
export type Region = ApiKeyInfo['region'];
export type Scope = ApiKeyInfo['scopes'][number];
export type KeyType = 'sk' | 'pk';
/** The error envelope of every non-2xx answer (docs/errors.md). */
export type ErrorEnvelope = Schemas['Error'];
export type ErrorBody = ErrorEnvelope['error'];
export type ErrorCode = ErrorBody['code'];
export type ErrorType = ErrorBody['type'];
export type Issue = Schemas['ValidationIssue'];
/** The body of a webhook delivery (docs/webhooks.md). */
export type WebhookEvent = Schemas['WebhookEvent'];
export type SessionEventType = WebhookEvent['type'];
export type SessionEventData = WebhookEvent['data'];

/** Request bodies. */
export type ApplicantCreateParams = Schemas['ApplicantInput'];
export type WorkflowTemplateCreateParams = Schemas['WorkflowTemplateCreate'];
export type WorkflowTemplateUpdateParams = Schemas['WorkflowTemplateUpdate'];
export type SessionCreateParams = Schemas['SessionCreate'];
export type ExpectedOutcome = NonNullable<SessionCreateParams['expected_outcome']>;
export type SessionDecisionParams = Schemas['SessionDecision'];
export type DataSubjectRequestCreateParams = Schemas['DataSubjectRequestCreate'];

/** A page of a list: newest first, `next_cursor` null on the last page. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** Common list parameters (docs/authentication.md): `limit` 1 to 100 (default 20), `cursor` from the previous page. */
export interface ListParams {
  limit?: number;
  cursor?: string;
}

/** `GET /v1/sessions` filters. */
export interface SessionListParams extends ListParams {
  status?: SessionStatus;
  applicant_id?: string;
}

/** `GET /v1/webhook-events` filters. */
export interface WebhookEventListParams extends ListParams {
  session_id?: string;
  subscription_id?: string;
}

/** `POST /v1/id-verification` (docs/id-scan.md): images as bytes (JPEG, PNG or WebP, recognised by their bytes). */
export interface IdScanParams {
  front: Uint8Array;
  back?: Uint8Array;
  /** Test mode only (refused in live mode). */
  expected_outcome?: ExpectedOutcome;
}


