/**
 * Live runs survive crashes (docs/capture.md): live captures are submitted over HTTP to a stack of
 * this file's own, then the sessions service (which runs the `live_run` jobs) and, in a second scenario, the
 * evidence service (which reads them) is SIGKILLed while runs are in flight and started again. Every submitted
 * run must rest exactly once: one run record, one event on the stream, its evidence stored once.
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SUBJECTS } from '@verity/contracts';
import type { RpcClient } from '@verity/platform';
import type { ServiceName, Stack } from '@verity/stack';
import { api, query, waitFor } from '@verity/testing';
import { captureClientAt, passportOf } from './capture-support.js';
import { startOwnStack, type OwnStack } from './own-stack.js';
import { eventsOnceEach, streamEvents } from './sessions-support.js';

/** Live captures submitted per scenario. */
const N = 5;
const EXPECTED_EVENT: Record<string, string> = { completed: 'kyc.session.completed', manual_review: 'kyc.session.manual_review_requested' };
const op = { principal: null, requestId: 'req_e2e_capture_crash' };

type Photos = Awaited<ReturnType<typeof passportOf>>;

describe('live runs crash safety', () => {
  let own: OwnStack;
  let stack: Stack;
  let db: OwnStack['db'];
  let ops: RpcClient;
  let root: string;
  let reader: OwnStack['reader'];
  let photos: Photos[];
  /** When a service was last started again (ms since the epoch). */
  let lastStart = 0;
  /** The sessions service's log lines about live-run jobs (failed and retried, given up). */
  const jobLog: string[] = [];

  before(async () => {
    // the photos are rendered while the stack starts
    const rendered = Promise.all(Array.from({ length: N }, (_, i) => passportOf(i + 1))).then((p) => (photos = p));
    own = await startOwnStack(
      'capcrash',
      {
        // the reader's engines loaded before the first run, as in production: the runs are timed against it
        env: { LOG_LEVEL: 'error', RPC_TIMEOUT_MS: '2000', RATE_LIMIT_IP_PER_MINUTE: '100000', READING_WARM: 'true' },
        // what live runs never reach is not started
        replicas: { 'id-scan': 0, 'webhook-delivery': 0 },
        // sessions at warn: its jobs' retries are counted below
        // a run waits 25 s (not 60) for a reader that died mid-read before its attempt fails and is retried; on a
        // busy machine a run queued behind another for the one reader thread can take 15 s without anything wrong
        serviceEnv: { sessions: { LOG_LEVEL: 'warn', JOBS_POLL_MS: '200', OUTBOX_POLL_MS: '200', LIVE_READ_TIMEOUT: '25s', CAPTURE_SECRET_KEY: randomBytes(32).toString('base64') } },
        output: (_r, service, line) => {
          if (service === 'sessions' && line.includes('"kind":"live_run"')) jobLog.push(line);
        },
      },
      rendered,
    );
    ({ stack, db, ops, root, reader } = own);
  });

  after(async () => {
    await own?.close();
  });

  /** A live organization with `N` captures uploaded (a photographed passport and its holder's selfie each), then all submitted at once. */
  async function submitCaptures(name: string, n = N): Promise<{ orgId: string; ids: string[]; submittedAt: number; secrets: string[] }> {
    const org = await ops.call(SUBJECTS.accountsOrgCreate, { name, tier: 'enterprise' }, op);
    const { key } = await ops.call(
      SUBJECTS.accountsKeyCreate,
      { org_id: org.id, mode: 'live', type: 'sk', scopes: ['applicants:write', 'workflows:write', 'sessions:read', 'sessions:write'] },
      op,
    );
    // live creates are billed (docs/sessions.md, "Billing") and a new wallet holds 0
    await ops.call(SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: 1_000_000 }, op);
    const base = stack.baseUrl('us');
    const call = <T>(method: string, p: string, body?: unknown) => api<T>(base, method, p, { key, body });
    // no email: no invitation jobs beside the runs
    const applicant = await call<{ data: { id: string } }>('POST', '/v1/applicants', { family_name: 'Crash', given_names: ['Live'] });
    const template = await call<{ data: { id: string } }>('POST', '/v1/workflow-templates', { name: 'crash', checks: ['document', 'face_match', 'liveness'] });
    assert.equal(template.status, 201, template.text);
    const create = () => call<{ data: { id: string; client_secret: string } }>('POST', '/v1/sessions', { applicant_id: applicant.body.data.id, workflow_template_id: template.body.data.id });
    const captures = [];
    for (const p of photos.slice(0, n)) {
      const res = await create();
      assert.equal(res.status, 201, res.text);
      const capture = captureClientAt(base, res.body.data.client_secret);
      for (const [artifact, bytes] of [['front', p.photos.front], ['selfie', p.selfie]] as const) {
        const put = await capture.put(artifact, bytes);
        assert.equal(put.status, 200, put.text);
      }
      captures.push({ id: res.body.data.id, secret: res.body.data.client_secret, capture });
    }
    const submittedAt = Date.now();
    for (const r of await Promise.all(captures.map((c) => c.capture.submit()))) assert.equal(r.status, 202, r.text);
    return { orgId: org.id, ids: captures.map((c) => c.id), submittedAt, secrets: captures.map((c) => c.secret) };
  }

  /**
   * Live runs in the middle of their read now: `live_run` jobs claimed at least 300 ms ago whose lease is still
   * held, claimed since `since` (ms since the epoch; a lease a killed process left is not a run under way). A run
   * holds no transaction while it reads (docs/architecture.md, "A live run").
   */
  async function reading(since: number): Promise<number> {
    const [r] = await query<{ n: number }>(
      db.url,
      `SELECT count(*)::int AS n FROM sessions.jobs
        WHERE kind = 'live_run' AND lease IS NOT NULL AND run_after > now() AND leased_at > to_timestamp($1::float8 / 1000)
          AND clock_timestamp() - leased_at > interval '300 milliseconds'`,
      [since],
    );
    return r!.n;
  }

  /** SIGKILLs `service` while a run is in the middle of its read and starts it again; false when no run was left to interrupt. */
  async function killDuringRun(t: TestContext, service: ServiceName, ids: string[], started: number): Promise<boolean> {
    let n = 0;
    const since = lastStart;
    const running = await waitFor(async () => ((n = await reading(since)) > 0 ? true : (await open(ids)) === 0 ? 'none' : undefined), 20_000, 20);
    if (running === 'none') return false;
    await stack.stopService('us', service, 'SIGKILL');
    const killedAt = Date.now();
    stack.startService('us', service);
    lastStart = Date.now();
    await stack.waitReady('us', 60_000);
    t.diagnostic(`${service} SIGKILLed ${((killedAt - started) / 1000).toFixed(1)} s after submit with ${n} run(s) reading; ready again after ${((Date.now() - killedAt) / 1000).toFixed(1)} s`);
    return true;
  }

  /** Sessions of `ids` not yet at rest. */
  async function open(ids: string[]): Promise<number> {
    const [r] = await query<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM sessions.sessions WHERE id = ANY($1) AND status IN ('pending', 'in_progress')`, [ids]);
    return r!.n;
  }

  /** Waits until every session rests with nothing left to do or relay, then checks that each rested exactly once. */
  async function assertExactlyOnce(t: TestContext, ids: string[], submittedAt: number, ms: number): Promise<void> {
    const settled = await waitFor(async () => {
      const [r] = await query<{ open: number; jobs: number; unrelayed: number }>(
        db.url,
        `SELECT (SELECT count(*)::int FROM sessions.sessions WHERE id = ANY($1) AND status IN ('pending', 'in_progress')) AS open,
                (SELECT count(*)::int FROM sessions.jobs WHERE session_id = ANY($1)) AS jobs,
                (SELECT count(*)::int FROM sessions.outbox WHERE session_id = ANY($1) AND relayed_at IS NULL) AS unrelayed`,
        [ids],
      );
      return r!.open === 0 && r!.jobs === 0 && r!.unrelayed === 0 ? r : undefined;
    }, ms, 100);
    assert.deepEqual(settled, { open: 0, jobs: 0, unrelayed: 0 });

    const sessions = await query<{ id: string; status: string; outcome: string | null; reason: string | null; rested_ms: number }>(
      db.url,
      `SELECT id, status, outcome, platform_metadata->>'erroredReason' AS reason,
              (extract(epoch FROM updated_at) * 1000 - $2::float8)::int AS rested_ms
         FROM sessions.sessions WHERE id = ANY($1)`,
      [ids, submittedAt],
    );
    assert.equal(sessions.length, ids.length);
    const seen = new Map<string, number>();
    for (const s of sessions) seen.set(`${s.status}/${s.outcome ?? '-'}`, (seen.get(`${s.status}/${s.outcome ?? '-'}`) ?? 0) + 1);
    const rested = sessions.map((s) => s.rested_ms).sort((a, b) => a - b);
    t.diagnostic(`resting: ${[...seen].map(([k, v]) => `${k} ×${v}`).join(', ')}; rested ${(rested[0]! / 1000).toFixed(1)}–${(rested.at(-1)! / 1000).toFixed(1)} s after submit`);
    for (const s of sessions) {
      // errored only for a run that really failed three times: that is the only way a live run reaches it
      assert.ok(['completed', 'manual_review'].includes(s.status), `session ${s.id} rested ${s.status}${s.reason ? ` (${s.reason})` : ''}`);
    }

    // one run record per session
    const runs = await query<{ session_id: string; n: number }>(db.url, `SELECT session_id, count(*)::int AS n FROM sessions.runs WHERE session_id = ANY($1) GROUP BY session_id`, [ids]);
    assert.deepEqual(
      Object.fromEntries(ids.map((id) => [id, runs.find((r) => r.session_id === id)?.n ?? 0])),
      Object.fromEntries(ids.map((id) => [id, 1])),
    );

    // exactly one event per session on the stream, the one its resting status delivers, each outbox row once by id
    const mine = new Set(ids);
    const onStream = await streamEvents('us', (e) => mine.has(e.data.sessionId), root, reader);
    const outbox = await query<{ event_id: string }>(db.url, `SELECT event_id FROM sessions.outbox WHERE session_id = ANY($1)`, [ids]);
    const bySession = eventsOnceEach(onStream, outbox);
    for (const s of sessions) {
      assert.deepEqual(
        (bySession.get(s.id) ?? []).map((e) => [e.type, e.data.status, e.data.outcome]),
        [[EXPECTED_EVENT[s.status], s.status, s.outcome]],
        `session ${s.id} (${s.status})`,
      );
    }

    // evidence stored once: one capture, one row per artifact (front, selfie, portrait; no back was uploaded), each
    // row's bytes present and intact, and no blob left over by an interrupted run
    const artifacts = await query<{ session_id: string; artifacts: string[] }>(
      db.url,
      `SELECT c.session_id, array_agg(a.artifact ORDER BY a.artifact) AS artifacts
         FROM evidence.captures c JOIN evidence.artifacts a ON a.session_id = c.session_id
        WHERE c.session_id = ANY($1) GROUP BY c.session_id`,
      [ids],
    );
    assert.deepEqual(
      Object.fromEntries(ids.map((id) => [id, artifacts.find((a) => a.session_id === id)?.artifacts ?? []])),
      Object.fromEntries(ids.map((id) => [id, ['front', 'portrait', 'selfie']])),
    );
    const [bytes] = await query<{ missing: number; corrupt: number }>(
      db.url,
      `SELECT count(*) FILTER (WHERE b.id IS NULL)::int AS missing,
              count(*) FILTER (WHERE b.id IS NOT NULL AND (encode(sha256(b.bytes), 'hex') <> a.sha256 OR b.byte_size <> a.byte_size))::int AS corrupt
         FROM evidence.artifacts a LEFT JOIN evidence.blobs b ON b.id = a.storage_key WHERE a.session_id = ANY($1)`,
      [ids],
    );
    assert.deepEqual(bytes, { missing: 0, corrupt: 0 });
  }

  /** What the sessions service logged about live runs since `from` (an index into the log): retries and their reasons. */
  function retries(from: number): string {
    const lines = jobLog.slice(from).map((l) => JSON.parse(l) as { msg: string; err?: { code?: string }; attempt?: number });
    const count = new Map<string, number>();
    for (const l of lines) {
      const k = `${l.msg} (${l.err?.code ?? '?'}${l.attempt ? `, attempt ${l.attempt}` : ''})`;
      count.set(k, (count.get(k) ?? 0) + 1);
    }
    return count.size ? [...count].map(([k, v]) => `${v}× ${k}`).join('; ') : 'none';
  }

  /** Blobs that no upload and no artifact points at: bytes an interrupted run stored and never recorded. */
  async function strayBlobs(): Promise<number> {
    const [r] = await query<{ n: number }>(
      db.url,
      `SELECT count(*)::int AS n FROM evidence.blobs b
        WHERE NOT EXISTS (SELECT 1 FROM evidence.artifacts a WHERE a.storage_key = b.id)
          AND NOT EXISTS (SELECT 1 FROM evidence.uploads u WHERE u.storage_key = b.id)`,
    );
    return r!.n;
  }

  it('SIGKILL sessions twice during live runs: every run rests once, one run record, one event, its evidence once', async (t) => {
    const from = jobLog.length;
    const { ids, submittedAt } = await submitCaptures('crash sessions');
    let kills = 0;
    for (let i = 0; i < 2; i++) if (await killDuringRun(t, 'sessions', ids, submittedAt)) kills++;
    assert.ok(kills >= 1, 'no live run was in flight to interrupt');
    await assertExactlyOnce(t, ids, submittedAt, 120_000);
    t.diagnostic(`live-run jobs logged: ${retries(from)}; stray blobs: ${await strayBlobs()}`);
  });

  it('SIGKILL evidence during live runs: every run rests once, one run record, one event, its evidence once', async (t) => {
    const from = jobLog.length;
    const { ids, submittedAt } = await submitCaptures('crash evidence');
    // The runs in flight when evidence dies get no reply and no refusal: each waits for its call's timeout
    // (LIVE_READ_TIMEOUT, 25 s here) holding one of the process's two job slots, so every other run waits too;
    // then they are retried 2 s later against the restarted evidence. Hence the 120 s bound, for a busy machine.
    assert.ok(await killDuringRun(t, 'evidence', ids, submittedAt), 'no live run was in flight to interrupt');
    await assertExactlyOnce(t, ids, submittedAt, 120_000);
    t.diagnostic(`live-run jobs logged: ${retries(from)}; stray blobs: ${await strayBlobs()}`);
  });

  // last: it leaves evidence stopped until it starts it again
  it('a run that fails three times (the reader gone) ends errored with metadata.erroredReason, no event, the link dead', async () => {
    const { ids, secrets } = await submitCaptures('reader gone', 1);
    await stack.stopService('us', 'evidence', 'SIGKILL');
    try {
      // attempt 1 waits for its reply (LIVE_READ_TIMEOUT, 25 s) or finds nobody; attempts 2 and 3 follow 2 s and 10 s later
      const [s] = await waitFor(async () => {
        const r = await query<{ status: string; outcome: string | null; reason: string | null }>(
          db.url,
          `SELECT status, outcome, platform_metadata->>'erroredReason' AS reason FROM sessions.sessions WHERE id = $1 AND status NOT IN ('pending', 'in_progress')`,
          [ids[0]],
        );
        return r.length ? r : undefined;
      }, 120_000, 200);
      assert.deepEqual(s, { status: 'errored', outcome: null, reason: 'The verification stalled: a service it depends on did not answer.' });
      const [left] = await query<{ jobs: number; events: number }>(
        db.url,
        `SELECT (SELECT count(*)::int FROM sessions.jobs WHERE session_id = $1) AS jobs, (SELECT count(*)::int FROM sessions.outbox WHERE session_id = $1) AS events`,
        [ids[0]],
      );
      assert.deepEqual(left, { jobs: 0, events: 0 }, 'errored has no event (spec: Events)');
      const link = await captureClientAt(stack.baseUrl('us'), secrets[0]!).get();
      assert.equal(link.status, 409, link.text);
    } finally {
      stack.startService('us', 'evidence');
      await stack.waitReady('us', 60_000);
    }
  });
});
