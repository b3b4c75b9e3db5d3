/**
 * Fault tests of webhook delivery, on a us stack of their own (own database, subject root and ports): the real
 * accounts and webhook-delivery processes, a burst of 1,000 events published straight to the stack's stream, and
 * an HTTPS receiver on loopback. Each time every event must be delivered (and verify), duplicates must stay within
 * the attempts in flight when the fault hit, and the log must account for every attempt the receiver saw.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Webhook } from 'standardwebhooks';
import { eventSubject, subjectRoot, SUBJECTS, type WebhookSubscriptionWithSecret } from '@verity/contracts';
import { encodeJson, RpcClient } from '@verity/platform';
import { freePort, Stack } from '@verity/stack';
import { cloneTestDatabase, isolationPrefix, query, sessionEvent, startWebhookReceiver, testTls, waitFor, type WebhookReceiver } from '@verity/testing';

const BURST = 1000;
const op = { principal: null, requestId: 'req_e2e_faults' };


let db: Awaited<ReturnType<typeof cloneTestDatabase>>;
let stack: Stack;
let nc: NatsConnection;
/** The stack's NATS as sessions: these tests play its relay and publish events to the stream. */
let asSessions: NatsConnection;
let rpc: RpcClient;
let root: string;
let rx: WebhookReceiver;

before(async () => {
  db = await cloneTestDatabase('whfaults');
  const prefix = isolationPrefix('whfaults');
  root = subjectRoot('us', prefix);
  stack = new Stack({
    // its database is a clone of the migrated template
    migrate: false,
    regions: ['us'],
    ports: { us: await freePort(), eu: 0 },
    databaseUrl: () => db.url,
    isolationPrefix: prefix,
    env: { LOG_LEVEL: 'error' },
    // no ID scans here: id-scan is not started
    replicas: { 'id-scan': 0 },
    serviceEnv: {
      'webhook-delivery': {
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
        WEBHOOK_POLL_MS: '200',
        NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '',
      },
    },
    output: (r, s, line) => process.stderr.write(`[faults ${r}/${s}] ${line}\n`),
  });
  await stack.startNats();
  nc = await stack.connectNats('us', 'operator', 'e2e-webhook-faults');
  asSessions = await stack.connectNats('us', 'sessions', 'e2e-webhook-faults-events');
  rpc = new RpcClient(nc, root, 5000);
  stack.startService('us', 'accounts');
  stack.startService('us', 'webhook-delivery');
  await waitFor(async () => (await rpc.call(SUBJECTS.accountsHealth, {}, op).catch(() => null))?.status === 'ok', 20_000, 100);
  await waitForDelivery();
  rx = await startWebhookReceiver({ tls: testTls() });
});

after(async () => {
  await rx?.close();
  // the stream goes with the stack's own NATS server
  await nc?.close();
  await asSessions?.close();
  await stack?.stop();
  await db?.drop();
});

async function waitForDelivery(): Promise<void> {
  await waitFor(async () => (await rpc.call(SUBJECTS.webhooksHealth, {}, op).catch(() => null))?.status === 'ok', 60_000, 100);
}

async function subscription(path: string): Promise<{ orgId: string; sub: WebhookSubscriptionWithSecret }> {
  const org = await rpc.call(SUBJECTS.accountsOrgCreate, { name: 'faults' }, op);
  const sub = await rpc.call(
    SUBJECTS.webhookSubscriptionCreate,
    { org_id: org.id, mode: 'test', url: `${rx.url}${path}`, event_types: ['kyc.session.completed'] },
    op,
  );
  return { orgId: org.id, sub };
}

async function publishBurst(orgId: string): Promise<string[]> {
  const js = jetstream(asSessions);
  const ids: string[] = [];
  for (let i = 0; i < BURST; i += 100) {
    await Promise.all(
      Array.from({ length: 100 }, () => {
        const event = sessionEvent(orgId, 'test');
        ids.push(event.id);
        return js.publish(eventSubject(root, event.type), encodeJson(event), { msgID: event.id });
      }),
    );
  }
  return ids;
}

/** Attempts claimed and not yet logged with an outcome: their delivery holds a lease. */
async function inFlight(subscriptionId: string): Promise<number> {
  const [r] = await query<{ n: number }>(
    db.url,
    `SELECT count(*)::int AS n FROM webhook_delivery.deliveries WHERE subscription_id = $1 AND lease_until IS NOT NULL`,
    [subscriptionId],
  );
  return r!.n;
}

/** Waits for every delivery to succeed, then checks what the receiver saw against the events and the log. */
async function assertEveryEventDelivered(sub: WebhookSubscriptionWithSecret, path: string, ids: string[], inFlightAtFault: number): Promise<string> {
  await waitFor(
    async () => {
      // every delivery succeeded, and every attempt counted by a delivery is logged
      const [r] = await query<{ done: number; counted: number; logged: number }>(
        db.url,
        `SELECT (SELECT count(*)::int FROM webhook_delivery.deliveries WHERE subscription_id = $1 AND status = 'succeeded') AS done,
                (SELECT coalesce(sum(attempts), 0)::int FROM webhook_delivery.deliveries WHERE subscription_id = $1) AS counted,
                (SELECT count(*)::int FROM webhook_delivery.attempts WHERE subscription_id = $1) AS logged`,
        [sub.id],
      );
      return r!.done === ids.length && r!.counted === r!.logged;
    },
    // a thousand deliveries on a machine whose two cores the other tests share
    150_000,
    250,
  );
  const got = rx.received.filter((r) => r.path === path);
  const wh = new Webhook(sub.secret);
  for (const g of got) wh.verify(g.body, g.headers); // throws on any unsigned or forged delivery
  const perId = new Map<string, number>();
  for (const g of got) perId.set(g.headers['webhook-id']!, (perId.get(g.headers['webhook-id']!) ?? 0) + 1);
  assert.deepEqual([...perId.keys()].sort(), [...ids].sort(), 'every event delivered, nothing else');
  const duplicates = got.length - ids.length;
  assert.ok(duplicates <= inFlightAtFault, `${duplicates} duplicates, ${inFlightAtFault} attempts in flight at the fault`);

  const attempts = await query<{ event_id: string; attempts: number; rows: number; succeeded: number; failed_other: number }>(
    db.url,
    `SELECT d.event_id, d.attempts, count(a.id)::int AS rows,
            count(*) FILTER (WHERE a.status = 'succeeded')::int AS succeeded,
            count(*) FILTER (WHERE a.status = 'failed' AND a.error_code <> 'connection_error')::int AS failed_other
       FROM webhook_delivery.deliveries d JOIN webhook_delivery.attempts a ON a.delivery_id = d.id
      WHERE d.subscription_id = $1 GROUP BY d.id`,
    [sub.id],
  );
  assert.equal(attempts.length, ids.length);
  let interrupted = 0;
  for (const a of attempts) {
    assert.equal(a.rows, a.attempts, `the attempt counter of ${a.event_id} matches its rows`);
    assert.equal(a.succeeded, 1);
    assert.equal(a.failed_other, 0);
    assert.ok((perId.get(a.event_id) ?? 0) <= a.rows, `the receiver saw ${a.event_id} more often than the log has attempts`);
    interrupted += a.rows - 1;
  }
  assert.ok(interrupted <= inFlightAtFault, `${interrupted} interrupted attempts, ${inFlightAtFault} in flight`);
  return `${got.length} requests for ${ids.length} events: ${duplicates} duplicates, ${interrupted} interrupted attempts logged, ${inFlightAtFault} in flight at the fault`;
}

describe('webhook delivery under faults', () => {
  it('SIGKILL of webhook-delivery in the middle of a burst of 1,000 events, then a restart: every event delivered', async (t) => {
    const path = '/faults/kill';
    const { orgId, sub } = await subscription(path);
    const ids = await publishBurst(orgId);
    await waitFor(async () => rx.received.filter((r) => r.path === path).length >= BURST / 4, 60_000, 5);
    await stack.stopService('us', 'webhook-delivery', 'SIGKILL');
    const atKill = await inFlight(sub.id);
    const seenAtKill = rx.received.filter((r) => r.path === path).length;
    assert.ok(seenAtKill < BURST, 'killed in the middle of the burst');
    stack.startService('us', 'webhook-delivery');
    await waitForDelivery();
    t.diagnostic(`killed after ${seenAtKill} deliveries; ${await assertEveryEventDelivered(sub, path, ids, atKill)}`);
  });

  it('a receiver that stops answering with every slot taken, in the middle of a burst of 1,000 events: the rest waits in Postgres and every event is delivered', async (t) => {
    const path = '/faults/hang';
    const { orgId, sub } = await subscription(path);
    // Once a quarter of the burst is in, the receiver holds its answers: every slot is taken by an attempt that
    // waits, the rest of the burst must wait unclaimed in Postgres, and once the receiver answers again it all goes.
    let holding = false;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    rx.respond = async () => {
      if (holding) await held;
      return 200;
    };
    try {
      const ids = await publishBurst(orgId);
      await waitFor(async () => rx.received.filter((r) => r.path === path).length >= BURST / 4, 60_000, 5);
      holding = true;
      const waiting = async () =>
        (
          await query<{ n: number }>(
            db.url,
            `SELECT count(*)::int AS n FROM webhook_delivery.deliveries WHERE subscription_id = $1 AND status = 'pending' AND lease_until IS NULL`,
            [sub.id],
          )
        )[0]!.n;
      await waitFor(async () => (await waiting()) > 0, 8000, 50);
      const before = await inFlight(sub.id);
      const backlog = await waiting();
      const seenAtHang = rx.received.filter((r) => r.path === path).length;
      assert.ok(seenAtHang < BURST, 'the receiver hung in the middle of the burst');
      holding = false;
      release();
      const summary = await assertEveryEventDelivered(sub, path, ids, before);
      t.diagnostic(`hung after ${seenAtHang} requests with ${backlog} deliveries waiting in Postgres; ${summary}`);
    } finally {
      release();
      rx.respond = () => 200;
    }
  });
});
