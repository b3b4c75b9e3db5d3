/**
 * Postgres faults, on a us stack of this file's own whose database lives on a Postgres server of its own
 * (started here in a temporary directory), so that stopping, pausing and restarting it touches nothing else.
 * Every answer during a fault is 200/201 or the 503 `service_unavailable` envelope, within the timeout; the
 * services' own health checks answer within their bound; and once Postgres is back, everything committed
 * rests, its events are on the stream exactly once and each is delivered to the subscribed receiver.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/transport-node';
import { subjectRoot, SUBJECTS, type Subject } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { freePort, PostgresServer, Stack, type ServiceName } from '@verity/stack';
import { api, isolationPrefix, query, startWebhookReceiver, testTls, waitFor, type ApiResponse, type WebhookReceiver } from '@verity/testing';
import { closeStreams, eventsOnceEach, streamEvents } from './sessions-support.js';
import { errorOf } from './support.js';

const RPC_TIMEOUT_MS = 2000;
/** What "within the timeout" allows beyond it: the rest of one request's path. */
const SLACK_MS = 1000;
const PG_HEALTH_TIMEOUT_MS = 500;
const SERVICES: ServiceName[] = ['accounts', 'applicants', 'screening', 'sessions', 'webhook-delivery', 'gateway'];
const HEALTH: Subject[] = [SUBJECTS.accountsHealth, SUBJECTS.applicantsHealth, SUBJECTS.screeningHealth, SUBJECTS.sessionsHealth, SUBJECTS.webhooksHealth];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const op = { principal: null, requestId: 'req_e2e_pg_faults' };

describe('Postgres faults on a stack and a Postgres of its own', () => {
  let pgs: PostgresServer;
  let dbUrl: string;
  let stack: Stack;
  let nc: NatsConnection;
  /** The stack's NATS as the test-only stream reader. */
  let reader: NatsConnection;
  let ops: RpcClient;
  let root: string;
  let base: string;
  let rx: WebhookReceiver;

  before(async () => {
    pgs = await PostgresServer.temporary(await freePort());
    dbUrl = pgs.url('verity_us');
    const prefix = isolationPrefix('pgfaults');
    root = subjectRoot('us', prefix);
    stack = new Stack({
      regions: ['us'],
      ports: { us: await freePort(), eu: 0 },
      databaseUrl: () => dbUrl,
      isolationPrefix: prefix,
      // a service whose first connection took longer than the short connect timeout below (a busy machine) exits at
      // start, as a pod would, and is started again; a crash during a test changes its pid, which the tests compare
      restartOnCrash: true,
      env: {
        LOG_LEVEL: 'error',
        RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
        PG_CONNECT_TIMEOUT_MS: '1000',
        PG_STATEMENT_TIMEOUT_MS: '1000',
        PG_HEALTH_TIMEOUT_MS: String(PG_HEALTH_TIMEOUT_MS),
      },
      serviceEnv: {
        sessions: { JOBS_POLL_MS: '200', OUTBOX_POLL_MS: '200' },
        'webhook-delivery': {
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s,8s',
          WEBHOOK_POLL_MS: '200',
          NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '',
        },
      },
      output: (r, s, line) => process.stderr.write(`[pg-faults ${r}/${s}] ${line}\n`),
    });
    await stack.migrate('us');
    await stack.startNats();
    for (const s of SERVICES) stack.startService('us', s);
    nc = await stack.connectNats('us', 'operator', 'e2e-pg-faults');
    reader = await stack.connectNats('us', 'test-reader', 'e2e-pg-faults-reader');
    ops = new RpcClient(nc, root, 5000);
    base = stack.baseUrl('us');
    await waitFor(async () => (await healthOf()).every((h) => h === 'ok'), 30_000, 100);
    await waitFor(async () => (await api(base, 'GET', '/health/live').catch(() => null))?.status === 200, 30_000, 100);
    rx = await startWebhookReceiver({ tls: testTls() });
  });

  after(async () => {
    pgs?.resume();
    await rx?.close();
    // the stream goes with the stack's own NATS server
    await nc?.close();
    await reader?.close();
    await stack?.stop();
    await closeStreams();
    await pgs?.destroy();
  });

  /** Each service's own health over NATS: its status, or `none` when it did not answer within 3 s. */
  async function healthOf(): Promise<string[]> {
    return Promise.all(HEALTH.map((s) => ops.call(s, {}, { ...op, timeoutMs: 3000 }).then((h) => (h as { status: string }).status, () => 'none')));
  }

  async function newKey(scopes: string[]): Promise<{ orgId: string; key: string }> {
    const org = await ops.call(SUBJECTS.accountsOrgCreate, { name: 'pg faults', tier: 'enterprise' }, op);
    const k = await ops.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes }, op);
    return { orgId: org.id, key: k.key };
  }

  /** A call timed from send to answer. */
  async function timed<T>(key: string, method: string, p: string, body?: unknown): Promise<ApiResponse<T> & { ms: number }> {
    const t0 = Date.now();
    const res = await api<T>(base, method, p, { key, body });
    return { ...res, ms: Date.now() - t0 };
  }

  function assertUnavailable(res: ApiResponse & { ms: number }, what: string): void {
    assert.equal(res.status, 503, `${what}: ${res.status} ${res.text}`);
    const e = errorOf(res);
    assert.equal(e.code, 'service_unavailable');
    assert.equal(e.type, 'api_error');
    assert.ok(!/postgres|ECONN|terminated|timeout expired|at .*\.js/i.test(res.text), `${what} tells the client nothing of the cause: ${res.text}`);
    assert.ok(res.ms <= RPC_TIMEOUT_MS + SLACK_MS, `${what} answered in ${res.ms} ms`);
  }

  async function storedNames(orgId: string): Promise<string[]> {
    const r = await query<{ family_name: string }>(dbUrl, 'SELECT family_name FROM applicants.applicants WHERE org_id = $1 ORDER BY seq', [orgId]);
    return r.map((x) => x.family_name);
  }

  it('Postgres stopped: a write and a read are 503 service_unavailable within the timeout, health says degraded at once; started again, the same processes serve', async () => {
    const { orgId, key } = await newKey(['applicants:read', 'applicants:write']);
    assert.equal((await timed(key, 'GET', '/v1/applicants')).status, 200);
    const pids = SERVICES.map((s) => stack.process('us', s)!.pid);

    await pgs.stop();
    try {
      assertUnavailable(await timed(key, 'POST', '/v1/applicants', { family_name: 'Nobody home' }), 'POST /v1/applicants');
      assertUnavailable(await timed(key, 'GET', '/v1/applicants'), 'GET /v1/applicants');
      const t0 = Date.now();
      assert.deepEqual(await healthOf(), HEALTH.map(() => 'degraded'));
      assert.ok(Date.now() - t0 <= PG_HEALTH_TIMEOUT_MS + SLACK_MS, `health answered in ${Date.now() - t0} ms`);
    } finally {
      await pgs.start();
    }

    const created = await waitFor(async () => {
      const r = await timed<{ data: { id: string } }>(key, 'POST', '/v1/applicants', { family_name: 'Back again' });
      return r.status === 201 ? r : undefined;
    }, 15_000, 200);
    assert.equal(created.status, 201);
    assert.deepEqual(await storedNames(orgId), ['Back again']);
    await waitFor(async () => (await healthOf()).every((h) => h === 'ok'), 10_000, 200);
    assert.deepEqual(
      SERVICES.map((s) => stack.process('us', s)?.pid),
      pids,
      'no service died or was restarted',
    );
  });

  it('Postgres paused (SIGSTOP): 503 within the timeout, health answers degraded within its bound; resumed, the late write is not committed and service resumes', async () => {
    const { orgId, key } = await newKey(['applicants:read', 'applicants:write']);
    assert.equal((await timed(key, 'GET', '/v1/applicants')).status, 200);

    pgs.pause();
    let health: string[];
    let healthMs: number;
    try {
      assertUnavailable(await timed(key, 'POST', '/v1/applicants', { family_name: 'Too late' }), 'POST /v1/applicants');
      const t0 = Date.now();
      health = await healthOf();
      healthMs = Date.now() - t0;
    } finally {
      pgs.resume();
    }
    assert.deepEqual(health, HEALTH.map(() => 'degraded'), 'every service answered its health check');
    assert.ok(healthMs <= PG_HEALTH_TIMEOUT_MS + SLACK_MS, `health answered in ${healthMs} ms`);

    await waitFor(async () => (await timed(key, 'POST', '/v1/applicants', { family_name: 'On time' })).status === 201, 15_000, 200);
    const names = await storedNames(orgId);
    assert.ok(names.includes('On time'));
    assert.ok(!names.includes('Too late'), 'the write answered 503 left nothing behind');
  });

  it('restarted, paused and crashed under load (mid-request, mid-relay, mid-fan-out): only 201 or 503, every committed session rests, its event is on the stream exactly once and delivered', async () => {
    const { orgId, key } = await newKey(['applicants:write', 'workflows:write', 'sessions:read', 'sessions:write']);
    await ops.call(
      SUBJECTS.webhookSubscriptionCreate,
      { org_id: orgId, mode: 'test', url: `${rx.url}/pg-faults`, event_types: ['kyc.session.completed', 'kyc.session.manual_review_requested'] },
      op,
    );
    const applicant = await timed<{ data: { id: string } }>(key, 'POST', '/v1/applicants', { family_name: 'Load', email: 'load@example.com' });
    const template = await timed<{ data: { id: string } }>(key, 'POST', '/v1/workflow-templates', { name: 'pg faults', checks: ['watchlist', 'credit_history'] });
    assert.equal(template.status, 201, template.text);

    let creating = true;
    const answers: Record<number, number> = {};
    const created: string[] = [];
    const refusals: string[] = [];
    let slowest = 0;
    let n = 0;
    const producers = Array.from({ length: 3 }, async () => {
      while (creating) {
        const res = await timed<{ data: { id: string } }>(key, 'POST', '/v1/sessions', {
          applicant_id: applicant.body.data.id,
          workflow_template_id: template.body.data.id,
          expected_outcome: n++ % 2 === 0 ? 'pass' : 'review',
        });
        answers[res.status] = (answers[res.status] ?? 0) + 1;
        slowest = Math.max(slowest, res.ms);
        if (res.status === 201) {
          created.push(res.body.data.id);
          continue;
        }
        if (res.status === 503) {
          try {
            assertUnavailable(res, 'POST /v1/sessions');
          } catch (e) {
            refusals.push((e as Error).message);
          }
        }
        await sleep(50);
      }
    });

    await sleep(1500);
    await pgs.stop('fast'); // a restart: every session is ended mid-statement
    await sleep(300);
    await pgs.start();
    await sleep(1500);
    pgs.pause();
    await sleep(2500);
    pgs.resume();
    await sleep(1500);
    await pgs.stop('immediate'); // a crash
    await sleep(300);
    await pgs.start();
    await sleep(1500);
    creating = false;
    await Promise.all(producers);

    assert.deepEqual(
      Object.keys(answers).filter((s) => s !== '201' && s !== '503'),
      [],
      `every answer is 201 or 503: ${JSON.stringify(answers)}`,
    );
    assert.deepEqual(refusals.slice(0, 3), [], 'every 503 is the envelope, within the timeout');
    assert.ok(created.length >= 10, `only ${created.length} sessions were created: ${JSON.stringify(answers)}`);
    assert.ok(slowest <= RPC_TIMEOUT_MS + SLACK_MS, `the slowest answer took ${slowest} ms`);

    // every committed session rests, and nothing is left to do or to relay
    const settled = await waitFor(async () => {
      const [r] = await query<{ open: number; jobs: number; unrelayed: number }>(
        dbUrl,
        `SELECT (SELECT count(*)::int FROM sessions.sessions WHERE org_id = $1 AND status IN ('pending', 'in_progress')) AS open,
                (SELECT count(*)::int FROM sessions.jobs) AS jobs,
                (SELECT count(*)::int FROM sessions.outbox WHERE relayed_at IS NULL) AS unrelayed`,
        [orgId],
      ).catch(() => [undefined]);
      return r && r.open === 0 && r.jobs === 0 && r.unrelayed === 0 ? r : undefined;
    }, 30_000, 200);
    assert.deepEqual(settled, { open: 0, jobs: 0, unrelayed: 0 });

    const sessions = await query<{ id: string; status: string }>(dbUrl, `SELECT id, status FROM sessions.sessions WHERE org_id = $1`, [orgId]);
    const ids = new Set(sessions.map((s) => s.id));
    for (const id of created) assert.ok(ids.has(id), `${id} answered 201 but is not stored`);

    // exactly once on the stream: every committed event once by its id, nothing else
    const outbox = await query<{ event_id: string; session_id: string }>(dbUrl, `SELECT o.event_id, o.session_id FROM sessions.outbox o`);
    const bySession = eventsOnceEach(await streamEvents('us', () => true, root, reader), outbox);
    for (const s of sessions) assert.equal(bySession.get(s.id)?.length, 1, `session ${s.id} (${s.status}) has one event`);

    // fan-out: each event made one delivery, and each delivery reached the receiver
    const deliveries = await waitFor(async () => {
      const rows = await query<{ id: string; event_id: string; status: string }>(dbUrl, `SELECT id, event_id, status FROM webhook_delivery.deliveries WHERE org_id = $1`, [orgId]).catch(() => []);
      return rows.length === outbox.length && rows.every((r) => r.status === 'succeeded') ? rows : undefined;
    }, 30_000, 200);
    assert.deepEqual(new Set(deliveries.map((d) => d.event_id)), new Set(outbox.map((o) => o.event_id)));
    for (const d of deliveries) assert.ok(rx.byId(d.event_id).length >= 1, `event ${d.event_id} reached the receiver`);
    assert.deepEqual(await healthOf(), HEALTH.map(() => 'ok'));
  });
});
