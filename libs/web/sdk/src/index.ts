export { Verity, DEFAULT_BASE_URLS, type VerityOptions, type ImageResponse } from './client.js';
export type {
  MeResource,
  ApplicantsResource,
  WorkflowTemplatesResource,
  SessionsResource,
  WebhookEventsResource,
  DataSubjectRequestsResource,
  IdVerificationResource,
} from './client.js';
export { VerityError, VerityConnectionError, WebhookVerificationError } from './errors.js';
export { SDK_VERSION, type FetchLike, type RequestOptions } from './http.js';
export { parseKey, type KeyInfo } from './key.js';
export { PagePromise } from './pagination.js';
export { backoffDelay, rateLimitDelay, DEFAULT_BACKOFF, type BackoffOptions } from './retry.js';
export { verifyWebhook, type WebhookHeaders } from './webhooks.js';
export type * from './types.js';
