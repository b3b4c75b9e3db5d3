import type { Mode } from '@verity/keys';
import type { SessionEventType } from './sessions.js';

export interface WebhookSubscription {
  id: string;
  object: 'webhook_subscription';
  org_id: string;
  mode: Mode;
  url: string;
  event_types: SessionEventType[];
  status: 'active' | 'disabled';
  created_at: string;
}

/** Returned by create and rotate-secret only: the only time the secret is shown. */
export interface WebhookSubscriptionWithSecret extends WebhookSubscription {
  secret: string;
}

/** One row of GET /v1/webhook-events (docs/webhooks.md): never the secret, never the payload. */
export interface WebhookAttempt {
  id: string;
  object: 'webhook_attempt';
  delivery_id: string;
  event_id: string;
  event_type: string;
  session_id: string | null;
  subscription_id: string;
  attempt: number;
  status: 'succeeded' | 'failed';
  http_status: number | null;
  latency_ms: number;
  error_code: 'timeout' | 'connection_error' | 'dns_error' | 'tls_error' | 'http_status' | 'blocked_destination' | null;
  next_attempt_at: string | null;
  created_at: string;
}

/** Operator request of `webhook-delivery.admin.subscription.create.v1` (validated by the service). */
export interface WebhookSubscriptionCreateRequest {
  org_id: string;
  mode: Mode;
  url: string;
  event_types: string[];
}

/** Operator request of `webhook-delivery.admin.subscription.list.v1`: an organization's subscriptions, newest first. */
export interface WebhookSubscriptionListRequest {
  org_id: string;
  mode?: Mode;
  limit?: unknown;
  cursor?: unknown;
}

/** Returned by rotate-secret: the new secret (shown once) and until when the previous one still signs. */
export interface WebhookSecretRotation extends WebhookSubscriptionWithSecret {
  previous_secret_expires_at: string;
}

/**
 * Operator request of `webhook-delivery.admin.replay.v1`: delivers again, with the same `webhook-id`, the
 * deliveries of one event, of one session, or created since an instant (then `subscription_id` or `org_id`
 * is required); `subscription_id` and `org_id` narrow any of them.
 */
export interface WebhookReplayRequest {
  event_id?: string;
  session_id?: string;
  /** ISO 8601 with an offset. */
  since?: string;
  subscription_id?: string;
  org_id?: string;
}

/** The console's replay: one event, or failed deliveries since a time, of one subscription of the principal's. */
export interface WebhookConsoleReplayRequest {
  subscription_id: string;
  event_id?: string;
  since?: string;
}

export interface WebhookReplayResult {
  object: 'webhook_replay';
  /** How many deliveries were queued again. */
  replayed: number;
  /** Their ids (at most the first 100). */
  delivery_ids: string[];
}
