import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import type { DomainEvent } from '@verity/contracts';
import { generateSigningSecret, isSigningSecret, sign, signedHeaders, signingKey, webhookBody } from './signing.js';

const event: DomainEvent = {
  id: 'evt_0123456789abcdefghijklmn',
  type: 'kyc.session.completed',
  timestamp: '2026-11-22T10:00:00.000Z',
  org_id: 'org_x',
  mode: 'test',
  data: { sessionId: 'ses_0123456789abcdefghijklmn', status: 'completed', outcome: 'approved', occurredAt: '2026-11-22T10:00:00.000Z' },
};

describe('webhook signing (Standard Webhooks)', () => {
  it('generates whsec_ secrets of 32 random bytes', () => {
    const a = generateSigningSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(a.slice(6), 'base64').length, 32);
    assert.ok(isSigningSecret(a));
    assert.notEqual(a, generateSigningSecret());
    assert.equal(isSigningSecret('whsec_abc'), false);
  });

  it('builds the documented body: type, timestamp and data with reference fields only', () => {
    const withExtra = { ...event, data: { ...event.data, familyName: 'Lovelace' } } as DomainEvent;
    assert.deepEqual(JSON.parse(webhookBody(withExtra)), {
      type: 'kyc.session.completed',
      timestamp: '2026-11-22T10:00:00.000Z',
      data: { sessionId: 'ses_0123456789abcdefghijklmn', status: 'completed', outcome: 'approved', occurredAt: '2026-11-22T10:00:00.000Z' },
    });
  });

  it('carries the checks of a resting session, member by member: codes and scores, nothing else', () => {
    const checks = [
      { type: 'document', outcome: 'review', reasons: ['applicant_mismatch'], score: null, holder: 'LEHTINEN' },
      { type: 'face_match', outcome: 'pass', reasons: [], score: 0.93 },
    ];
    const withChecks = { ...event, data: { ...event.data, checks } } as unknown as DomainEvent;
    assert.deepEqual(JSON.parse(webhookBody(withChecks)).data.checks, [
      { type: 'document', outcome: 'review', reasons: ['applicant_mismatch'], score: null },
      { type: 'face_match', outcome: 'pass', reasons: [], score: 0.93 },
    ]);
  });

  it('produces headers the standardwebhooks package verifies, and that fail for another secret or body', () => {
    const secret = generateSigningSecret();
    const body = webhookBody(event);
    const now = Math.floor(Date.now() / 1000);
    const headers = signedHeaders([secret], event.id, now, body);
    assert.equal(headers['webhook-id'], event.id);
    assert.equal(headers['webhook-timestamp'], String(now));
    assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(new Webhook(secret).verify(body, { ...headers }), JSON.parse(body));
    assert.throws(() => new Webhook(generateSigningSecret()).verify(body, { ...headers }), /No matching signature/);
    assert.throws(() => new Webhook(secret).verify(body.replace('approved', 'declined'), { ...headers }), /No matching signature/);
    // the package's own signature is the same
    assert.equal(new Webhook(secret).sign(event.id, new Date(now * 1000), body), headers['webhook-signature']);
  });

  it('during a rotation overlap sends both signatures, space-separated, each verifying with its own secret', () => {
    const [next, previous] = [generateSigningSecret(), generateSigningSecret()];
    const body = webhookBody(event);
    const now = Math.floor(Date.now() / 1000);
    const headers = signedHeaders([next, previous], event.id, now, body);
    const parts = headers['webhook-signature'].split(' ');
    assert.equal(parts.length, 2);
    assert.equal(parts[0], sign(next, event.id, now, body));
    assert.equal(parts[1], sign(previous, event.id, now, body));
    // decoded keys sign alike
    assert.deepEqual(signedHeaders([signingKey(next), signingKey(previous)], event.id, now, body), headers);
    assert.throws(() => signingKey('whsec_short'), /not a signing secret/);
    for (const s of [next, previous]) assert.ok(new Webhook(s).verify(body, { ...headers }));
  });

  it('signs with the attempt time: a timestamp outside the 5-minute tolerance is refused by receivers', () => {
    const secret = generateSigningSecret();
    const body = webhookBody(event);
    const old = Math.floor(Date.now() / 1000) - 600;
    assert.throws(() => new Webhook(secret).verify(body, { ...signedHeaders([secret], event.id, old, body) }), /too old/);
  });
});
