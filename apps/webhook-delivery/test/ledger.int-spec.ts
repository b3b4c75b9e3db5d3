/**
 * The delivery ledger (DeliveriesRepository) against a real, migrated database: claims count attempts and
 * lease deliveries, outcomes write the attempt's row and give the lease up, and an attempt whose outcome was
 * never recorded (its lease ran out while held) is logged as interrupted, exactly once, by whoever finds it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '@verity/keys';
import { createServiceDataSource, Sql } from '@verity/platform';
import { cloneTestDatabase, query } from '@verity/testing';
import type { DataSource } from 'typeorm';
import { DeliveriesRepository, deliveryId, deliveryIdSql, type AttemptOutcome, type ClaimedAttempt, type NewDelivery } from '../src/delivery/deliveries.repository.js';
import { WEBHOOK_DELIVERY_SERVICE } from '../src/definition.js';

const MAX = 4;
let db: Awaited<ReturnType<typeof cloneTestDatabase>>;
let ds: DataSource;
let repo: DeliveriesRepository;
const subscriptionId = newId('webhookSubscription');

before(async () => {
  db = await cloneTestDatabase('whledger');
  ds = createServiceDataSource({ url: db.url, schema: 'webhook_delivery', migrations: WEBHOOK_DELIVERY_SERVICE.migrations, poolMax: 2, applicationName: 'ledger-test' });
  await ds.initialize();
  repo = new DeliveriesRepository(new Sql(ds));
  await rows(
    `INSERT INTO webhook_delivery.subscriptions (id, org_id, mode, url, event_types, secret_sealed) VALUES ($1, 'org_ledger', 'test', 'https://hooks.example.com/x', '{kyc.session.completed}', 'sealed')`,
    [subscriptionId],
  );
});

after(async () => {
  await ds?.destroy();
  await db?.drop();
});

const rows = <R extends Record<string, unknown>>(sql: string, params: unknown[] = []) => query<R>(db.url, sql, params);

function newDelivery(): NewDelivery {
  const eventId = newId('event');
  return {
    id: deliveryId(eventId, subscriptionId),
    event_id: eventId,
    subscription_id: subscriptionId,
    org_id: 'org_ledger',
    mode: 'test',
    event_type: 'kyc.session.completed',
    session_id: newId('session'),
    body: '{"type":"kyc.session.completed"}',
  };
}

function outcome(deliveryId: string, attempt: number, over: Partial<AttemptOutcome> = {}): AttemptOutcome {
  return { attemptId: newId('webhookAttempt'), deliveryId, round: 1, attempt, status: 'succeeded', httpStatus: 200, latencyMs: 12, errorCode: null, retryDelayMs: null, ...over };
}

const delivery = async (id: string) =>
  (await rows<{ status: string; attempts: number; leased: boolean; lease_expired: boolean }>(
    `SELECT status, attempts, lease_until IS NOT NULL AS leased, coalesce(lease_until < now(), false) AS lease_expired FROM webhook_delivery.deliveries WHERE id = $1`,
    [id],
  ))[0]!;
const attempts = (id: string) =>
  rows<{ attempt: number; status: string; http_status: number | null; error_code: string | null; latency_ms: number }>(
    `SELECT attempt, status, http_status, error_code, latency_ms FROM webhook_delivery.attempts WHERE delivery_id = $1 ORDER BY attempt`,
    [id],
  );
/** Makes a delivery's lease run out, as if the process holding it had died. */
const expireLease = (id: string) => rows(`UPDATE webhook_delivery.deliveries SET lease_until = now() - interval '1 second' WHERE id = $1`, [id]);

describe('the delivery ledger', () => {
  it('fan-out claims the first attempt of the deliveries marked so; existing ones come back as they are, unclaimed', async () => {
    const [a, b] = [newDelivery(), newDelivery()];
    const first = await repo.insert([{ ...a, claim: true }, { ...b, claim: false }], MAX);
    assert.deepEqual(
      first.map((w) => [w.id, w.claimed, w.remaining]),
      [
        [a.id, true, MAX - 1],
        [b.id, false, MAX],
      ],
    );
    assert.deepEqual(await delivery(a.id), { status: 'pending', attempts: 1, leased: true, lease_expired: false });
    assert.deepEqual(await delivery(b.id), { status: 'pending', attempts: 0, leased: false, lease_expired: false });
    assert.deepEqual(await attempts(a.id), [], 'no row before the outcome');

    // the same event again (a redelivery) next to a new one: the stored delivery comes back, nothing is claimed twice
    const fresh = newDelivery();
    const again = await repo.insert([{ ...a, claim: true }, { ...fresh, claim: true }], MAX);
    const byEvent = new Map(again.map((w) => [w.event_id, w]));
    assert.deepEqual([byEvent.get(a.event_id)!.id, byEvent.get(a.event_id)!.claimed], [a.id, false], 'the stored delivery, not a new one');
    assert.deepEqual([byEvent.get(fresh.event_id)!.id, byEvent.get(fresh.event_id)!.claimed], [fresh.id, true]);
    assert.equal((await delivery(a.id)).attempts, 1);
    const [{ n }] = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_delivery.deliveries WHERE event_id = $1`, [a.event_id]);
    assert.equal(n, 1);
  });

  it('an outcome writes the attempt row and gives the lease up; a failure with a retry leaves the delivery pending and due later', async () => {
    const [ok, flaky] = [newDelivery(), newDelivery()];
    await repo.insert([{ ...ok, claim: true }, { ...flaky, claim: true }], MAX);
    await repo.record([outcome(ok.id, 1), outcome(flaky.id, 1, { status: 'failed', httpStatus: 503, errorCode: 'http_status', retryDelayMs: 60_000 })]);
    assert.deepEqual(await delivery(ok.id), { status: 'succeeded', attempts: 1, leased: false, lease_expired: false });
    assert.deepEqual(await delivery(flaky.id), { status: 'pending', attempts: 1, leased: false, lease_expired: false });
    assert.deepEqual(await attempts(ok.id), [{ attempt: 1, status: 'succeeded', http_status: 200, error_code: null, latency_ms: 12 }]);
    const [due] = await rows<{ later: boolean }>(`SELECT next_attempt_at > now() + interval '50 seconds' AS later FROM webhook_delivery.deliveries WHERE id = $1`, [flaky.id]);
    assert.equal(due!.later, true);
    // not due yet: a claim does not take it
    assert.deepEqual(await repo.claim([{ deliveryId: flaky.id, round: 1, interruptedAttemptId: newId('webhookAttempt') }], MAX), [{ kind: 'stale' }]);
  });

  it('a claim after a lease ran out logs the interrupted attempt, then counts and leases the next one', async () => {
    const d = newDelivery();
    await repo.insert([{ ...d, claim: true }], MAX);
    // while the first attempt holds the lease, a claim says so
    const held = await repo.claim([{ deliveryId: d.id, round: 1, interruptedAttemptId: newId('webhookAttempt') }], MAX);
    assert.equal(held[0]!.kind, 'leased');
    await expireLease(d.id);
    const interruptedId = newId('webhookAttempt');
    const [claim] = await repo.claim([{ deliveryId: d.id, round: 1, interruptedAttemptId: interruptedId }], MAX);
    assert.equal(claim!.kind, 'claimed');
    const c = claim as ClaimedAttempt;
    assert.deepEqual([c.attempt, c.attemptInRound, c.url, c.subscriptionId], [2, 2, 'https://hooks.example.com/x', subscriptionId]);
    assert.deepEqual(await attempts(d.id), [{ attempt: 1, status: 'failed', http_status: null, error_code: 'connection_error', latency_ms: 20_000 }]);
    const [{ id }] = await rows<{ id: string }>(`SELECT id FROM webhook_delivery.attempts WHERE delivery_id = $1 AND attempt = 1`, [d.id]);
    assert.equal(id, interruptedId);
    assert.deepEqual(await delivery(d.id), { status: 'pending', attempts: 2, leased: true, lease_expired: false });
  });

  it('the sweeper logs attempts whose lease ran out and queues their deliveries; one that was the last fails the delivery', async () => {
    const [again, last] = [newDelivery(), newDelivery()];
    await repo.insert([{ ...again, claim: true }, { ...last, claim: true }], MAX);
    await rows(`UPDATE webhook_delivery.deliveries SET attempts = $2 WHERE id = $1`, [last.id, MAX]);
    await expireLease(again.id);
    await expireLease(last.id);
    const swept = await repo.closeAbandoned(MAX, () => newId('webhookAttempt'));
    assert.ok(swept.closed >= 2);
    assert.ok(swept.due.some((d) => d.id === again.id && d.remaining === MAX - 1), 'queued again, with its attempts left');
    assert.ok(!swept.due.some((d) => d.id === last.id));
    assert.deepEqual(await delivery(again.id), { status: 'pending', attempts: 1, leased: false, lease_expired: false });
    assert.deepEqual(await delivery(last.id), { status: 'failed', attempts: MAX, leased: false, lease_expired: false });
    assert.deepEqual((await attempts(again.id)).map((a) => [a.attempt, a.status, a.error_code]), [[1, 'failed', 'connection_error']]);
    assert.deepEqual((await attempts(last.id)).map((a) => [a.attempt, a.status, a.error_code]), [[MAX, 'failed', 'connection_error']]);
    // nothing left to sweep for these two
    const second = await repo.closeAbandoned(MAX, () => newId('webhookAttempt'));
    assert.ok(!second.due.some((d) => d.id === again.id || d.id === last.id));
  });

  it('an outcome that arrives after its attempt was logged as interrupted replaces that row, in a batch with others', async () => {
    const [late, other] = [newDelivery(), newDelivery()];
    await repo.insert([{ ...late, claim: true }, { ...other, claim: true }], MAX);
    await expireLease(late.id);
    await repo.closeAbandoned(MAX, () => newId('webhookAttempt'));
    assert.deepEqual((await attempts(late.id)).map((a) => a.status), ['failed']);
    // the slow process comes back with the real answer, in the same batch as another delivery's outcome
    await repo.record([outcome(late.id, 1, { latencyMs: 15_000 }), outcome(other.id, 1)]);
    assert.deepEqual(await attempts(late.id), [{ attempt: 1, status: 'succeeded', http_status: 200, error_code: null, latency_ms: 15_000 }]);
    assert.deepEqual(await attempts(other.id), [{ attempt: 1, status: 'succeeded', http_status: 200, error_code: null, latency_ms: 12 }]);
    assert.equal((await delivery(late.id)).status, 'succeeded');
    assert.equal((await delivery(other.id)).status, 'succeeded');
  });

  it('a claim never sent is given back: uncounted, unleased and due again', async () => {
    const d = newDelivery();
    await repo.insert([{ ...d, claim: true }], MAX);
    const due = await repo.release([{ deliveryId: d.id, attempt: 1 }], MAX);
    assert.deepEqual(due.map((x) => [x.id, x.remaining]), [[d.id, MAX]]);
    assert.deepEqual(await delivery(d.id), { status: 'pending', attempts: 0, leased: false, lease_expired: false });
    assert.deepEqual(await repo.release([{ deliveryId: d.id, attempt: 1 }], MAX), [], 'giving back twice changes nothing');
    assert.deepEqual(await attempts(d.id), []);
  });

  it('delivery ids are derived from event and subscription, the same in SQL as in code', async () => {
    const eventId = newId('event');
    const [row] = await rows<{ id: string }>(`SELECT ${deliveryIdSql('$1::text', '$2::text')} AS id`, [eventId, subscriptionId]);
    assert.equal(row!.id, deliveryId(eventId, subscriptionId));
  });

  it('replay by event finds its deliveries by derived id, and those written earlier with random ids; no other', async () => {
    const [d, other] = [newDelivery(), newDelivery()];
    await repo.insert([{ ...d, claim: true }, { ...other, claim: true }], MAX);
    await repo.record([outcome(d.id, 1), outcome(other.id, 1)]);
    // a delivery of the same event to another subscription, written before ids were derived (random id)
    const second = newId('webhookSubscription');
    const legacyId = newId('webhookDelivery');
    await rows(
      `INSERT INTO webhook_delivery.subscriptions (id, org_id, mode, url, event_types, secret_sealed) VALUES ($1, 'org_ledger', 'test', 'https://hooks.example.com/y', '{kyc.session.completed}', 'sealed')`,
      [second],
    );
    await rows(
      `INSERT INTO webhook_delivery.deliveries (id, event_id, subscription_id, org_id, mode, event_type, session_id, body, status, attempts, completed_at)
       VALUES ($1, $2, $3, 'org_ledger', 'test', 'kyc.session.completed', $4, '{}', 'succeeded', 1, now())`,
      [legacyId, d.event_id, second, d.session_id],
    );
    const due = await repo.replay({ eventId: d.event_id }, MAX);
    assert.deepEqual(due.map((x) => [x.id, x.round, x.remaining]).sort(), [[d.id, 2, MAX], [legacyId, 2, MAX]].sort());
    assert.equal((await delivery(other.id)).status, 'succeeded', 'another event is not replayed');
    assert.deepEqual(await repo.replay({ eventId: d.event_id, subscriptionId: second }, MAX).then((r) => r.map((x) => x.id)), [legacyId]);
  });
});
