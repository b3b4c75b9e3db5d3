import { createHmac, randomBytes } from 'node:crypto';
import type { DomainEvent } from '@verity/contracts';

/**
 * Standard Webhooks signing (docs/webhooks.md): `webhook-id` is the event id, `webhook-timestamp` the UNIX
 * seconds of the attempt, `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
 * keyed by the base64-decoded secret; during a rotation overlap one signature per secret, space-separated.
 */
const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
const SECRET_RE = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

export function isSigningSecret(s: string): boolean {
  return SECRET_RE.test(s) && Buffer.from(s.slice(SECRET_PREFIX.length), 'base64').length === SECRET_BYTES;
}

/** The HMAC key of a signing secret (its 32 bytes), decoded once for any number of signatures. */
export function signingKey(secret: string): Buffer {
  if (!isSigningSecret(secret)) throw new Error('not a signing secret');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** One `v1,<base64>` signature of `<id>.<timestamp>.<body>`, with a secret or its decoded key. */
export function sign(secret: string | Buffer, id: string, timestampSeconds: number, body: string): string {
  const key = typeof secret === 'string' ? signingKey(secret) : secret;
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/**
 * The signing headers of one attempt; `secrets` (or their decoded keys) is the current secret first, then the
 * previous one while it overlaps.
 */
export function signedHeaders(secrets: ReadonlyArray<string | Buffer>, id: string, timestampSeconds: number, body: string): WebhookHeaders {
  if (secrets.length === 0) throw new Error('no signing secret');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => sign(s, id, timestampSeconds, body)).join(' '),
  };
}

/**
 * The JSON body of a kyc.session.* delivery: reference fields and, for a resting session, its checks (outcomes,
 * reason codes, scores), for `kyc.session.watchlist_hit` its new hits (list, entity id, score); no applicant data.
 * Each check and hit is copied member by member, so nothing else an event might carry reaches a receiver.
 */
export function webhookBody(event: Pick<DomainEvent, 'type' | 'timestamp' | 'data'>): string {
  const d = event.data;
  const data: DomainEvent['data'] = { sessionId: d.sessionId, status: d.status, outcome: d.outcome, occurredAt: d.occurredAt };
  if (Array.isArray(d.checks)) {
    data.checks = d.checks.map((c) => ({
      type: c.type,
      outcome: c.outcome ?? null,
      reasons: Array.isArray(c.reasons) ? c.reasons.filter((r) => typeof r === 'string') : [],
      score: typeof c.score === 'number' ? c.score : null,
    }));
  }
  // kyc.session.watchlist_hit: the new hits, as references (docs/webhooks.md)
  if (Array.isArray(d.watchlistHits)) {
    data.watchlistHits = d.watchlistHits
      .filter((h) => typeof h?.list === 'string' && typeof h.entityId === 'string' && typeof h.score === 'number')
      .map((h) => ({ list: h.list, entityId: h.entityId, score: h.score }));
  }
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data });
}
