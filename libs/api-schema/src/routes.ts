import type { ErrorCode } from '@verity/errors';
import { z } from 'zod';
import type { RequestComponent, ResponseComponent } from './components.js';
import { listQuery, sessionListQuery, webhookEventsQuery } from './resources.js';

/** Groups of the reference, in its order. */
export const TAGS = [
  { name: 'Account', description: 'The calling key.' },
  { name: 'Applicants', description: 'The people verified.' },
  { name: 'Workflow templates', description: 'Checks and screening rules a session runs (docs/screening.md).' },
  { name: 'Sessions', description: 'Verifications of one applicant against one template version (docs/sessions.md).' },
  { name: 'Evidence', description: 'Images of an identity check.' },
  { name: 'ID scan', description: 'Stateless reading of a document image (docs/id-scan.md).' },
  { name: 'Webhooks', description: 'The delivery log (docs/webhooks.md).' },
  { name: 'Privacy', description: 'Data subject requests and erasure certificates (docs/privacy.md).' },
  { name: 'Capture', description: "The applicant's side of a live session, authenticated by the session's client secret (docs/capture.md)." },
  { name: 'Operations', description: 'Health of the region, without authentication (docs/operations.md).' },
  { name: 'Reference', description: 'This document.' },
] as const;
export type Tag = (typeof TAGS)[number]['name'];

/** What a successful answer carries. */
export type SuccessBody =
  /** `{ "data": <component> }` */
  | { data: ResponseComponent }
  /** the component itself (a page, a health report, a key set) */
  | { schema: ResponseComponent }
  /** raw bytes of this media type */
  | { binary: string }
  /** an HTML page */
  | { html: true }
  /** the OpenAPI document itself */
  | { openapi: true };

export interface RouteDoc {
  tag: Tag;
  summary: string;
  /** Markdown: what the route does, and the rules a schema cannot say. */
  description: string;
  /** Path parameters by name (as `:name` in the route key): description and schema (default: a string). */
  params?: Record<string, { description: string; schema?: z.ZodType }>;
  /** The list parameters, an object schema of query parameters. */
  query?: z.ZodObject;
  body?: {
    component?: RequestComponent;
    /** `json` (default), `multipart` (form-data), `image` (raw image bytes). */
    kind?: 'json' | 'multipart' | 'image';
    /** The body may be left out entirely. */
    optional?: boolean;
    /** Streamed to a service, never kept: an `Idempotency-Key` is checked but no answer is replayed. */
    streamed?: boolean;
  };
  success: { status: number; description: string; body: SuccessBody; headers?: Record<string, string> };
  /** Refusals of this route besides those of its kind of authentication, body and limits (added by the generator). */
  errors?: ErrorCode[];
  /** Answers besides success and the envelope (a health report's 503, the capture page's own pages). */
  other?: Array<{ status: number; description: string; body: SuccessBody }>;
  /**
   * Routes outside /v1 (not in the gateway's access table): no key; whether the pre-authentication IP limit counts
   * them. A /v1 route takes its authentication from the access table.
   */
  outside?: { ipLimited: boolean };
}

const idParam = (what: string) => ({ description: `The ${what}'s id. A malformed id is answered like an unknown one (404 \`resource_not_found\`).` });

const LIST_TEXT = 'Newest first. `limit` 1 to 100 (default 20); `cursor` is the `next_cursor` of the previous page. A bad value or an unknown parameter is 422 `validation_error` naming it.';

const ACTION_TEXT =
  'Cancel from `pending`, `in_progress` or `manual_review`; review from `pending` or `in_progress`; decision from `manual_review` only. Any other status is 409 `invalid_state_transition` (`details.status`). Answers the updated session.';

/**
 * Every route of the gateway, as the document describes it, keyed like the access table (`METHOD /path/:param`).
 * The generator joins it with the access table (scope, rate class, kind of authentication); a route in one and not
 * in the other fails the build of the document and the gateway's tests.
 */
export const ROUTE_DOCS: Record<string, RouteDoc> = {
  'GET /v1/me': {
    tag: 'Account',
    summary: 'The calling API key',
    description:
      'The key object: id, organization, mode, region and scopes. Any key, publishable keys included, needs no scope. Exempt from billing refusals (an account-state read).',
    success: { status: 200, description: 'The key.', body: { data: 'ApiKey' } },
  },

  'POST /v1/applicants': {
    tag: 'Applicants',
    summary: 'Create an applicant',
    description:
      'Names as the person holds them: `family_name` whole, `given_names` ordered. The legacy fields `first_name`, `middle_name`, `last_name`, `legal_name` and whole-name fields (`name`, `full_name`) are refused with 422 `validation_error`, the issue naming the replacement fields; any other unknown field is refused.',
    body: { component: 'ApplicantInput' },
    success: { status: 201, description: 'The applicant created.', body: { data: 'Applicant' } },
  },
  'GET /v1/applicants': {
    tag: 'Applicants',
    summary: 'List applicants',
    description: LIST_TEXT,
    query: listQuery,
    success: { status: 200, description: 'A page of applicants.', body: { schema: 'ApplicantPage' } },
  },
  'GET /v1/applicants/:id': {
    tag: 'Applicants',
    summary: 'Read an applicant',
    description: 'After an erasure the applicant is answered with its id, `erased: true` and null personal fields.',
    params: { id: idParam('applicant') },
    success: { status: 200, description: 'The applicant.', body: { data: 'Applicant' } },
    errors: ['resource_not_found'],
  },

  'POST /v1/workflow-templates': {
    tag: 'Workflow templates',
    summary: 'Create a workflow template',
    description:
      'Checks, screening rules and switches of a verification. Every refusal is reported at once and nothing is saved. `screening_rules` is validated by the screening engine (see ScreeningRuleInput for the rules it applies beyond the schema).',
    body: { component: 'WorkflowTemplateCreate' },
    success: { status: 201, description: 'The template, version 1.', body: { data: 'WorkflowTemplate' } },
    errors: ['esign_requirements_not_met'],
  },
  'GET /v1/workflow-templates': {
    tag: 'Workflow templates',
    summary: 'List workflow templates',
    description: LIST_TEXT,
    query: listQuery,
    success: { status: 200, description: 'A page of templates.', body: { schema: 'WorkflowTemplatePage' } },
  },
  'GET /v1/workflow-templates/:id': {
    tag: 'Workflow templates',
    summary: 'Read a workflow template',
    description: 'Its latest version.',
    params: { id: idParam('workflow template') },
    success: { status: 200, description: 'The template.', body: { data: 'WorkflowTemplate' } },
    errors: ['resource_not_found'],
  },
  'PATCH /v1/workflow-templates/:id': {
    tag: 'Workflow templates',
    summary: 'Change a workflow template',
    description:
      'Only the fields sent change, and the result is checked as a whole; a change makes a new version (sessions keep the version they were created with). `screening_rules` sent replaces every rule (`[]` clears them); omitted, they stay. Refusals are all-or-nothing.',
    params: { id: idParam('workflow template') },
    body: { component: 'WorkflowTemplateUpdate' },
    success: { status: 200, description: 'The template, its new version.', body: { data: 'WorkflowTemplate' } },
    errors: ['resource_not_found', 'esign_requirements_not_met'],
  },

  'POST /v1/sessions': {
    tag: 'Sessions',
    summary: 'Create a session',
    description:
      'A verification of one applicant against the current version of a template. Checks in order: body shape (unknown fields refused), `metadata` (every issue reported), `expected_outcome`, then the ids (404 with `param`), then the signing document\'s required metadata (403 `esign_requirements_not_met`), then, in live mode, the wallet (402 `payment_required`, `details.price`). Nothing is created on refusal. A test session runs its synthetic checks at once and rests within seconds; a live session waits `pending` for its applicant at `url`.',
    body: { component: 'SessionCreate' },
    success: { status: 201, description: 'The session created (without `idv` and `screening`).', body: { data: 'Session' } },
    errors: ['resource_not_found', 'esign_requirements_not_met', 'payment_required'],
  },
  'GET /v1/sessions': {
    tag: 'Sessions',
    summary: 'List sessions',
    description: `${LIST_TEXT} Filters \`status\` and \`applicant_id\`. Items carry neither \`idv\` nor \`screening\`.`,
    query: sessionListQuery,
    success: { status: 200, description: 'A page of sessions.', body: { schema: 'SessionPage' } },
  },
  'GET /v1/sessions/:id': {
    tag: 'Sessions',
    summary: 'Read a session',
    description:
      'With `idv` when the session ran an identity check (what the image endpoint can serve), and `screening`: how the screening rules decided the last run (rules fired with action and priority, score, threshold; never an applicant value).',
    params: { id: idParam('session') },
    success: { status: 200, description: 'The session.', body: { data: 'Session' } },
    errors: ['resource_not_found'],
  },
  'POST /v1/sessions/:id/notes': {
    tag: 'Sessions',
    summary: 'Add a note to a session',
    description: 'Appends `{ note, created_at }` to `metadata.operatorNotes`, in every status; emits no event. A session whose applicant was erased takes no notes (409 `invalid_state_transition`, `details.erased`).',
    params: { id: idParam('session') },
    body: { component: 'SessionNote' },
    success: { status: 200, description: 'The session.', body: { data: 'Session' } },
    errors: ['resource_not_found', 'invalid_state_transition'],
  },
  'POST /v1/sessions/:id/cancel': {
    tag: 'Sessions',
    summary: 'Cancel a session',
    description: `To \`cancelled\`; the reason is kept as \`metadata.cancellationReason\`; event \`kyc.session.cancelled\`. ${ACTION_TEXT}`,
    params: { id: idParam('session') },
    body: { component: 'SessionReason', optional: true },
    success: { status: 200, description: 'The session, cancelled.', body: { data: 'Session' } },
    errors: ['resource_not_found', 'invalid_state_transition'],
  },
  'POST /v1/sessions/:id/review': {
    tag: 'Sessions',
    summary: 'Send a session to manual review',
    description: `To \`manual_review\`; the reason is kept as \`metadata.manualReviewReason\`; event \`kyc.session.manual_review_requested\`. ${ACTION_TEXT}`,
    params: { id: idParam('session') },
    body: { component: 'SessionReason', optional: true },
    success: { status: 200, description: 'The session, in manual review.', body: { data: 'Session' } },
    errors: ['resource_not_found', 'invalid_state_transition'],
  },
  'POST /v1/sessions/:id/decision': {
    tag: 'Sessions',
    summary: 'Decide a session in manual review',
    description: `Only from \`manual_review\`: to \`completed\` with the outcome; event \`kyc.session.completed\`. ${ACTION_TEXT}`,
    params: { id: idParam('session') },
    body: { component: 'SessionDecision' },
    success: { status: 200, description: 'The session, completed.', body: { data: 'Session' } },
    errors: ['resource_not_found', 'invalid_state_transition'],
  },

  'GET /v1/sessions/:id/idv-image/:artifact': {
    tag: 'Evidence',
    summary: 'Stream an evidence image',
    description:
      'The stored JPEG of one artifact, `Cache-Control: no-store, private`; no public or presigned URL exists. Read `idv.available_images` first: a served artifact with nothing stored is 404 `artifact_not_available` (fall back to another). `back` or any other value is 404 `resource_not_found` without echo. Each request that reaches a session of the organization writes an activity entry.',
    params: {
      id: idParam('session'),
      artifact: { description: '`portrait` (holder photo cropped from the document), `front` (the document as submitted), `selfie`.', schema: z.enum(['portrait', 'front', 'selfie']) },
    },
    success: { status: 200, description: 'The image (always JPEG).', body: { binary: 'image/jpeg' }, headers: { 'Cache-Control': 'no-store, private' } },
    errors: ['resource_not_found', 'artifact_not_available'],
  },

  'POST /v1/id-verification': {
    tag: 'ID scan',
    summary: 'Read a document image',
    description:
      'Extracts identity fields without creating a verification. Test mode: a synthetic result by `expected_outcome` (`pass`, `review`: 200; `fail`, `doc_quality`: 422 `document_unreadable`); the image is validated, then discarded. Live mode: the document is read from its machine-readable zone or PDF417 barcode. `document_unreadable` carries `details.mode`. Missing `front` or an unrecognized part: 422 `validation_error`; one image over 10 MiB: 413 `file_too_large`; the body over 21 MiB: 413 `request_too_large`; not JPEG, PNG or WebP by its bytes: 415 `unsupported_file_type`; bytes that do not decode, or over 100 megapixels: 422 `invalid_image`. The body is streamed, never kept: an `Idempotency-Key` is checked but not honoured here (a scan changes nothing and can be sent again).',
    body: { component: 'IdScanUpload', kind: 'multipart', streamed: true },
    success: { status: 200, description: 'What was read.', body: { data: 'IdScanResult' } },
    // a JSON body is parsed (and refused) before the route asks for multipart
    errors: ['invalid_json', 'file_too_large', 'request_too_large', 'unsupported_file_type', 'invalid_image', 'document_unreadable'],
  },

  'GET /v1/webhook-events': {
    tag: 'Webhooks',
    summary: 'List webhook delivery attempts',
    description: `One row per delivery attempt; never the signing secret or the payload. ${LIST_TEXT} Filters \`session_id\`, \`subscription_id\`.`,
    query: webhookEventsQuery,
    success: { status: 200, description: 'A page of attempts.', body: { schema: 'WebhookAttemptPage' } },
  },

  'POST /v1/data_subject_requests': {
    tag: 'Privacy',
    summary: 'Start a data subject request',
    description:
      "`access` exports every record the region holds about the applicant; `erasure` removes its personal data in every service and issues a signed certificate. Completes without an operator; read it back with GET. Rate class `dsar:create` counts per 24 hours.",
    body: { component: 'DataSubjectRequestCreate' },
    success: { status: 202, description: 'The request, `pending`.', body: { data: 'DataSubjectRequest' } },
    errors: ['resource_not_found'],
  },
  'GET /v1/data_subject_requests/:id': {
    tag: 'Privacy',
    summary: 'Read a data subject request',
    description: 'Once completed: `export` (access; images inlined as base64 JPEG) or `certificate` (erasure).',
    params: { id: idParam('data subject request') },
    success: { status: 200, description: 'The request.', body: { data: 'DataSubjectRequest' } },
    errors: ['resource_not_found'],
  },

  'GET /v1/capture': {
    tag: 'Capture',
    summary: 'Read the capture',
    description: 'What the applicant has to do: the steps, the switches, what is uploaded so far. The first call notes where the capture started.',
    success: { status: 200, description: 'The capture.', body: { data: 'Capture' } },
  },
  'PUT /v1/capture/images/:artifact': {
    tag: 'Capture',
    summary: 'Upload a capture image',
    description:
      'The raw image as the body (JPEG, PNG or WebP by its bytes, whatever the declared type; at most 10 MiB); replaces an earlier one. The first image moves the session `pending` → `in_progress`. An unserved artifact name is 404 `resource_not_found` without echo.',
    params: { artifact: { description: '`front`, `back` or `selfie`.', schema: z.enum(['front', 'back', 'selfie']) } },
    body: { kind: 'image' },
    success: { status: 200, description: 'The image stored, with its size.', body: { data: 'CaptureImageStored' } },
    // a body declared application/json is parsed as JSON, and refused when it is not
    errors: ['invalid_json', 'resource_not_found', 'file_too_large', 'request_too_large', 'unsupported_file_type', 'invalid_image'],
  },
  'POST /v1/capture/submit': {
    tag: 'Capture',
    summary: 'Submit the capture',
    description:
      'Marks the capture submitted (the link is used from then on) and queues the live run. A missing required image is 422 `validation_error` naming it (`front`, `selfie`).',
    body: { component: 'CaptureSubmit', optional: true },
    success: { status: 202, description: 'The capture, submitted.', body: { data: 'Capture' } },
  },
  'POST /v1/capture/skip': {
    tag: 'Capture',
    summary: 'Skip a step',
    description: 'The applicant gives up at a step: the session ends `skipped` (`kyc.session.skipped_by_applicant` is reserved, not delivered).',
    body: { component: 'CaptureSkip' },
    success: { status: 200, description: 'The capture, skipped.', body: { data: 'Capture' } },
  },

  'GET /v1/openapi.json': {
    tag: 'Reference',
    summary: 'This document',
    description: 'The OpenAPI 3.1 document of the region\'s gateway, generated at build time. No authentication; counts against the pre-authentication IP limit.',
    success: { status: 200, description: 'The document.', body: { openapi: true } },
  },

  'GET /health/live': {
    tag: 'Operations',
    summary: 'Liveness',
    description: 'The process is up. No authentication, no limit.',
    success: { status: 200, description: 'Up.', body: { schema: 'HealthLive' } },
    outside: { ipLimited: false },
  },
  'GET /health/ready': {
    tag: 'Operations',
    summary: 'Readiness',
    description:
      "200 while the gateway can serve (its NATS answers), naming each service and Redis `ok` or `down`; `degraded` when one of them does not answer. No authentication; counts against the pre-authentication IP limit; cached briefly.",
    success: { status: 200, description: 'Ready (`ok` or `degraded`).', body: { schema: 'HealthReady' } },
    other: [{ status: 503, description: "Not ready: the gateway's NATS does not answer.", body: { schema: 'HealthReady' } }],
    outside: { ipLimited: true },
  },
  'GET /.well-known/erasure-keys.json': {
    tag: 'Privacy',
    summary: 'Erasure certificate keys',
    description: "The public Ed25519 keys (JWKS) that verify the region's erasure certificates. No authentication; counts against the pre-authentication IP limit.",
    success: { status: 200, description: 'The key set.', body: { schema: 'ErasureKeySet' }, headers: { 'Cache-Control': 'public, max-age=300' } },
    outside: { ipLimited: true },
  },
  'GET /verify/:secret': {
    tag: 'Capture',
    summary: 'The hosted capture page',
    description:
      "The page a live session's `url` points at: consent, the document, a selfie when the workflow needs one, submit. HTML with a strict Content-Security-Policy, nothing from another origin. No key; counts against the pre-authentication IP limit (past it, a page that says so, 429). Never the error envelope.",
    params: { secret: { description: "The session's `client_secret` (`vcs_` + 43 characters)." } },
    success: { status: 200, description: 'The capture page.', body: { html: true } },
    other: [
      { status: 404, description: 'The link is unknown.', body: { html: true } },
      { status: 410, description: 'The link has expired, or was used.', body: { html: true } },
      { status: 429, description: 'Too many requests from this address.', body: { html: true } },
      { status: 500, description: 'Something failed; nothing of the link is shown.', body: { html: true } },
      { status: 503, description: 'The region cannot serve the page now.', body: { html: true } },
    ],
    outside: { ipLimited: true },
  },
};
