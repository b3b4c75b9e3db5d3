/**
 * The privacy subjects of webhook-delivery: a data subject request's export of the delivery log, and the
 * operator's test-data purge (every test-mode delivery and attempt of an organization; subscriptions stay).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS, type DomainEvent } from '@verity/contracts';
import { newId, type Mode } from '@verity/keys';
import { refusal, startWebhookReceiver, testTls, waitFor, type WebhookReceiver } from '@verity/testing';
import { Sql } from '@verity/platform';
import pg from 'pg';
import { EXPORT_MAX_ATTEMPTS } from '../src/attempts/attempts.service.js';
import { claimDue } from '../src/delivery/dispatch.job.js';
import { deliveryId, insertDeliveries } from '../src/delivery/fanout.js';
import { Ledger } from '../src/delivery/ledger.js';
import { harness, principal, sessionEvent, type Harness } from './support.js';

let h: Harness;
let rx: WebhookReceiver;
const op = { principal: null, requestId: 'req_int' };
/** Retries wait long enough for a purge to find one queued. */
const RETRY_MS = 1500;

before(async () => {
  h = await harness('whprivacy', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: `${RETRY_MS}ms,${RETRY_MS}ms` });
  await h.start();
  rx = await startWebhookReceiver({ tls: testTls() });
});

after(async () => {
  await rx?.close();
  await h?.close();
});

const exportOf = (orgId: string, mode: Mode, sessionIds: unknown) =>
  h.rpc.call(SUBJECTS.webhooksPrivacyExport, { applicant_id: newId('applicant'), session_ids: sessionIds as string[] }, { ...op, principal: principal(orgId, mode) });
const purge = (orgId: unknown) => h.rpc.call(SUBJECTS.webhooksPurgeTestData, { org_id: orgId as string }, op);

/** An event of the given session (each event makes one delivery per matching subscription). */
function eventOf(orgId: string, mode: Mode, sessionId: string, type: DomainEvent['type'] = 'kyc.session.completed'): DomainEvent {
  const e = sessionEvent(orgId, mode, type);
  return { ...e, data: { ...e.data, sessionId } };
}

/** Publishes the events and waits until each has logged `attempts` attempts. */
async function delivered(events: DomainEvent[], attempts = 1): Promise<void> {
  for (const e of events) await h.publish(e);
  await waitFor(async () => {
    const rows = await h.rows<{ n: number }>('SELECT count(*)::int AS n FROM webhook_delivery.attempts WHERE event_id = ANY($1)', [events.map((e) => e.id)]);
    return rows[0]!.n >= events.length * attempts;
  }, 10_000);
}

/** Every delivery and attempt row of an owner, for before/after comparisons. */
async function ledgerOf(orgId: string, mode: Mode) {
  const deliveries = await h.rows<{ id: string; status: string }>('SELECT id, status FROM webhook_delivery.deliveries WHERE org_id = $1 AND mode = $2 ORDER BY id', [orgId, mode]);
  const attempts = await h.rows<{ id: string }>('SELECT id FROM webhook_delivery.attempts WHERE org_id = $1 AND mode = $2 ORDER BY id', [orgId, mode]);
  return { deliveries, attempts };
}

describe('webhook-delivery.privacy.export.v1', () => {
  it('holds every attempt of the asked sessions of the principal’s organization and mode, as the log lists them, newest first', async () => {
    const [org, other] = [await h.createOrg(), await h.createOrg()];
    await h.subscribe(org, 'test', `${rx.url}/x-test`);
    await h.subscribe(org, 'live', `${rx.url}/x-live`);
    await h.subscribe(other, 'test', `${rx.url}/x-other`);
    const [s1, s2, s3, live, foreign] = [newId('session'), newId('session'), newId('session'), newId('session'), newId('session')];
    const e1 = eventOf(org, 'test', s1, 'kyc.session.manual_review_requested');
    const flaky = eventOf(org, 'test', s1);
    rx.respond = (req, n) => (req.headers['webhook-id'] === flaky.id && n === 1 ? 500 : 200);
    await delivered([e1, eventOf(org, 'test', s2), eventOf(org, 'test', s3), eventOf(org, 'live', live), eventOf(other, 'test', foreign)]);
    await delivered([flaky], 2);
    rx.respond = () => 200;

    const got = await exportOf(org, 'test', [s1, s2, live, foreign, 'not-an-id', s1]);
    const expected = (await h.attempts(org, 'test')).filter((a) => a.session_id === s1 || a.session_id === s2);
    assert.equal(expected.length, 4, 'two events of s1 (one retried) and one of s2');
    assert.deepEqual(got.webhook_events, expected, 'the same rows and shape as GET /v1/webhook-events');
    const seqs = await h.rows<{ id: string; seq: string }>('SELECT id, seq FROM webhook_delivery.attempts WHERE id = ANY($1)', [got.webhook_events.map((a) => a.id)]);
    const seqOf = new Map(seqs.map((r) => [r.id, BigInt(r.seq)]));
    const order = got.webhook_events.map((a) => seqOf.get(a.id)!);
    assert.deepEqual(order, [...order].sort((a, b) => (a > b ? -1 : 1)), 'newest first');

    // the other mode and the other organization see only their own sessions
    assert.deepEqual((await exportOf(org, 'live', [s1, s2, live])).webhook_events.map((a) => a.session_id), [live]);
    assert.deepEqual((await exportOf(other, 'test', [s1, foreign])).webhook_events.map((a) => a.session_id), [foreign]);
    assert.deepEqual((await exportOf(org, 'test', [])).webhook_events, []);
  });

  it('holds the newest EXPORT_MAX_ATTEMPTS attempts when there are more, in one reply', async () => {
    const org = await h.createOrg();
    const session = newId('session');
    // rows as the ledger writes them, with the longest values a row can have
    await h.rows(
      `INSERT INTO webhook_delivery.attempts (id, delivery_id, org_id, mode, event_id, event_type, session_id, subscription_id, attempt, status, http_status, latency_ms, error_code, next_attempt_at, finished_at)
       SELECT 'wha_' || lpad(g::text, 24, '0'), 'whd_' || lpad(g::text, 32, '0'), $1, 'test', 'evt_' || lpad(g::text, 24, '0'), 'kyc.session.manual_review_requested',
              $2, 'whs_' || lpad('', 24, '0'), 1, 'failed', 599, 99999, 'blocked_destination', now(), now()
         FROM generate_series(1, $3::int) g`,
      [org, session, EXPORT_MAX_ATTEMPTS + 5],
    );
    const got = await exportOf(org, 'test', [session]);
    assert.equal(got.webhook_events.length, EXPORT_MAX_ATTEMPTS);
    const newest = await h.rows<{ id: string }>('SELECT id FROM webhook_delivery.attempts WHERE session_id = $1 ORDER BY seq DESC LIMIT $2', [session, EXPORT_MAX_ATTEMPTS]);
    assert.deepEqual(got.webhook_events.map((a) => a.id), newest.map((r) => r.id));
  });

  it('refuses a malformed request or a call without a principal', async () => {
    for (const bad of [undefined, 'ses_x', [42], Array.from({ length: 10_001 }, () => 'ses_x')]) {
      const e = await refusal(exportOf(await h.createOrg(), 'test', bad));
      assert.equal(e.code, 'validation_error');
      assert.equal(e.param, 'session_ids');
    }
    const e = await refusal(h.rpc.call(SUBJECTS.webhooksPrivacyExport, { applicant_id: newId('applicant'), session_ids: [] }, op));
    assert.equal(e.code, 'internal_error');
  });
});

describe('webhook-delivery.admin.purge-test-data.v1', () => {
  it('deletes every test-mode delivery and attempt of the organization, counted; live rows, other organizations and subscriptions stay', async () => {
    const [org, other] = [await h.createOrg(), await h.createOrg()];
    const testSub = await h.subscribe(org, 'test', `${rx.url}/p-test`);
    const disabled = await h.subscribe(org, 'test', `${rx.url}/p-disabled`);
    await h.subscribe(org, 'live', `${rx.url}/p-live`);
    await h.subscribe(other, 'test', `${rx.url}/p-other`);
    const retried = eventOf(org, 'test', newId('session'));
    let failed = false;
    rx.respond = (req) => (req.headers['webhook-id'] === retried.id && req.path === '/p-test' && !failed ? ((failed = true), 500) : 200);
    const events = [eventOf(org, 'test', newId('session')), retried, eventOf(org, 'live', newId('session')), eventOf(other, 'test', newId('session'))];
    await delivered(events, 1);
    // 2 events × 2 subscriptions (the disabled one was active then), one retried once
    await waitFor(async () => (await ledgerOf(org, 'test')).attempts.length === 5, 10_000);
    await h.rpc.call(SUBJECTS.webhookSubscriptionDisable, { subscription_id: disabled.id }, op);
    rx.respond = () => 200;
    // deliveries never attempted: one pending (due later), one cancelled when its subscription was disabled
    const waiting = newId('event');
    const cancelled = newId('event');
    await h.rows(
      `INSERT INTO webhook_delivery.deliveries (id, event_id, subscription_id, org_id, mode, event_type, session_id, body, status, next_attempt_at)
       VALUES ($1, $2, $3, $4, 'test', 'kyc.session.completed', NULL, '{}', 'pending', now() + interval '1 hour'),
              ($5, $6, $7, $4, 'test', 'kyc.session.completed', NULL, '{}', 'cancelled', NULL)`,
      [deliveryId(waiting, testSub.id), waiting, testSub.id, org, deliveryId(cancelled, disabled.id), cancelled, disabled.id],
    );

    const before = await ledgerOf(org, 'test');
    const untouched = { live: await ledgerOf(org, 'live'), other: await ledgerOf(other, 'test') };
    assert.equal(before.deliveries.length, 6);
    assert.equal(before.attempts.length, 5);
    assert.ok(untouched.live.attempts.length > 0 && untouched.other.attempts.length > 0);

    // an API key's principal cannot reach it, and nothing is deleted
    const refused = await refusal(h.rpc.call(SUBJECTS.webhooksPurgeTestData, { org_id: org }, { ...op, principal: principal(org) }));
    assert.equal(refused.code, 'internal_error');
    assert.deepEqual(await ledgerOf(org, 'test'), before);

    const r = await purge(org);
    assert.deepEqual(r, { removed: { deliveries: before.deliveries.length, attempts: before.attempts.length } });
    assert.deepEqual(await ledgerOf(org, 'test'), { deliveries: [], attempts: [] });
    assert.deepEqual(await h.attempts(org, 'test'), []);
    assert.deepEqual(await ledgerOf(org, 'live'), untouched.live);
    assert.deepEqual(await ledgerOf(other, 'test'), untouched.other);
    const subs = await h.rpc.call(SUBJECTS.webhookSubscriptionList, { org_id: org }, op);
    assert.equal(subs.data.length, 3, 'subscriptions are configuration: kept');

    // a second purge finds nothing
    assert.deepEqual(await purge(org), { removed: { deliveries: 0, attempts: 0 } });
    // the subscription still delivers new test events
    const fresh = eventOf(org, 'test', newId('session'));
    await delivered([fresh]);
    assert.equal((await h.attempts(org, 'test')).length, 1);
  });

  it('a retry due for a purged delivery finds nothing to claim: no request, and no row comes back', async () => {
    const org = await h.createOrg();
    const sub = await h.subscribe(org, 'test', `${rx.url}/retry`);
    const e = eventOf(org, 'test', newId('session'));
    rx.respond = (req) => (req.headers['webhook-id'] === e.id ? 503 : 200);
    await delivered([e], 1);
    const id = deliveryId(e.id, sub.id);
    const [pending] = await h.rows<{ status: string; later: boolean }>(
      `SELECT status, next_attempt_at > now() AS later FROM webhook_delivery.deliveries WHERE id = $1`,
      [id],
    );
    assert.deepEqual(pending, { status: 'pending', later: true }, 'the retry is due later');
    assert.deepEqual(await purge(org), { removed: { deliveries: 1, attempts: 1 } });

    // past the retry's due time the dispatcher finds nothing of it
    await new Promise((r) => setTimeout(r, RETRY_MS + 1500));
    rx.respond = () => 200;
    assert.equal(rx.byId(e.id).length, 1, 'no attempt after the purge');
    assert.deepEqual(await ledgerOf(org, 'test'), { deliveries: [], attempts: [] });
  });

  it('an attempt in flight whose outcome is recorded while the purge commits leaves no row behind', async () => {
    const org = newId('org');
    const sql = h.app!.get(Sql);
    const ledger = h.app!.get(Ledger);
    const sub = newId('webhookSubscription');
    await h.rows(
      `INSERT INTO webhook_delivery.subscriptions (id, org_id, mode, url, event_types, secret_sealed) VALUES ($1, $2, 'test', 'https://hooks.example.com/x', '{kyc.session.completed}', 'sealed')`,
      [sub, org],
    );
    const row = (eventId: string) => ({
      id: deliveryId(eventId, sub),
      event_id: eventId,
      subscription_id: sub,
      org_id: org,
      mode: 'test' as const,
      event_type: 'kyc.session.completed',
      session_id: newId('session'),
      body: '{}',
      trace_context: null,
    });
    const outcome = (id: string) => ({ attempt_id: newId('webhookAttempt'), delivery_id: id, round: 1, attempt: 1, status: 'succeeded' as const, http_status: 200, latency_ms: 5, error_code: null, retry_ms: null });
    const [done, inFlight] = [row(newId('event')), row(newId('event'))];
    // the service's own dispatcher may claim them first (their receiver is not reachable): either way both are leased
    await insertDeliveries(sql, [done, inFlight]);
    await claimDue(sql, 100, 4);
    await waitFor(async () => (await h.rows<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_delivery.deliveries WHERE id = ANY($1) AND lease_until IS NOT NULL`, [[done.id, inFlight.id]]))[0]!.n === 2, 5000);
    await ledger.write([outcome(done.id)]);

    // another session holds the finished attempt's row, so the purge stops between its two deletes
    const holder = new pg.Client({ connectionString: h.db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM webhook_delivery.attempts WHERE delivery_id = $1 FOR UPDATE', [done.id]);
      const purged = purge(org);
      await waitUntilWaiting('%DELETE FROM webhook_delivery.attempts WHERE org_id%');
      // the in-flight attempt's outcome arrives now: it waits for the purge's lock on its delivery
      const recorded = ledger.write([outcome(inFlight.id)]);
      await waitUntilWaiting('%recorded AS%');
      await holder.query('COMMIT');
      await recorded;
      assert.deepEqual(await purged, { removed: { deliveries: 2, attempts: 2 } }, 'the attempt recorded meanwhile is counted');
    } finally {
      await holder.end();
    }
    assert.deepEqual(await ledgerOf(org, 'test'), { deliveries: [], attempts: [] });
  });

  it('refuses a missing or malformed org_id as a validation error naming it', async () => {
    for (const bad of [undefined, '', 'org_', 'key_AAAAAAAAAAAAAAAAAAAAAAAA', 42]) {
      const e = await refusal(purge(bad));
      assert.equal(e.code, 'validation_error', String(bad));
      assert.equal(e.param, 'org_id');
    }
  });
});

/** Waits until a statement matching `like` waits for a lock. */
async function waitUntilWaiting(like: string): Promise<void> {
  await waitFor(async () => {
    const rows = await h.rows<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [like]);
    return rows[0]!.n > 0;
  }, 5000);
}
