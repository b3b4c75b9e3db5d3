import {
  ACQUISITIONS,
  ACTIVITY_ACTIONS,
  CAPTURE_DOCUMENT_TYPES,
  CAPTURE_IMAGES,
  CAPTURE_STEPS,
  CHALLENGE_FRAME_ARTIFACTS,
  CHALLENGE_STEPS,
  DSAR_TYPES,
  SESSION_EVENT_TYPES,
  SESSION_STATUSES,
} from '@verity/contracts';
import { FORM_FACTORS, SIGNAL_LIMITS } from '@verity/device-intel';
import { ERROR_CATALOGUE, type ErrorCode, type ErrorType } from '@verity/errors';
import { SCOPES } from '@verity/keys';
import { ROUTE_CLASSES, TIERS } from '@verity/ratelimit';
import { z } from 'zod';
import { applicant } from './applicants.js';
import { id, mode, region, timestamp } from './common.js';
import { evidenceArtifact, session, sessionCheck, sessionStatus } from './sessions.js';

// --- GET /v1/me ---------------------------------------------------------------------------------------------------

/** The API key object of `GET /v1/me` (docs/authentication.md). */
export const apiKey = z.object({
  id: id('key', 'API key'),
  object: z.literal('api_key'),
  org_id: id('org', 'Organization'),
  mode,
  region,
  scopes: z.array(z.enum(SCOPES)),
});
export type ApiKeyObject = z.infer<typeof apiKey>;

// --- lists --------------------------------------------------------------------------------------------------------

/** The parameters of every list (docs/authentication.md); a bad value or an unknown parameter is 422 `validation_error`. */
export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: 'Page size, 1 to 100.' }),
  cursor: z.string().optional().meta({ description: '`next_cursor` of the previous page (opaque).' }),
});

export const sessionListQuery = listQuery.extend({
  status: z.enum(SESSION_STATUSES).optional().meta({ description: 'Only sessions in this status.' }),
  applicant_id: z.string().max(100).optional().meta({ description: "Only this applicant's sessions (an unknown id matches nothing)." }),
});

export const webhookEventsQuery = listQuery.extend({
  session_id: z.string().optional().meta({ description: "Only this verification's deliveries." }),
  subscription_id: z.string().optional().meta({ description: "Only this subscription's deliveries." }),
});

// --- GET /v1/webhook-events -----------------------------------------------------------------------------------------

/** One delivery attempt (docs/webhooks.md; `libs/domain/contracts` WebhookAttempt). */
export const webhookAttempt = z.object({
  id: z.string(),
  object: z.literal('webhook_attempt'),
  delivery_id: z.string().meta({ description: 'One per event and subscription.' }),
  event_id: z.string().meta({ description: 'Also the `webhook-id` header of the delivery: stable across retries and replays.' }),
  event_type: z.string(),
  session_id: z.string().nullable(),
  subscription_id: z.string(),
  attempt: z.number().int().min(1),
  status: z.enum(['succeeded', 'failed']),
  http_status: z.number().int().nullable().meta({ description: 'Null when no response came.' }),
  latency_ms: z.number(),
  error_code: z.enum(['timeout', 'connection_error', 'dns_error', 'tls_error', 'http_status', 'blocked_destination']).nullable(),
  next_attempt_at: timestamp.nullable().meta({ description: 'Null when no retry follows.' }),
  created_at: timestamp,
});

// --- POST /v1/id-verification ---------------------------------------------------------------------------------------

const image = (what: string) => z.file().meta({ description: `${what}: JPEG, PNG or WebP, recognised by its bytes (not by the declared type); at most 10 MiB.` });

/** The multipart body of `POST /v1/id-verification` (docs/id-scan.md), checked part by part by the id-scan service. */
export const idScanUpload = z
  .strictObject({
    front: image('The front of the document'),
    back: image('The back of the document').optional(),
    expected_outcome: z
      .enum(['pass', 'review', 'fail', 'doc_quality'])
      .optional()
      .meta({ description: 'Test mode only (default `pass`); refused with 422 in live mode.' }),
  })
  .meta({ description: 'At most 21 MiB in total. An unrecognized part is refused.' });

/** The 200 answer of `POST /v1/id-verification` (`libs/domain/contracts` IdScanResult). */
export const idScanResult = z.object({
  object: z.literal('id_scan'),
  mode,
  outcome: z.enum(['pass', 'review']),
  reasons: z.array(z.string()).meta({ description: 'Why the outcome is `review`, most serious first; empty on a pass and in test mode.' }),
  document: z.object({ type: z.string(), issuing_country: z.string().nullable(), number: z.string(), expiry_date: z.string() }),
  holder: z.object({ family_name: z.string(), given_names: z.array(z.string()), date_of_birth: z.string(), nationality: z.string().nullable() }),
});

// --- the capture API (docs/capture.md) ---------------------------------------------------------------------------------

const imageSize = z.object({ width: z.number().int(), height: z.number().int() });

export const capture = z.object({
  object: z.literal('capture'),
  session_id: id('session', 'Session'),
  status: sessionStatus,
  steps: z.array(z.enum(CAPTURE_STEPS)).meta({ description: 'The steps of this capture, in order.' }),
  photo_upload: z.boolean(),
  device_intelligence: z.boolean(),
  expires_at: timestamp,
  images: z
    .object({ front: imageSize.nullable(), back: imageSize.nullable(), selfie: imageSize.nullable() })
    .meta({ description: 'What is uploaded so far, with its size in pixels.' }),
  submitted_at: timestamp.nullable(),
  challenge: z
    .object({
      object: z.literal('capture_challenge'),
      steps: z.array(z.enum(CHALLENGE_STEPS)).meta({ description: 'The moves to make, in order: the applicant turns their head to their own left (`turn_left`) or right (`turn_right`).' }),
      frames: z
        .object({ min: z.number().int(), max: z.number().int(), max_bytes: z.number().int() })
        .meta({ description: 'How many frames to send (`PUT /v1/capture/challenge/frames/{index}`), and how large each may be.' }),
      frames_received: z.number().int(),
    })
    .nullable()
    .meta({ description: 'The liveness challenge of this session, when its workflow checks `liveness`; null otherwise.' }),
});

export const captureFrameStored = z.object({
  object: z.literal('capture_frame'),
  index: z.number().int(),
  offset_ms: z.number().int().meta({ description: 'When the frame was taken, in milliseconds from the first frame, as sent.' }),
  width: z.number().int(),
  height: z.number().int(),
});

export const captureImageCheck = z.object({
  object: z.literal('capture_image_check'),
  artifact: z.enum(CAPTURE_IMAGES),
  usable: z.boolean().meta({ description: 'Whether the run can use the image; when false, ask the applicant to take it again.' }),
  reasons: z.array(z.string()).meta({ description: 'Why not, in the codes of docs/reading.md; empty when usable.' }),
  message: z.string().nullable().meta({ description: 'What to do, in plain words for the applicant; null when usable.' }),
});

export const captureCheckBody = z.object({
  document_type: z
    .enum(CAPTURE_DOCUMENT_TYPES)
    .optional()
    .meta({ description: 'The document the applicant said they photograph: a passport’s front must show its machine-readable zone; a card’s or licence’s front, its holder’s face.' }),
});

export const captureImageStored = z.object({
  object: z.literal('capture_image'),
  artifact: z.enum(CAPTURE_IMAGES),
  width: z.number().int(),
  height: z.number().int(),
});

/** What the page measured for device intelligence; unknown keys are ignored, a known key of the wrong shape is 422. */
export const captureSignals = z.looseObject({
  paste_count: z.number().int().min(0).optional(),
  step_seconds: z.record(z.string().min(1).max(SIGNAL_LIMITS.maxStringLength), z.number().min(0)).optional().meta({ maxProperties: SIGNAL_LIMITS.maxSteps }),
  webdriver: z.boolean().optional(),
  headless: z.boolean().optional(),
  touch_points: z.number().int().min(0).optional(),
  form_factor: z.enum(FORM_FACTORS).optional(),
  time_zone: z.string().min(1).max(SIGNAL_LIMITS.maxStringLength).optional().meta({ description: 'An IANA time zone name.' }),
});

export const captureSubmitBody = z.object({
  acquisition: z.enum(ACQUISITIONS).optional().meta({ description: 'How the images were taken; recorded as `camera` when left out. `upload` only when the template turns on `photo_upload` (else 422).' }),
  signals: captureSignals.optional(),
});

export const captureSkipBody = z.object({
  step: z.enum(CAPTURE_STEPS).meta({ description: "One of this capture's steps." }),
});

// --- data subject requests (docs/privacy.md) ---------------------------------------------------------------------------

/** The body of `POST /v1/data_subject_requests`, validated by the applicants service. */
export const dsarCreateBody = z.strictObject({
  type: z.enum(DSAR_TYPES, { message: `must be one of: ${DSAR_TYPES.join(', ')}` }),
  applicant_id: z.string({ message: 'must be an applicant id' }),
});

export const emailLogEntry = z.object({
  id: z.string(),
  object: z.literal('email'),
  session_id: z.string(),
  mode,
  template: z.string(),
  subject: z.string(),
  recipient: z.string().meta({ description: 'Masked (`j***@e***.com`).' }),
  status: z.enum(['suppressed', 'pending', 'sent', 'failed', 'skipped']),
  created_at: timestamp,
  sent_at: timestamp.nullable(),
});

export const activityEntry = z.object({
  id: z.string(),
  object: z.literal('activity'),
  action: z.enum(ACTIVITY_ACTIONS),
  org_id: z.string(),
  mode,
  session_id: z.string().nullable(),
  artifact: z.enum([...evidenceArtifact.options, 'back']).nullable().meta({ description: '`back`: the back of a document, viewed by a reviewer in the console.' }),
  outcome: z.string(),
  request_id: z.string(),
  key_id: z.string().nullable(),
  created_at: timestamp,
});

export const dsarArtifact = z.object({
  source: z.enum(['artifact', 'upload']),
  session_id: z.string(),
  artifact: z.enum(['portrait', 'front', 'selfie', 'back', ...CHALLENGE_FRAME_ARTIFACTS]),
  content_type: z.literal('image/jpeg'),
  byte_size: z.number().int(),
  sha256: z.string(),
  created_at: timestamp,
  url: z.string().optional().meta({ description: "Where this image alone is served: `GET /v1/data_subject_requests/{id}/images/{index}`, its position in `evidence`." }),
  data_base64: z
    .string()
    .nullable()
    .optional()
    .meta({ description: 'The JPEG as base64 in the first `evidence_inlined` entries; null in the others (fetch `url`) and when the image is no longer stored.' }),
});

export const dsarExport = z.object({
  applicant,
  sessions: z.array(session),
  email_log: z.array(emailLogEntry),
  evidence: z.array(dsarArtifact),
  evidence_inlined: z
    .number()
    .int()
    .optional()
    .meta({ description: "The first this many `evidence` entries have their image inlined in `data_base64` (null only when no longer stored): at most the region's `DSAR_INLINE_IMAGES`, 20 by default." }),
  evidence_total: z.number().int().optional().meta({ description: 'How many `evidence` entries there are; each has its `url`.' }),
  activity: z.array(activityEntry),
  webhook_events: z.array(webhookAttempt),
});

export const dataSubjectRequest = z.object({
  id: id('dataSubjectRequest', 'Data subject request'),
  object: z.literal('data_subject_request'),
  type: z.enum(DSAR_TYPES),
  applicant_id: z.string(),
  mode,
  status: z.enum(['pending', 'completed']),
  created_at: timestamp,
  completed_at: timestamp.nullable(),
  export: dsarExport
    .nullable()
    .optional()
    .meta({ description: '`access`, once completed: every record the region holds about the applicant. Null once an erasure of the applicant wiped it.' }),
  certificate: z
    .string()
    .optional()
    .meta({ description: '`erasure`, once completed: a compact JWS (EdDSA, Ed25519) signed with a key of `/.well-known/erasure-keys.json`.' }),
});

/** `GET /.well-known/erasure-keys.json` (`libs/domain/contracts` ErasureKeySet). */
export const erasureKeySet = z.object({
  keys: z.array(
    z.object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid: z.string(), alg: z.literal('EdDSA'), use: z.literal('sig') }),
  ),
});

// --- health (docs/operations.md) ------------------------------------------------------------------------------------------

export const healthLive = z.object({ status: z.literal('ok') });

export const healthReady = z.object({
  status: z.enum(['ok', 'degraded', 'unavailable']).meta({ description: '`degraded`: a service or Redis does not answer (the gateway still serves); `unavailable` (503): its NATS does not.' }),
  nats: z.enum(['ok', 'down']),
  redis: z.enum(['ok', 'down']),
  services: z.record(z.string(), z.enum(['ok', 'down'])),
});

// --- errors -------------------------------------------------------------------------------------------------------

const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]];
const ERROR_TYPES = [...new Set(Object.values(ERROR_CATALOGUE).map((e) => e.type))] as [ErrorType, ...ErrorType[]];

export const validationIssue = z.object({
  code: z.string(),
  message: z.string(),
  path: z.array(z.union([z.string(), z.number()])),
});

/** The error envelope of every refusal (docs/errors.md; `libs/domain/errors` ErrorEnvelope). */
export const errorEnvelope = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    type: z.enum(ERROR_TYPES),
    doc_url: z.string().meta({ description: '`<DOCS_BASE_URL>/errors#<code>`.' }),
    request_id: z.string().meta({ description: 'The `X-Request-Id` of the answer.' }),
    param: z.string().optional().meta({ description: 'The first segment of the issue path, or the field a 404 is about.' }),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description:
          '`validation_error`: `issues` (array of `{ code, message, path }`) or, for an unresolvable screening-rule field, `field`. `rate_limit_exceeded`: `reset_at`, `limit`, `window_seconds`, `route_class`, `tier`. `region_mismatch`: `key_region`, `endpoint_region`. `insufficient_scope`: `required_scope`. `document_unreadable`: `mode`.',
      }),
  }),
});

/** `details` of a 429 (docs/rate-limits.md). */
export const rateLimitDetails = z.object({
  reset_at: z.number().int().meta({ description: 'UNIX epoch seconds when the window rolls over.' }),
  limit: z.number().int(),
  window_seconds: z.number().int(),
  route_class: z.enum([...ROUTE_CLASSES, 'ip', 'capture']),
  tier: z.enum(TIERS).nullable(),
});

// --- webhooks sent to receivers (docs/webhooks.md) -----------------------------------------------------------------------

/** The body of every `kyc.session.*` delivery: reference fields, codes and scores; no applicant data. */
export const webhookEvent = z.object({
  type: z.enum(SESSION_EVENT_TYPES),
  timestamp: timestamp,
  data: z.object({
    sessionId: z.string(),
    status: sessionStatus,
    outcome: z.enum(['approved', 'declined']).nullable(),
    occurredAt: timestamp,
    checks: z
      .array(sessionCheck)
      .optional()
      .meta({ description: '`kyc.session.completed` and `kyc.session.manual_review_requested`: the checks of the session as its read shows them (outcomes, reason codes, scores; no personal data).' }),
    watchlistHits: z
      .array(z.object({ list: z.string(), entityId: z.string(), score: z.number().min(0).max(1) }))
      .optional()
      .meta({
        description:
          '`kyc.session.watchlist_hit`: the new hits found when a watchlist was reloaded (the list, the listed person\'s id in it, the score); the session is back in `manual_review` with its earlier `outcome` until a reviewer decides.',
      }),
  }),
});
