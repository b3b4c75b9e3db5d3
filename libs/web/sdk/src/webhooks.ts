import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './types.js';

/** A delivery's headers: a fetch `Headers`, or Node's `req.headers` (any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a webhook delivery (Standard Webhooks, docs/webhooks.md): the `webhook-signature` over
 * `<webhook-id>.<webhook-timestamp>.<body>` with the subscription's `whsec_…` secret (any one of several
 * space-separated signatures, as during a secret rotation), and a timestamp within 5 minutes of now. Pass the
 * body exactly as received, before any JSON parsing. Returns the event; throws `WebhookVerificationError`.
 */
export function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  const body = typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
  let event: unknown;
  try {
    event = new Webhook(secret).verify(body, signingHeaders(headers));
  } catch (e) {
    throw new WebhookVerificationError(`webhook not verified: ${(e as Error).message}`, { cause: e });
  }
  const ev = event as Partial<WebhookEvent> | undefined;
  if (typeof ev !== 'object' || ev === null || typeof ev.type !== 'string' || typeof ev.data !== 'object' || ev.data === null) {
    throw new WebhookVerificationError('webhook not verified: the body is not an event');
  }
  return ev as WebhookEvent;
}

function signingHeaders(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const get = (name: string): string | undefined => {
    if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
    const rec = headers as Record<string, string | string[] | undefined>;
    const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
    const v = key === undefined ? undefined : rec[key];
    return Array.isArray(v) ? v.join(' ') : v;
  };
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const v = get(name);
    if (v !== undefined) out[name] = v;
  }
  return out;
}
