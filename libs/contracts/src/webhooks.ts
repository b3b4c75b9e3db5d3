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

/** One row of GET /v1/webhook-events (contract §10): never the secret, never the payload. */
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
