/**
 * The delivery pipeline's statements against a real, migrated database: fan-out writes deliveries once, the
 * dispatcher's claims count attempts and lease deliveries, the ledger's outcomes write the attempt's row and give
 * the lease up, and an attempt whose outcome was never recorded (its lease ran out while held) is logged as
 * interrupted, exactly once, by whoever finds it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '@verity/keys';
import { createServicePool, Sql } from '@verity/platform';
import { cloneTestDatabase, query } from '@verity/testing';
import pg from 'pg';
import { claimDue, type ClaimedAttempt } from '../src/delivery/dispatch.job.js';
import { deliveryId, deliveryIdSql, insertDeliveries, type NewDelivery } from '../src/delivery/fanout.js';
import { Ledger, type AttemptOutcome } from '../src/delivery/ledger.js';
import { replayDeliveries } from '../src/delivery/operations.js';

const MAX = 4;
let db: Awaited<ReturnType<typeof cloneTestDatabase>>;
let pool: pg.Pool;
let sql: Sql;
let ledger: Ledger;
const subscriptionId = newId('webhookSubscription');

before(async () => {
  db = await cloneTestDatabase('whledger');
  pool = createServicePool({ url: db.url, poolMax: 2, applicationName: 'ledger-test' });
  sql = new Sql(pool);
  ledger = new Ledger(sql);
  await rows(
    `INSERT INTO webhook_delivery.subscriptions (id, org_id, mode, url, event_types, secret_sealed) VALUES ($1, 'org_ledger', 'test', 'https://hooks.example.com/x', '{kyc.session.completed}', 'sealed')`,
    [subscriptionId],
  );
});

after(async () => {
  await pool?.end();
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
    trace_context: null,
  };
}

function outcome(deliveryId: string, attempt: number, over: Partial<AttemptOutcome> = {}): AttemptOutcome {
  return { attempt_id: newId('webhookAttempt'), delivery_id: deliveryId, round: 1, attempt, status: 'succeeded', http_status: 200, latency_ms: 12, error_code: null, retry_ms: null, ...over };
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
/** Claims what is due among `ids` (other tests' deliveries may be due too: they are given back untouched). */
async function claim(ids: string[], limit = 100): Promise<ClaimedAttempt[]> {
  const claims = await claimDue(sql, limit, MAX);
  const others = claims.filter((c) => !ids.includes(c.deliveryId));
  if (others.length > 0) {
    await rows(`UPDATE webhook_delivery.deliveries SET attempts = attempts - 1, lease_until = NULL WHERE id = ANY($1)`, [others.map((c) => c.deliveryId)]);
  }
  return claims.filter((c) => ids.includes(c.deliveryId));
}
const record = (outcomes: AttemptOutcome[]) => ledger.write(outcomes);
/** Makes a delivery's lease run out, as if the process holding it had died. */
const expireLease = (id: string) => rows(`UPDATE webhook_delivery.deliveries SET lease_until = now() - interval '1 second' WHERE id = $1`, [id]);

describe('the delivery pipeline in Postgres', () => {
  it('fan-out writes each delivery once: the same event again leaves the stored delivery as it is', async () => {
    const [a, b] = [newDelivery(), newDelivery()];
    await insertDeliveries(sql, [a, b]);
    assert.deepEqual(await delivery(a.id), { status: 'pending', attempts: 0, leased: false, lease_expired: false });
    const [c] = await claim([a.id]);
    assert.equal(c!.attempt, 1);
    // the same event again (a redelivery) next to a new one: the stored delivery keeps its claim, the new one is written
    const fresh = newDelivery();
    await insertDeliveries(sql, [a, fresh]);
    assert.deepEqual(await delivery(a.id), { status: 'pending', attempts: 1, leased: true, lease_expired: false });
    assert.deepEqual(await delivery(fresh.id), { status: 'pending', attempts: 0, leased: false, lease_expired: false });
    const [{ n }] = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_delivery.deliveries WHERE event_id = $1`, [a.event_id]);
    assert.equal(n, 1);
    assert.deepEqual(await attempts(a.id), [], 'no row before the outcome');
    await claim([b.id, fresh.id]);
  });

  it('a claim takes at most the slots it is given, oldest due first, and never what another claim holds', async () => {
    const ds = [newDelivery(), newDelivery(), newDelivery()];
    for (const d of ds) await insertDeliveries(sql, [d]);
    const ids = ds.map((d) => d.id);
    await rows(`UPDATE webhook_delivery.deliveries SET next_attempt_at = now() - make_interval(secs => 100 - array_position($1::text[], id)) WHERE id = ANY($1)`, [ids]);
    // another process is claiming the oldest right now: its row is locked, so this claim skips it
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM webhook_delivery.deliveries WHERE id = $1 FOR UPDATE', [ids[0]]);
      const first = (await claimDue(sql, 1, MAX)).map((c) => c.deliveryId);
      assert.deepEqual(first, [ids[1]], 'one slot: one claim, the oldest not held elsewhere');
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    assert.deepEqual((await claim(ids)).map((c) => c.deliveryId).sort(), [ids[0], ids[2]].sort());
    assert.deepEqual(await claim(ids), [], 'leased: nothing more to claim');
  });

  it('an outcome writes the attempt row and gives the lease up; a failure with a retry leaves the delivery pending and due later', async () => {
    const [ok, flaky] = [newDelivery(), newDelivery()];
    await insertDeliveries(sql, [ok, flaky]);
    assert.equal((await claim([ok.id, flaky.id])).length, 2);
    await record([outcome(ok.id, 1), outcome(flaky.id, 1, { status: 'failed', http_status: 503, error_code: 'http_status', retry_ms: 60_000 })]);
    assert.deepEqual(await delivery(ok.id), { status: 'succeeded', attempts: 1, leased: false, lease_expired: false });
    assert.deepEqual(await delivery(flaky.id), { status: 'pending', attempts: 1, leased: false, lease_expired: false });
    assert.deepEqual(await attempts(ok.id), [{ attempt: 1, status: 'succeeded', http_status: 200, error_code: null, latency_ms: 12 }]);
    const [due] = await rows<{ later: boolean }>(`SELECT next_attempt_at > now() + interval '50 seconds' AS later FROM webhook_delivery.deliveries WHERE id = $1`, [flaky.id]);
    assert.equal(due!.later, true);
    // not due yet: a claim does not take it
    assert.deepEqual(await claim([flaky.id]), []);
  });

  it('a claim after a lease ran out logs the interrupted attempt, then counts and leases the next one', async () => {
    const d = newDelivery();
    await insertDeliveries(sql, [d]);
    await claim([d.id]);
    // while the first attempt holds the lease, a claim does not take it
    assert.deepEqual(await claim([d.id]), []);
    await expireLease(d.id);
    const [c] = await claim([d.id]);
    assert.deepEqual([c!.attempt, c!.attemptInRound, c!.url, c!.subscriptionId], [2, 2, 'https://hooks.example.com/x', subscriptionId]);
    assert.deepEqual(await attempts(d.id), [{ attempt: 1, status: 'failed', http_status: null, error_code: 'connection_error', latency_ms: 20_000 }]);
    const [{ id }] = await rows<{ id: string }>(`SELECT id FROM webhook_delivery.attempts WHERE delivery_id = $1 AND attempt = 1`, [d.id]);
    assert.match(id, /^wha_/);
    assert.deepEqual(await delivery(d.id), { status: 'pending', attempts: 2, leased: true, lease_expired: false });
  });

  it('a lease that ran out on the last attempt of the round fails the delivery; a disabled subscription cancels it', async () => {
    const [last, orphan] = [newDelivery(), newDelivery()];
    const disabled = newId('webhookSubscription');
    await rows(
      `INSERT INTO webhook_delivery.subscriptions (id, org_id, mode, url, event_types, secret_sealed, status) VALUES ($1, 'org_ledger', 'test', 'https://hooks.example.com/z', '{kyc.session.completed}', 'sealed', 'disabled')`,
      [disabled],
    );
    const gone = { ...orphan, subscription_id: disabled, id: deliveryId(orphan.event_id, disabled) };
    await insertDeliveries(sql, [last, gone]);
    await claim([last.id]);
    await rows(`UPDATE webhook_delivery.deliveries SET attempts = $2 WHERE id = $1`, [last.id, MAX]);
    await expireLease(last.id);
    assert.deepEqual(await claim([last.id, gone.id]), [], 'nothing to send');
    assert.deepEqual(await delivery(last.id), { status: 'failed', attempts: MAX, leased: false, lease_expired: false });
    assert.deepEqual((await attempts(last.id)).map((a) => [a.attempt, a.status, a.error_code]), [[MAX, 'failed', 'connection_error']]);
    assert.deepEqual(await delivery(gone.id), { status: 'cancelled', attempts: 0, leased: false, lease_expired: false });
    assert.deepEqual(await attempts(gone.id), []);
  });

  it('an outcome that arrives after its attempt was logged as interrupted replaces that row, in a batch with others', async () => {
    const [late, other] = [newDelivery(), newDelivery()];
    await insertDeliveries(sql, [late, other]);
    await claim([late.id, other.id]);
    await expireLease(late.id);
    await claim([late.id]);
    assert.deepEqual((await attempts(late.id)).map((a) => a.status), ['failed']);
    // the slow process comes back with the real answer, in the same batch as another delivery's outcome
    await record([outcome(late.id, 1, { latency_ms: 15_000 }), outcome(other.id, 1)]);
    assert.deepEqual(await attempts(late.id), [{ attempt: 1, status: 'succeeded', http_status: 200, error_code: null, latency_ms: 15_000 }]);
    assert.deepEqual(await attempts(other.id), [{ attempt: 1, status: 'succeeded', http_status: 200, error_code: null, latency_ms: 12 }]);
    assert.equal((await delivery(other.id)).status, 'succeeded');
    // the late outcome was not the delivery's current attempt (2 is leased): its state is the second attempt's to decide
    assert.deepEqual(await delivery(late.id), { status: 'pending', attempts: 2, leased: true, lease_expired: false });
  });

  it('delivery ids are derived from event and subscription, the same in SQL as in code', async () => {
    const eventId = newId('event');
    const [row] = await rows<{ id: string }>(`SELECT ${deliveryIdSql('$1::text', '$2::text')} AS id`, [eventId, subscriptionId]);
    assert.equal(row!.id, deliveryId(eventId, subscriptionId));
  });

  it('replay by event finds its deliveries by derived id and starts their next round; no other', async () => {
    const [d, other] = [newDelivery(), newDelivery()];
    await insertDeliveries(sql, [d, other]);
    await claim([d.id, other.id]);
    await record([outcome(d.id, 1), outcome(other.id, 1)]);
    assert.deepEqual(await replayDeliveries(sql, { event_id: d.event_id }), [d.id]);
    const [r] = await rows<{ round: number; status: string; due: boolean }>(
      `SELECT round, status, next_attempt_at <= now() AS due FROM webhook_delivery.deliveries WHERE id = $1`,
      [d.id],
    );
    assert.deepEqual(r, { round: 2, status: 'pending', due: true });
    assert.equal((await delivery(other.id)).status, 'succeeded', 'another event is not replayed');
    assert.deepEqual(await replayDeliveries(sql, { event_id: d.event_id, subscription_id: newId('webhookSubscription') }), []);
    const [again] = await claim([d.id]);
    assert.deepEqual([again!.round, again!.attempt, again!.attemptInRound], [2, 2, 1]);
  });
});
