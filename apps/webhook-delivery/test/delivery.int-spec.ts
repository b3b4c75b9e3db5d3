import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { SUBJECTS, type WebhookAttempt } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { startWebhookReceiver, testTls, waitFor, type WebhookReceiver } from '@verity/testing';
import { harness, principal, sessionEvent, type Harness } from './support.js';

let h: Harness;
let rx: WebhookReceiver;
const op = { principal: null, requestId: 'req_int' };

before(async () => {
  // receivers on loopback with the test certificate (trusted through NODE_EXTRA_CA_CERTS)
  h = await harness('whdelivery', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  await h.start();
  rx = await startWebhookReceiver({ tls: testTls() });
});

after(async () => {
  await rx?.close();
  await h?.close();
});

function verify(secret: string, got: { body: string; headers: Record<string, string> }): unknown {
  return new Webhook(secret).verify(got.body, got.headers);
}

async function attemptsOf(orgId: string, deliveryEventId: string, n: number): Promise<WebhookAttempt[]> {
  return waitFor(async () => {
    const rows = (await h.attempts(orgId, 'test')).filter((a) => a.event_id === deliveryEventId);
    return rows.length >= n ? rows : undefined;
  }, 10_000);
}

describe('fan-out', () => {
  it('the same event published twice (same Nats-Msg-Id, then past the duplicate window with another) makes one delivery per subscription', async () => {
    const org = await h.createOrg();
    const a = await h.subscribe(org, 'test', `${rx.url}/a`);
    const b = await h.subscribe(org, 'test', `${rx.url}/b`);
    const event = sessionEvent(org, 'test');
    await h.publish(event);
    await h.publish(event); // dropped by JetStream (same message id)
    await h.publish(event, `${event.id}-again`); // stored again: only the unique (event, subscription) stops it
    await waitFor(async () => rx.byId(event.id).length >= 2, 10_000);
    await new Promise((r) => setTimeout(r, 800));
    const deliveries = await h.rows<{ subscription_id: string; status: string }>(
      'SELECT subscription_id, status FROM webhook_delivery.deliveries WHERE event_id = $1 ORDER BY subscription_id',
      [event.id],
    );
    assert.deepEqual(deliveries.map((d) => d.subscription_id).sort(), [a.id, b.id].sort());
    assert.ok(deliveries.every((d) => d.status === 'succeeded'));
    const got = rx.byId(event.id);
    assert.equal(got.length, 2, 'one request per subscription');
    const expected = { type: event.type, timestamp: event.timestamp, data: event.data };
    for (const g of got) assert.deepEqual(verify(verifiesWith(a.secret, g) ? a.secret : b.secret, g), expected);
    assert.deepEqual(got.map((g) => g.path).sort(), ['/a', '/b']);
    assert.ok(got.some((g) => g.path === '/a' && verifiesWith(a.secret, g)) && got.some((g) => g.path === '/b' && verifiesWith(b.secret, g)), 'each subscription signs with its own secret');
  });

  it('a test-mode event never reaches a live endpoint, nor the reverse, nor another organization', async () => {
    const [org, other] = [await h.createOrg(), await h.createOrg()];
    const test = await h.subscribe(org, 'test', `${rx.url}/test`);
    const live = await h.subscribe(org, 'live', `${rx.url}/live`);
    const otherOrg = await h.subscribe(other, 'test', `${rx.url}/other`);
    const te = sessionEvent(org, 'test');
    const le = sessionEvent(org, 'live', 'kyc.session.cancelled');
    await h.publish(te);
    await h.publish(le);
    await waitFor(async () => rx.byId(te.id).length === 1 && rx.byId(le.id).length === 1, 10_000);
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(rx.byId(te.id).length, 1);
    assert.ok(verifiesWith(test.secret, rx.byId(te.id)[0]!));
    assert.equal(rx.byId(le.id).length, 1);
    assert.ok(verifiesWith(live.secret, rx.byId(le.id)[0]!));
    assert.equal(JSON.parse(rx.byId(le.id)[0]!.body).data.status, 'cancelled');
    const perSub = await h.rows<{ subscription_id: string; n: number }>(
      'SELECT subscription_id, count(*)::int AS n FROM webhook_delivery.deliveries WHERE event_id = ANY($1) GROUP BY 1',
      [[te.id, le.id]],
    );
    assert.deepEqual(Object.fromEntries(perSub.map((r) => [r.subscription_id, r.n])), { [test.id]: 1, [live.id]: 1 });
    assert.ok(!perSub.some((r) => r.subscription_id === otherOrg.id));
    // the log is per organization and mode too
    assert.deepEqual((await h.attempts(org, 'test')).map((x) => x.event_id), [te.id]);
    assert.deepEqual((await h.attempts(org, 'live')).map((x) => x.event_id), [le.id]);
    assert.deepEqual(await h.attempts(other, 'test'), []);
  });

  it('delivers only subscribed types, never the reserved ones, and nothing to a disabled subscription', async () => {
    const org = await h.createOrg();
    const onlyReview = await h.subscribe(org, 'test', `${rx.url}/review`, ['kyc.session.manual_review_requested', 'kyc.session.expired']);
    const disabled = await h.subscribe(org, 'test', `${rx.url}/disabled`);
    const off = await h.rpc.call(SUBJECTS.webhookSubscriptionDisable, { subscription_id: disabled.id }, op);
    assert.equal(off.status, 'disabled');
    const events = [
      sessionEvent(org, 'test', 'kyc.session.completed'),
      sessionEvent(org, 'test', 'kyc.session.expired'),
      sessionEvent(org, 'test', 'kyc.session.manual_review_requested'),
    ];
    for (const e of events) await h.publish(e);
    await waitFor(async () => rx.byId(events[2]!.id).length === 1, 10_000);
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(rx.byId(events[0]!.id).length, 0);
    assert.equal(rx.byId(events[1]!.id).length, 0);
    assert.ok(verifiesWith(onlyReview.secret, rx.byId(events[2]!.id)[0]!));
    const n = await h.rows<{ n: number }>('SELECT count(*)::int AS n FROM webhook_delivery.deliveries WHERE subscription_id = $1', [disabled.id]);
    assert.equal(n[0]!.n, 0);
  });
});

function verifiesWith(secret: string, got: { body: string; headers: Record<string, string> }): boolean {
  try {
    verify(secret, got);
    return true;
  } catch {
    return false;
  }
}

describe('attempts and retries', () => {
  it('500, 500, then 200: three attempts with the same webhook-id and a log of attempts 1–3', async () => {
    const org = await h.createOrg();
    const sub = await h.subscribe(org, 'test', `${rx.url}/flaky`);
    const event = sessionEvent(org, 'test');
    rx.respond = (req, n) => (req.headers['webhook-id'] === event.id && n <= 2 ? 500 : 200);
    await h.publish(event);
    const rows = await attemptsOf(org, event.id, 3);
    rx.respond = () => 200;
    const got = rx.byId(event.id);
    assert.equal(got.length, 3);
    for (const g of got) assert.ok(verifiesWith(sub.secret, g), 'every attempt verifies');
    assert.deepEqual(new Set(got.map((g) => g.body)).size, 1, 'the same body each time');
    const byAttempt = [...rows].sort((x, y) => x.attempt - y.attempt);
    assert.deepEqual(byAttempt.map((r) => [r.attempt, r.status, r.http_status, r.error_code]), [
      [1, 'failed', 500, 'http_status'],
      [2, 'failed', 500, 'http_status'],
      [3, 'succeeded', 200, null],
    ]);
    const [a1, a2, a3] = byAttempt as [WebhookAttempt, WebhookAttempt, WebhookAttempt];
    assert.equal(new Set(byAttempt.map((r) => r.delivery_id)).size, 1);
    for (const r of byAttempt) {
      assert.equal(r.object, 'webhook_attempt');
      assert.match(r.id, /^wha_[A-Za-z0-9]{24}$/);
      assert.match(r.delivery_id, /^whd_/);
      assert.equal(r.subscription_id, sub.id);
      assert.equal(r.session_id, event.data.sessionId);
      assert.equal(r.event_type, 'kyc.session.completed');
      assert.ok(Number.isInteger(r.latency_ms) && r.latency_ms >= 0);
      assert.ok(!('payload' in r) && !('body' in r) && !JSON.stringify(r).includes(sub.secret));
    }
    // the retry waits the schedule's 300 ms: next_attempt_at says when, and the next attempt came no earlier
    for (const [prev, next] of [[a1, a2], [a2, a3]] as const) {
      const due = Date.parse(prev.next_attempt_at!);
      assert.ok(due - Date.parse(prev.created_at) >= 300, 'due after the delay');
      assert.ok(Date.parse(next.created_at) >= due - 50, 'not tried before it was due');
    }
    assert.equal(a3.next_attempt_at, null);
    // newest first
    assert.deepEqual(rows.map((r) => r.attempt), [3, 2, 1]);
  });

  it('fails the delivery after the last retry: 1 + 3 attempts, the last without next_attempt_at', async () => {
    const org = await h.createOrg();
    await h.subscribe(org, 'test', `${rx.url}/down`);
    const event = sessionEvent(org, 'test');
    rx.respond = (req) => (req.headers['webhook-id'] === event.id ? 503 : 200);
    await h.publish(event);
    const rows = await attemptsOf(org, event.id, 4);
    await new Promise((r) => setTimeout(r, 1000));
    rx.respond = () => 200;
    assert.equal(rx.byId(event.id).length, 4, 'no fifth attempt');
    assert.deepEqual(rows.map((r) => [r.attempt, r.http_status, r.next_attempt_at === null]), [
      [4, 503, true],
      [3, 503, false],
      [2, 503, false],
      [1, 503, false],
    ]);
    const [d] = await h.rows<{ status: string; attempts: number }>('SELECT status, attempts FROM webhook_delivery.deliveries WHERE event_id = $1', [event.id]);
    assert.deepEqual(d, { status: 'failed', attempts: 4 });
  });

  it('does not follow redirects, and names TLS and connection failures', async () => {
    const org = await h.createOrg();
    const redirect = await h.subscribe(org, 'test', `${rx.url}/moved`);
    const closed = await startWebhookReceiver({ tls: testTls() });
    const closedUrl = `${closed.url}/gone`;
    await closed.close();
    const refused = await h.subscribe(org, 'test', closedUrl);
    const event = sessionEvent(org, 'test');
    rx.respond = (req) => (req.headers['webhook-id'] === event.id ? { status: 302, headers: { location: `${rx.url}/followed` } } : 200);
    await h.publish(event);
    const rows = await waitFor(async () => {
      const r = (await h.attempts(org, 'test')).filter((a) => a.event_id === event.id);
      return r.length >= 8 ? r : undefined;
    }, 15_000);
    rx.respond = () => 200;
    const bySub = (id: string) => rows.filter((r) => r.subscription_id === id);
    assert.ok(bySub(redirect.id).every((r) => r.http_status === 302 && r.error_code === 'http_status' && r.status === 'failed'));
    assert.equal(rx.byId(event.id).length, 4);
    assert.ok(rx.received.every((r) => r.path !== '/followed'), 'the Location was never requested');
    assert.ok(bySub(refused.id).every((r) => r.http_status === null && r.error_code === 'connection_error'));
  });

  it('a certificate that does not match the host is a tls_error', async () => {
    const org = await h.createOrg();
    // "vm" resolves to 127.0.0.1 on this machine (/etc/hosts) but the test certificate only names localhost and the IPs
    const sub = await h.subscribe(org, 'test', `https://vm:${rx.port}/tls`);
    const event = sessionEvent(org, 'test');
    await h.publish(event);
    const rows = await attemptsOf(org, event.id, 4);
    assert.ok(rows.every((r) => r.subscription_id === sub.id && r.error_code === 'tls_error' && r.http_status === null));
    assert.equal(rx.byId(event.id).length, 0);
  });
});

describe('rotation and replay', () => {
  it('after rotate-secret both signatures are sent, each verifying with its secret, and the old one is never shown again', async () => {
    const org = await h.createOrg();
    const sub = await h.subscribe(org, 'test', `${rx.url}/rotated`);
    const rotated = await h.rpc.call(SUBJECTS.webhookSubscriptionRotateSecret, { subscription_id: sub.id }, op);
    assert.notEqual(rotated.secret, sub.secret);
    assert.match(rotated.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const overlapMs = Date.parse(rotated.previous_secret_expires_at) - Date.now();
    assert.ok(overlapMs > 23.9 * 3600_000 && overlapMs <= 24 * 3600_000, 'previous secret valid for 24 h');
    const event = sessionEvent(org, 'test');
    await h.publish(event);
    const [got] = await waitFor(async () => (rx.byId(event.id).length ? rx.byId(event.id) : undefined), 10_000);
    assert.equal(got!.headers['webhook-signature']!.split(' ').length, 2);
    assert.ok(verifiesWith(rotated.secret, got!));
    assert.ok(verifiesWith(sub.secret, got!));
    // when the overlap has ended only the new secret signs
    await h.rows(`UPDATE webhook_delivery.subscriptions SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [sub.id]);
    const later = sessionEvent(org, 'test');
    await h.publish(later);
    const [got2] = await waitFor(async () => (rx.byId(later.id).length ? rx.byId(later.id) : undefined), 10_000);
    assert.equal(got2!.headers['webhook-signature']!.split(' ').length, 1);
    assert.ok(verifiesWith(rotated.secret, got2!));
    assert.equal(verifiesWith(sub.secret, got2!), false);
    // the stored secrets are encrypted
    const [row] = await h.rows<{ secret_sealed: string; previous_secret_sealed: string }>(
      'SELECT secret_sealed, previous_secret_sealed FROM webhook_delivery.subscriptions WHERE id = $1',
      [sub.id],
    );
    assert.ok(!row!.secret_sealed.includes(rotated.secret.slice(6)) && !row!.previous_secret_sealed.includes(sub.secret.slice(6)));
  });

  it('replay by event, by session and since an instant re-sends with the same webhook-id; attempts keep counting', async () => {
    const org = await h.createOrg();
    const sub = await h.subscribe(org, 'test', `${rx.url}/replay`);
    const e1 = sessionEvent(org, 'test');
    const e2 = sessionEvent(org, 'test', 'kyc.session.cancelled');
    await h.publish(e1);
    await h.publish(e2);
    await waitFor(async () => rx.byId(e1.id).length === 1 && rx.byId(e2.id).length === 1, 10_000);
    await attemptsOf(org, e2.id, 1);

    const byEvent = await h.rpc.call(SUBJECTS.webhookReplay, { event_id: e1.id }, op);
    assert.equal(byEvent.replayed, 1);
    await waitFor(async () => rx.byId(e1.id).length === 2, 10_000);
    const [first, again] = rx.byId(e1.id);
    assert.equal(first!.body, again!.body);
    assert.ok(verifiesWith(sub.secret, again!));

    const bySession = await h.rpc.call(SUBJECTS.webhookReplay, { session_id: e2.data.sessionId }, op);
    assert.equal(bySession.replayed, 1);
    await waitFor(async () => rx.byId(e2.id).length === 2, 10_000);

    const since = await h.rpc.call(SUBJECTS.webhookReplay, { since: new Date(Date.now() - 60_000).toISOString(), subscription_id: sub.id }, op);
    assert.equal(since.replayed, 2);
    await waitFor(async () => rx.byId(e1.id).length === 3 && rx.byId(e2.id).length === 3, 10_000);
    const rows = await attemptsOf(org, e1.id, 3);
    assert.deepEqual(rows.map((r) => [r.attempt, r.status]), [
      [3, 'succeeded'],
      [2, 'succeeded'],
      [1, 'succeeded'],
    ]);
    assert.equal(new Set(rows.map((r) => r.delivery_id)).size, 1);

    for (const bad of [{}, { event_id: e1.id, session_id: e2.data.sessionId }, { since: 'yesterday', org_id: org }, { since: new Date().toISOString() }]) {
      await assert.rejects(h.rpc.call(SUBJECTS.webhookReplay, bad, op), (e: DomainError) => e.code === 'validation_error');
    }
  });
});

describe('GET /v1/webhook-events', () => {
  it('pages newest first with a cursor, filters by session and subscription, and refuses bad parameters', async () => {
    const org = await h.createOrg();
    const s1 = await h.subscribe(org, 'test', `${rx.url}/p1`);
    const s2 = await h.subscribe(org, 'test', `${rx.url}/p2`);
    const events = [sessionEvent(org, 'test'), sessionEvent(org, 'test'), sessionEvent(org, 'test')];
    for (const e of events) await h.publish(e);
    await waitFor(async () => (await h.attempts(org, 'test')).length === 6, 10_000);
    const p = principal(org);
    const page1 = await h.rpc.call(SUBJECTS.webhookAttemptsList, { limit: '4' }, { ...op, principal: p });
    assert.equal(page1.data.length, 4);
    assert.ok(page1.next_cursor);
    const page2 = await h.rpc.call(SUBJECTS.webhookAttemptsList, { limit: '4', cursor: page1.next_cursor }, { ...op, principal: p });
    assert.equal(page2.data.length, 2);
    assert.equal(page2.next_cursor, null);
    const all = [...page1.data, ...page2.data];
    assert.equal(new Set(all.map((a) => a.id)).size, 6);
    const created = all.map((a) => Date.parse(a.created_at));
    assert.deepEqual(created, [...created].sort((a, b) => b - a), 'newest first');
    const bySession = await h.attempts(org, 'test', { session_id: events[1]!.data.sessionId });
    assert.equal(bySession.length, 2);
    assert.ok(bySession.every((a) => a.session_id === events[1]!.data.sessionId));
    const bySub = await h.attempts(org, 'test', { subscription_id: s2.id });
    assert.equal(bySub.length, 3);
    assert.ok(bySub.every((a) => a.subscription_id === s2.id));
    assert.deepEqual(await h.attempts(org, 'test', { subscription_id: s1.id, session_id: events[0]!.data.sessionId }).then((r) => r.length), 1);
    assert.deepEqual(await h.attempts(org, 'test', { session_id: 'not-an-id' }), []);
    for (const q of [{ limit: '0' }, { limit: '101' }, { cursor: 'bogus' }, { status: 'failed' }]) {
      await assert.rejects(h.rpc.call(SUBJECTS.webhookAttemptsList, q, { ...op, principal: p }), (e: DomainError) => e.code === 'validation_error', JSON.stringify(q));
    }
    assert.deepEqual(Object.keys(all[0]!).sort(), [
      'attempt',
      'created_at',
      'delivery_id',
      'error_code',
      'event_id',
      'event_type',
      'http_status',
      'id',
      'latency_ms',
      'next_attempt_at',
      'object',
      'session_id',
      'status',
      'subscription_id',
    ]);
  });
});
