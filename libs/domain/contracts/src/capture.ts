import type { Mode, Region } from '@verity/keys';
import type { Owner, Principal } from './principal.js';
import type { CheckOutcome, CheckType } from './screening.js';
import type { SessionStatus } from './sessions.js';

/**
 * The live capture flow (docs/capture.md): a live session's applicant finishes it on the region's hosted page, or on
 * a page of the business's own, through the capture API, authenticated by the session's client secret.
 */

/** Steps of a capture, in order. */
export const CAPTURE_STEPS = ['document_front', 'document_back', 'selfie'] as const;
export type CaptureStep = (typeof CAPTURE_STEPS)[number];

/** Images a capture takes: `PUT /v1/capture/images/{artifact}`. */
export const CAPTURE_IMAGES = ['front', 'back', 'selfie'] as const;
export type CaptureImage = (typeof CAPTURE_IMAGES)[number];

/** The moves a liveness challenge is made of: the applicant turns their head to their own left, or right. */
export const CHALLENGE_STEPS = ['turn_left', 'turn_right'] as const;
export type ChallengeStep = (typeof CHALLENGE_STEPS)[number];

/** Frames a challenge takes, and their size: `PUT /v1/capture/challenge/frames/{index}` (docs/capture.md). */
export const CHALLENGE_FRAME_LIMITS = { min: 3, max: 8, max_bytes: 2 * 1024 * 1024 } as const;

export const ACQUISITIONS = ['camera', 'upload'] as const;
export type Acquisition = (typeof ACQUISITIONS)[number];

/** The capture link of a live session while it waits for its applicant; all three null once it has moved on. */
export interface CaptureLink {
  /** `<CAPTURE_BASE_URL>/verify/<client_secret>` */
  url: string | null;
  /** `vcs_` + 43 characters of `[A-Za-z0-9]`; authorizes this session's capture routes only. */
  client_secret: string | null;
  /** ISO 8601; creation + `CAPTURE_LINK_TTL`. */
  expires_at: string | null;
}

/** The answer of `GET /v1/capture` (and of submit and skip): the `data` object. */
export interface Capture {
  object: 'capture';
  session_id: string;
  status: SessionStatus;
  steps: CaptureStep[];
  photo_upload: boolean;
  device_intelligence: boolean;
  expires_at: string;
  /** What is uploaded so far, with its size in pixels; null for an image not (yet) uploaded. */
  images: Record<CaptureImage, { width: number; height: number } | null>;
  /** When the capture was submitted; null before. */
  submitted_at: string | null;
  /** The liveness challenge, when the workflow checks liveness; null otherwise. */
  challenge: CaptureChallenge | null;
}

/**
 * What the applicant is asked to do to show they are live (docs/capture.md, "The liveness challenge"): turn their
 * head as `steps` say, in order, while the page takes frames, and send `frames.min` to `frames.max` of them.
 */
export interface CaptureChallenge {
  object: 'capture_challenge';
  steps: ChallengeStep[];
  frames: { min: number; max: number; max_bytes: number };
  /** Frames received so far. */
  frames_received: number;
}

/** The answer of `PUT /v1/capture/challenge/frames/{index}`. */
export interface CaptureFrameStored {
  object: 'capture_frame';
  index: number;
  /** When the frame was taken, in milliseconds from the first frame, as sent. */
  offset_ms: number;
  width: number;
  height: number;
}

/** The answer of `POST /v1/capture/images/{artifact}/check`: can the run use this image, or should it be taken again? */
export interface CaptureImageCheck {
  object: 'capture_image_check';
  artifact: CaptureImage;
  usable: boolean;
  /** Why not (docs/reading.md's codes); empty when usable. */
  reasons: string[];
  /** What to do, in plain words for the applicant; null when usable. */
  message: string | null;
}

/** Documents an applicant can choose on the hosted page: it tells the image check what a front must show. */
export const CAPTURE_DOCUMENT_TYPES = ['passport', 'identity_card', 'driver_license'] as const;
export type CaptureDocumentType = (typeof CAPTURE_DOCUMENT_TYPES)[number];

/**
 * `evidence.capture.check.v1` (the gateway, for a client secret it resolved): check one stored upload in the
 * reading pool. `body` is the request's body as sent (`{ "document_type"? }`), validated by evidence. Changes nothing.
 */
export interface CaptureCheckRequest {
  session_id: string;
  artifact: string;
  body: unknown;
}

/** The answer of `PUT /v1/capture/images/{artifact}`. */
export interface CaptureImageStored {
  object: 'capture_image';
  artifact: CaptureImage;
  width: number;
  height: number;
}

/**
 * Who a capture request acts for, once its client secret resolved: the session and its owner. The gateway
 * attaches it the way it attaches an API key's principal; it grants the session's capture routes only.
 */
export interface CaptureCaller {
  session_id: string;
  org_id: string;
  mode: Mode;
}

/**
 * The principal services see for work done on behalf of a capture (a client secret, not an API key): the
 * session's owner, with no key and no scope. Services scope by organization and mode, as for any principal.
 */
export function capturePrincipal(owner: Owner, region: Region): Principal {
  return {
    org_id: owner.org_id,
    mode: owner.mode,
    region,
    key_id: 'capture',
    key_type: 'pk',
    scopes: [],
    tier: 'standard',
    custom_limits: null,
    billing: { subscription_status: 'active', past_due_since: null, wallet_balance: null, wallet_locked: false },
  };
}

/**
 * `sessions.capture.resolve.v1`: a client secret's SHA-256 hash (hex) to its session. `state` says whether it
 * may capture: `open` (pending or in_progress, not submitted, not past `expires_at`), `expired` (past
 * `expires_at`), or `closed` (submitted, or the session has moved on). An unknown hash: 401
 * `invalid_capture_token`.
 */
export interface CaptureResolveRequest {
  secret_hash: string;
}
export interface CaptureResolveReply extends CaptureCaller {
  state: 'open' | 'expired' | 'closed';
  status: SessionStatus;
  expires_at: string;
}

/** What the server saw of the applicant's connection, added to what the page measured. */
export interface CaptureConnection {
  ip: string;
  user_agent: string | null;
  /** The device cookie the hosted page set (an opaque id), when the browser sent it back. */
  device_id: string | null;
}

/** `sessions.capture.get.v1` */
export interface CaptureGetRequest {
  caller: CaptureCaller;
  connection: CaptureConnection;
}

/**
 * `sessions.capture.image-stored.v1`: evidence stored an image or a challenge frame, as its reply to the gateway says;
 * sessions keeps what the capture needs of it (which images, their sizes, which frames) and never asks evidence back.
 * The first image moves the session `pending` → `in_progress`.
 */
export interface CaptureImageStoredRequest {
  caller: CaptureCaller;
  stored: Pick<CaptureImageStored, 'object' | 'artifact' | 'width' | 'height'> | Pick<CaptureFrameStored, 'object' | 'index' | 'width' | 'height'>;
  connection: CaptureConnection;
}

/** `sessions.capture.submit.v1`: the body of `POST /v1/capture/submit` as sent, validated by sessions. */
export interface CaptureSubmitRequest {
  caller: CaptureCaller;
  body: unknown;
  connection: CaptureConnection;
}

/** `sessions.capture.skip.v1`: the body of `POST /v1/capture/skip` as sent. */
export interface CaptureSkipRequest {
  caller: CaptureCaller;
  body: unknown;
}


/**
 * `evidence.capture.verify.v1`: read the session's capture (document, portrait, face match, liveness), store its
 * evidence (`front`, `portrait` when a face was found, `selfie`, `back`) and record the acquisition. Idempotent:
 * a run retried after a crash stores nothing twice.
 */
export interface CaptureVerifyRequest {
  session_id: string;
  acquisition: Acquisition;
  /**
   * The workflow template's threshold overrides (`thresholds` of docs/screening.md: the reader's `Thresholds`
   * names, each in [0, 1]); what is absent falls back to the evidence service's configuration. Passed through as
   * they are: the template validated them at save.
   */
  thresholds?: Record<string, number>;
  /** The session's liveness challenge, whose frames the run judges; empty when the workflow has no liveness. */
  challenge?: ChallengeStep[];
}

/** A check's outcome with the reasons it did not pass and its score (docs/reading.md). */
export interface CheckVerdict {
  outcome: Exclude<CheckOutcome, 'error'>;
  reasons: string[];
  /** The similarity for `face_match`, the live score for `liveness` (0 to 1); null for `document` or when nothing was measured. */
  score: number | null;
}

/** The document read from the capture, as the session's `idv` shows it: the ID scan's fields. */
export interface IdvDocument {
  type: 'passport' | 'identity_card' | 'driver_license';
  issuing_country: string | null;
  number: string;
  expiry_date: string;
}
export interface IdvHolder {
  family_name: string;
  given_names: string[];
  date_of_birth: string;
  nationality: string | null;
}

export interface CaptureVerifyReply {
  document: IdvDocument | null;
  holder: IdvHolder | null;
  checks: { document: CheckVerdict; face_match: CheckVerdict; liveness: CheckVerdict };
  /** What the run stored, as `idv` shows it. */
  available_images: Array<'portrait' | 'front' | 'selfie'>;
  /**
   * A perceptual fingerprint of the selfie's face picture (16 hex digits; docs/reading.md, "A selfie seen before"),
   * for the sessions service to compare with the organization's earlier selfies; null without one face. Not a
   * biometric template: it identifies a picture, not a person.
   */
  selfie_fingerprint: string | null;
}

/** Check types a live run decides from the capture itself; the others need a provider or the device signals. */
export const CAPTURE_CHECKS = ['document', 'face_match', 'liveness'] as const satisfies readonly CheckType[];
