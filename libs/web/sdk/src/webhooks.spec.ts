import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { Verity, WebhookVerificationError } from './index.js';

/** Signed exactly as docs/webhooks.md describes (and apps/webhook-delivery signs), independently of the SDK. */
function signed(secrets: string[], body: string, at = Math.floor(Date.now() / 1000), id = 'evt_123') {
  const sig = (s: string) => `v1,${createHmac('sha256', Buffer.from(s.slice('whsec_'.length), 'base64')).update(`${id}.${at}.${body}`).digest('base64')}`;
  return { 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': secrets.map(sig).join(' ') };
}

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
const EVENT = { type: 'kyc.session.completed', timestamp: '2025-01-01T00:00:00.000Z', data: { sessionId: 'ses_1', status: 'completed', outcome: 'approved', occurredAt: '2025-01-01T00:00:00.000Z' } };
const BODY = JSON.stringify(EVENT);

describe('Verity.webhooks.verify', () => {
  it('returns the event of a delivery signed with the secret: body as string or bytes, headers as Node or fetch gives them', () => {
    const s = secret();
    const h = signed([s], BODY);
    assert.deepEqual(Verity.webhooks.verify(BODY, h, s), EVENT);
    assert.deepEqual(Verity.webhooks.verify(Buffer.from(BODY), h, s), EVENT);
    assert.deepEqual(Verity.webhooks.verify(new TextEncoder().encode(BODY), new Headers(h), s), EVENT);
    const nodeStyle = { 'Webhook-Id': h['webhook-id'], 'WEBHOOK-TIMESTAMP': [h['webhook-timestamp']], 'webhook-signature': h['webhook-signature'], host: 'x' };
    assert.deepEqual(Verity.webhooks.verify(BODY, nodeStyle, s), EVENT);
  });

  it('during a rotation either secret verifies the pair of signatures', () => {
    const [next, previous] = [secret(), secret()];
    const h = signed([next, previous], BODY);
    assert.equal(Verity.webhooks.verify(BODY, h, next).type, 'kyc.session.completed');
    assert.equal(Verity.webhooks.verify(BODY, h, previous).type, 'kyc.session.completed');
  });

  it('refuses a tampered body, another secret, a stale or future timestamp, another id, missing headers, a non-event', () => {
    const s = secret();
    const h = signed([s], BODY);
    const now = Math.floor(Date.now() / 1000);
    const refused: [string, () => unknown][] = [
      ['tampered body', () => Verity.webhooks.verify(BODY.replace('approved', 'declined'), h, s)],
      ['another secret', () => Verity.webhooks.verify(BODY, h, secret())],
      ['10 minutes old', () => Verity.webhooks.verify(BODY, signed([s], BODY, now - 600), s)],
      ['10 minutes ahead', () => Verity.webhooks.verify(BODY, signed([s], BODY, now + 600), s)],
      ['another webhook-id', () => Verity.webhooks.verify(BODY, { ...h, 'webhook-id': 'evt_124' }, s)],
      ['no signature', () => Verity.webhooks.verify(BODY, { 'webhook-id': h['webhook-id'], 'webhook-timestamp': h['webhook-timestamp'] }, s)],
      ['not an event', () => Verity.webhooks.verify('[1,2]', signed([s], '[1,2]'), s)],
      ['malformed secret', () => Verity.webhooks.verify(BODY, h, 'whsec_')],
    ];
    for (const [what, f] of refused) assert.throws(f, WebhookVerificationError, what);
  });
});
