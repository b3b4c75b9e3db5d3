import type { Mode, Region } from '@verity/keys';
import type { Applicant } from './applicants.js';
import type { ActivityEntry, StoredArtifact } from './evidence.js';
import type { EmailLogEntry, Session } from './sessions.js';
import type { WebhookAttempt } from './webhooks.js';

/**
 * Data subject requests (docs/privacy.md). The applicants service owns the requests and runs them: it asks each
 * service that holds records of the applicant over NATS, with the requesting key's principal (so every query is
 * scoped to the request's organization and mode), and records each service's answer before the next step.
 */
export const DSAR_TYPES = ['access', 'erasure'] as const;
export type DsarType = (typeof DSAR_TYPES)[number];

/** What each service reports having erased: counts keyed by what they name (`applicant`, `sessions.metadata`, `email_log`, …). */
export type ErasureCounts = Record<string, number>;

/** The public shape of a data subject request (POST 202 and GET). */
export interface DataSubjectRequest {
  id: string;
  object: 'data_subject_request';
  type: DsarType;
  applicant_id: string;
  mode: Mode;
  status: 'pending' | 'completed';
  created_at: string;
  completed_at: string | null;
  /** `access` once completed (docs/privacy.md). Absent otherwise; null once an erasure of the applicant wiped it. */
  export?: DsarExport | null;
  /** `erasure` once completed: a compact JWS (EdDSA) over `ErasureCertificatePayload`. */
  certificate?: string;
}

/**
 * Everything the region holds about one applicant. On read the gateway gives every image its `url` and inlines the
 * first `DSAR_INLINE_IMAGES` of them as base64 JPEG.
 */
export interface DsarExport {
  applicant: Applicant;
  sessions: Session[];
  email_log: EmailLogEntry[];
  evidence: DsarArtifact[];
  /** Filled in by the gateway: how many of the first `evidence` entries carry their bytes in `data_base64`. */
  evidence_inlined?: number;
  /** Filled in by the gateway: how many `evidence` entries there are. */
  evidence_total?: number;
  activity: ActivityEntry[];
  webhook_events: WebhookAttempt[];
}

/**
 * One stored image of the applicant's sessions: `artifact` rows are what the image endpoint serves (and `back`),
 * `upload` rows are a live capture's uploads. The gateway reads the bytes from the evidence service's internal
 * HTTP side, `GET /sessions/{session_id}/stored-images/{source}/{artifact}`, signed like the image endpoint.
 */
export interface DsarArtifact {
  source: 'artifact' | 'upload';
  session_id: string;
  artifact: StoredArtifact;
  content_type: 'image/jpeg';
  byte_size: number;
  sha256: string;
  created_at: string;
  /** Filled in by the gateway: the path of this image's own route, `/v1/data_subject_requests/{id}/images/{index}`. */
  url?: string;
  /**
   * The JPEG as base64, filled in by the gateway for the first `evidence_inlined` entries; null for the others and
   * when the image is no longer stored.
   */
  data_base64?: string | null;
}

/** The payload of an erasure certificate. */
export interface ErasureCertificatePayload {
  /** `<region>/erasure`: the issuer, checked by verifiers. */
  iss: string;
  /** The applicant's id. */
  sub: string;
  /** The data subject request's id. */
  jti: string;
  /** Seconds since the epoch when the erasure completed. */
  iat: number;
  region: Region;
  org_id: string;
  mode: Mode;
  /** Per service, what it erased (zero counts on a repeated run: it was already gone). */
  erased: Record<string, ErasureCounts>;
}

/** `<service>.privacy.erase.v1`: erase the principal's applicant's personal data. Idempotent. */
export interface PrivacyEraseRequest {
  applicant_id: string;
  /** The applicant's sessions (as the sessions service reported them); empty for the sessions service itself. */
  session_ids: string[];
}
export interface PrivacyEraseReply {
  erased: ErasureCounts;
}

/** `sessions.privacy.erase.v1` also names the applicant's sessions, so the next services can erase by session. */
export interface SessionsEraseReply extends PrivacyEraseReply {
  session_ids: string[];
}

/** `<service>.privacy.export.v1`: the principal's records of the applicant (or of its sessions). */
export interface PrivacyExportRequest {
  applicant_id: string;
  session_ids: string[];
}
export interface SessionsExportReply {
  sessions: Session[];
  email_log: EmailLogEntry[];
  session_ids: string[];
}
export interface EvidenceExportReply {
  evidence: DsarArtifact[];
  activity: ActivityEntry[];
}
export interface WebhooksExportReply {
  webhook_events: WebhookAttempt[];
}

/** `<service>.admin.purge-test-data.v1` (operator): delete every test-mode record of an organization. */
export interface PurgeTestDataRequest {
  org_id: string;
}
export interface PurgeTestDataReply {
  /** What was removed, counted per table (`applicants`, `sessions`, `email_log`, …). */
  removed: Record<string, number>;
}

/** The region's erasure keys as a JWKS (`GET /.well-known/erasure-keys.json`). */
export interface ErasureKeySet {
  keys: Array<{ kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' }>;
}
