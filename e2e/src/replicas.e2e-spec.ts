/**
 * Three replicas of every app of a region, gateway included (docs/scaling.md), on a stack of this file's own: its
 * database, NATS server, subject root and Redis prefix; clients reach the gateways, and the gateways evidence and
 * id-scan, through the Stack's round-robin proxies, as through Kubernetes Services. The workloads must end as
 * they do with one replica of each: every session created once, run once, its event on the stream once and
 * delivered once (more only where an attempt was really retried), a rate limit shared by the gateways, and
 * nothing committed lost when replicas are killed under load.
 *
 * It starts 24 processes of its own, so it runs alone: `npm run test:replicas` (tools/scripts/test.mjs
 * `replicas`), not with the shared stacks of the e2e layer. docs/scaling.md says what it proves.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { eventStreamName, subjectRoot, SUBJECTS, type DomainEvent, type Session, type WebhookSubscriptionWithSecret } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { freePort, SERVICES, Stack, type ServiceName } from '@verity/stack';
import { api, cloneTestDatabase, isolationPrefix, query, startWebhookReceiver, testTls, waitFor, type ApiResponse, type WebhookReceiver } from '@verity/testing';

const REPLICAS = 3;
const APPS: ServiceName[] = ['gateway', ...SERVICES];
const OUTCOMES = ['pass', 'review', 'fail', 'doc_quality'] as const;
/** The one event each resting status of a test run delivers. */
const EVENT_OF: Record<string, string> = { completed: 'kyc.session.completed', manual_review: 'kyc.session.manual_review_requested' };
const op = { principal: null, requestId: 'req_e2e_replicas' };
const WEBHOOK_PATH = '/replicas';

let db: Awaited<ReturnType<typeof cloneTestDatabase>>;
let stack: Stack;
let root: string;
let nc: NatsConnection;
let reader: NatsConnection;
let ops: RpcClient;
let rx: WebhookReceiver;
let key: string;
let sub: WebhookSubscriptionWithSecret;
let templateId: string;

const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, k = key): Promise<ApiResponse<T>> =>
  api<T>(stack.baseUrl('us'), method, path, { key: k, body, headers });

before(async () => {
  db = await cloneTestDatabase('replicas');
  const prefix = isolationPrefix('replicas');
  root = subjectRoot('us', prefix);
  stack = new Stack({
    // its database is a clone of the migrated template
    migrate: false,
    regions: ['us'],
    ports: { us: await freePort(), eu: 0 },
    databaseUrl: () => db.url,
    isolationPrefix: prefix,
    replicas: REPLICAS,
    env: {
      LOG_LEVEL: 'error',
      // every request of this file comes from loopback
      RATE_LIMIT_IP_PER_MINUTE: '1000000',
      // room for 200 creates at once on two shared cores; a request lost with a killed replica waits this long
      RPC_TIMEOUT_MS: '8000',
      // 24 processes on one Postgres: every pool small (docs/scaling.md, "Postgres connections")
      PG_POOL_MAX: '2',
      // nothing here is read: the readers load their engines only if a read comes
      READING_WARM: 'false',
    },
    serviceEnv: {
      sessions: { PG_POOL_MAX: '4', JOBS_POLL_MS: '200', OUTBOX_POLL_MS: '200' },
      'webhook-delivery': {
        PG_POOL_MAX: '3',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
        NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '',
      },
      // one reader thread each: 3 × 2 reading services on two cores
      evidence: { READING_THREADS: '1' },
      'id-scan': { READING_THREADS: '1' },
    },
    output: (r, s, line, i) => process.stderr.write(`[replicas ${r}/${s}#${i}] ${line}\n`),
    readyTimeoutMs: 180_000,
  });
  const started = Date.now();
  [rx] = await Promise.all([startWebhookReceiver({ tls: testTls() }), stack.start()]);
  process.stderr.write(`[replicas] ${REPLICAS} replicas of ${APPS.length} apps ready in ${((Date.now() - started) / 1000).toFixed(1)} s; RSS ${rss()}\n`);
  nc = await stack.connectNats('us', 'operator', 'e2e-replicas');
  reader = await stack.connectNats('us', 'test-reader', 'e2e-replicas-reader');
  ops = new RpcClient(nc, root, 10_000);

  const org = await ops.call(SUBJECTS.accountsOrgCreate, { name: 'replicas', tier: 'enterprise' }, op);
  ({ key } = await ops.call(
    SUBJECTS.accountsKeyCreate,
    { org_id: org.id, mode: 'test', type: 'sk', scopes: ['applicants:write', 'workflows:write', 'sessions:read', 'sessions:write', 'sessions:read_report'] },
    op,
  ));
  sub = await ops.call(
    SUBJECTS.webhookSubscriptionCreate,
    { org_id: org.id, mode: 'test', url: `${rx.url}${WEBHOOK_PATH}`, event_types: Object.values(EVENT_OF) },
    op,
  );
  const template = await call<{ data: { id: string } }>('POST', '/v1/workflow-templates', { name: 'replicas', checks: ['document', 'watchlist', 'credit_history'] });
  assert.equal(template.status, 201, template.text);
  templateId = template.body.data.id;
});

after(async () => {
  await nc?.close();
  await reader?.close();
  await rx?.close();
  await stack?.stop();
  await db?.drop();
});

/** Resident memory of every process of the stack, per app (MiB, the three replicas added up) and in all. */
function rss(): string {
  const mib = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const per = APPS.map((a) => [a, stack.processes('us', a).reduce((sum, c) => sum + (c.pid ? mib(c.pid) : 0), 0)] as const);
  return `${per.map(([a, m]) => `${a} ${m.toFixed(0)}`).join(', ')}; total ${per.reduce((s, [, m]) => s + m, 0).toFixed(0)} MiB`;
}

async function newApplicant(name: string): Promise<string> {
  const res = await call<{ data: { id: string } }>('POST', '/v1/applicants', { family_name: name, given_names: ['Replica'] });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

function createSession(applicantId: string, i: number): Promise<ApiResponse<{ data: Session }>> {
  return call<{ data: Session }>('POST', '/v1/sessions', { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: OUTCOMES[i % OUTCOMES.length] });
}

/** Until every session of the applicant rests and none has a job or an unrelayed event left. */
async function settled(applicantId: string): Promise<void> {
  await waitFor(async () => {
    const [r] = await query<{ open: number; jobs: number; unrelayed: number }>(
      db.url,
      `SELECT (SELECT count(*)::int FROM sessions.sessions WHERE applicant_id = $1 AND status IN ('pending', 'in_progress')) AS open,
              (SELECT count(*)::int FROM sessions.jobs j JOIN sessions.sessions s ON s.id = j.session_id WHERE s.applicant_id = $1) AS jobs,
              (SELECT count(*)::int FROM sessions.outbox o JOIN sessions.sessions s ON s.id = o.session_id WHERE s.applicant_id = $1 AND o.relayed_at IS NULL) AS unrelayed`,
      [applicantId],
    );
    return r!.open + r!.jobs + r!.unrelayed === 0;
  }, 60_000, 200);
}

/** Every message on the region's event stream, with its deduplication id, read with an ordered consumer. */
async function streamed(): Promise<Array<{ msgId: string; event: DomainEvent }>> {
  const name = eventStreamName(root);
  const last = (await (await jetstreamManager(reader)).streams.info(name)).state.last_seq;
  const consumer = await jetstream(reader).consumers.get(name);
  const out: Array<{ msgId: string; event: DomainEvent }> = [];
  while (last > 0) {
    const m = await consumer.next({ expires: 5000 });
    if (!m) throw new Error(`stream ${name} stopped before sequence ${last}`);
    out.push({ msgId: m.headers?.get('Nats-Msg-Id') ?? '', event: m.json<DomainEvent>() });
    if (m.seq >= last) break;
  }
  await consumer.delete().catch(() => undefined);
  return out;
}

/**
 * The outcome of a workload on the applicant's sessions, as with one replica: each session ran once and rests with
 * the one event its status delivers, that event is on the stream exactly once, and the receiver got it as many
 * times as the delivery log has attempts for it, every delivery succeeded. Returns the sessions and how many
 * events were delivered more than once.
 */
async function outcome(applicantId: string): Promise<{ sessions: Array<{ id: string; status: string }>; redelivered: number }> {
  const sessions = await query<{ id: string; status: string }>(db.url, `SELECT id, status FROM sessions.sessions WHERE applicant_id = $1`, [applicantId]);
  const ids = sessions.map((s) => s.id);
  const runs = await query<{ session_id: string; n: number }>(db.url, `SELECT session_id, count(*)::int AS n FROM sessions.runs WHERE session_id = ANY($1) GROUP BY session_id`, [ids]);
  assert.equal(runs.length, ids.length, 'every session has its run');
  assert.deepEqual(runs.filter((r) => r.n !== 1), [], 'each run happened once');

  const outbox = await query<{ event_id: string; session_id: string; type: string }>(db.url, `SELECT event_id, session_id, type FROM sessions.outbox WHERE session_id = ANY($1)`, [ids]);
  const eventOf = new Map(outbox.map((o) => [o.session_id, o]));
  assert.equal(outbox.length, ids.length, 'one event per session');
  for (const s of sessions) assert.equal(eventOf.get(s.id)?.type, EVENT_OF[s.status], `session ${s.id} (${s.status})`);

  // on the stream exactly once by event id, which is also the message's deduplication id, and nothing else of these sessions
  const mine = new Set(ids);
  const onStream = (await streamed()).filter((m) => mine.has(m.event.data.sessionId));
  for (const m of onStream) assert.equal(m.msgId, m.event.id);
  const times = new Map<string, number>();
  for (const m of onStream) times.set(m.event.id, (times.get(m.event.id) ?? 0) + 1);
  assert.deepEqual(
    outbox.filter((o) => times.get(o.event_id) !== 1).map((o) => `${o.event_id}: ${times.get(o.event_id) ?? 0}`),
    [],
    'each event on the stream once',
  );
  assert.equal(onStream.length, outbox.length, 'nothing on the stream that was not committed');

  // delivered: every delivery succeeded, and the receiver saw each event as often as attempts were logged for it
  const eventIds = outbox.map((o) => o.event_id);
  await waitFor(async () => {
    const [r] = await query<{ done: number }>(db.url, `SELECT count(*)::int AS done FROM webhook_delivery.deliveries WHERE event_id = ANY($1) AND status = 'succeeded'`, [eventIds]);
    return r!.done === eventIds.length;
  }, 60_000, 200);
  const attempts = new Map(
    (await query<{ event_id: string; n: number }>(db.url, `SELECT event_id, count(*)::int AS n FROM webhook_delivery.attempts WHERE event_id = ANY($1) GROUP BY event_id`, [eventIds])).map(
      (r) => [r.event_id, r.n],
    ),
  );
  const received = new Map<string, number>();
  const signed = new Webhook(sub.secret);
  for (const r of rx.received) {
    if (r.path !== WEBHOOK_PATH) continue;
    signed.verify(r.body, r.headers);
    received.set(r.headers['webhook-id']!, (received.get(r.headers['webhook-id']!) ?? 0) + 1);
  }
  assert.deepEqual(
    eventIds.filter((e) => !received.get(e) || received.get(e) !== attempts.get(e)).map((e) => `${e}: received ${received.get(e) ?? 0}, attempts ${attempts.get(e) ?? 0}`),
    [],
    'each event received, signed, once per logged attempt',
  );
  return { sessions, redelivered: eventIds.filter((e) => received.get(e)! > 1).length };
}

describe(`${REPLICAS} replicas of every app`, () => {
  it('200 concurrent creates: 200 sessions, each run once, its event on the stream once and delivered once; the gateways shared the connections', async () => {
    const applicantId = await newApplicant('Load');
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => createSession(applicantId, i)));
    assert.deepEqual(
      answers.filter((a) => a.status !== 201).map((a) => `${a.status} ${a.text.slice(0, 200)}`),
      [],
    );
    const created = new Set(answers.map((a) => a.body.data.id));
    assert.equal(created.size, 200);
    await settled(applicantId);
    const { sessions, redelivered } = await outcome(applicantId);
    assert.equal(sessions.length, 200);
    assert.ok(sessions.every((s) => created.has(s.id)));
    assert.equal(redelivered, 0, 'a clean run delivers no event twice');
    const spread = stack.connectionsServed('us', 'gateway')!;
    assert.ok(spread.every((n) => n > 0), `connections per gateway replica: ${spread.join(', ')}`);
    process.stderr.write(`[replicas] after 200 creates: connections per gateway replica ${spread.join(', ')}; RSS ${rss()}\n`);
  });

  it("images through three gateways from three evidence replicas, behind evidence's address", async () => {
    const applicantId = await newApplicant('Images');
    const answers = await Promise.all(Array.from({ length: 12 }, () => createSession(applicantId, 0)));
    assert.ok(answers.every((a) => a.status === 201));
    await settled(applicantId);
    // a connection of its own per request, so that each goes through the gateways' proxy afresh
    const images = await Promise.all(
      answers.map((a) => fetch(`${stack.baseUrl('us')}/v1/sessions/${a.body.data.id}/idv-image/front`, { headers: { authorization: `Bearer ${key}`, connection: 'close' } })),
    );
    for (const img of images) {
      assert.equal(img.status, 200);
      assert.equal(img.headers.get('content-type'), 'image/jpeg');
      const bytes = Buffer.from(await img.arrayBuffer());
      assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xd8], 'a JPEG');
    }
    const spread = stack.connectionsServed('us', 'evidence')!;
    assert.ok(spread.filter((n) => n > 0).length >= 2, `connections per evidence replica: ${spread.join(', ')}`);
  });

  it('a rate limit is shared: across three gateways exactly the budget is accepted, the rest is 429', async () => {
    // the budget is a fixed window aligned to the minute: start well inside one
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 15_000) await new Promise((r) => setTimeout(r, left + 100));
    const org = await ops.call(SUBJECTS.accountsOrgCreate, { name: 'replicas-limit' }, op);
    await ops.call(SUBJECTS.accountsOrgSetTier, { org_id: org.id, tier: 'custom', limits: { 'applicants:create': 20 } }, op);
    const limited = (await ops.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes: ['applicants:write'] }, op)).key;
    const before = stack.connectionsServed('us', 'gateway')!;
    // 60 at once, each on a connection of its own: the proxy hands them to the three gateways in turn
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => call('POST', '/v1/applicants', { family_name: `Limited ${i}` }, { connection: 'close' }, limited)),
    );
    const count = (s: number) => answers.filter((a) => a.status === s).length;
    assert.deepEqual({ accepted: count(201), limited: count(429), other: answers.length - count(201) - count(429) }, { accepted: 20, limited: 40, other: 0 });
    const [stored] = await query<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM applicants.applicants WHERE org_id = $1`, [org.id]);
    assert.equal(stored!.n, 20);
    const served = stack.connectionsServed('us', 'gateway')!.map((n, i) => n - before[i]!);
    assert.ok(served.every((n) => n > 0), `the requests went to every gateway replica: ${served.join(', ')}`);
  });

  it('a sessions replica and a gateway replica SIGKILLed under load: nothing committed is lost, nothing is done twice', async () => {
    const applicantId = await newApplicant('Killed');
    const ok: string[] = [];
    const refused: Record<string, number> = {};
    let n = 0;
    let killed = false;
    const kill = async () => {
      killed = true;
      await stack.stopService('us', 'sessions', 'SIGKILL', 1);
      await stack.stopService('us', 'gateway', 'SIGKILL', 2);
    };
    // eight clients creating until 160 sessions answered 201; the kills come once 40 have
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (ok.length < 160) {
          const res = await createSession(applicantId, n++).catch((e: Error) => ({ status: 0, text: e.message, body: null }));
          if (res.status === 201) ok.push(res.body!.data.id);
          else refused[res.status] = (refused[res.status] ?? 0) + 1;
          if (ok.length >= 40 && !killed) await kill();
        }
      }),
    );
    assert.equal(stack.process('us', 'sessions', 1), undefined);
    assert.equal(stack.process('us', 'gateway', 2), undefined);
    await settled(applicantId);
    const { sessions, redelivered } = await outcome(applicantId);
    const stored = new Set(sessions.map((s) => s.id));
    assert.deepEqual(
      ok.filter((id) => !stored.has(id)),
      [],
      'every 201 is stored',
    );
    // a create whose answer was lost with its replica may have committed: it then ran and was delivered like the others
    process.stderr.write(
      `[replicas] kill under load: ${ok.length} created (201), ${sessions.length} stored, refused ${JSON.stringify(refused)}, redelivered ${redelivered}\n`,
    );
  });
});
