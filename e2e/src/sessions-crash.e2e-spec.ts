import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import type { Stack } from '@verity/stack';
import { api, query, waitFor } from '@verity/testing';
import { startOwnStack, type OwnStack } from './own-stack.js';
import { eventsOnceEach, streamEvents } from './sessions-support.js';


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const OUTCOMES = ['pass', 'review', 'fail', 'doc_quality'] as const;
const EXPECTED_EVENT: Record<string, string> = { completed: 'kyc.session.completed', manual_review: 'kyc.session.manual_review_requested' };

describe('sessions crash safety', () => {
  let own: OwnStack;
  let stack: Stack;
  let db: OwnStack['db'];
  let nc: OwnStack['nc'];
  let reader: OwnStack['reader'];
  let root: string;

  before(async () => {
    own = await startOwnStack('crash', {
      env: { LOG_LEVEL: 'error', RPC_TIMEOUT_MS: '2000' },
      // what the crash never reaches is not started
      replicas: { 'id-scan': 0, 'webhook-delivery': 0 },
      serviceEnv: { sessions: { JOBS_POLL_MS: '200', OUTBOX_POLL_MS: '200' } },
      output: null,
    });
    ({ stack, db, nc, reader, root } = own);
  });

  after(async () => {
    await own?.close();
  });

  it('SIGKILL five times under load: every committed session rests and its events are on the stream exactly once', async () => {
    const ops = new RpcClient(nc, root, 5000);
    const op = { principal: null, requestId: 'req_e2e_crash' };
    const org = await ops.call(SUBJECTS.accountsOrgCreate, { name: 'crash', tier: 'enterprise' }, op);
    const { key } = await ops.call(
      SUBJECTS.accountsKeyCreate,
      { org_id: org.id, mode: 'test', type: 'sk', scopes: ['applicants:write', 'workflows:write', 'sessions:read', 'sessions:write'] },
      op,
    );
    const base = stack.baseUrl('us');
    const call = <T>(method: string, p: string, body?: unknown) => api<T>(base, method, p, { key, body });
    const applicant = await call<{ data: { id: string } }>('POST', '/v1/applicants', { family_name: 'Crash', email: 'crash@example.com' });
    const template = await call<{ data: { id: string } }>('POST', '/v1/workflow-templates', { name: 'crash', checks: ['document', 'watchlist', 'credit_history'] });
    assert.equal(template.status, 201, template.text);

    // a steady stream of creates, three in flight, until the kills are done
    let creating = true;
    const answers: Record<number, number> = {};
    const created: string[] = [];
    let n = 0;
    const producers = Array.from({ length: 3 }, async () => {
      while (creating) {
        const res = await call<{ data: { id: string } }>('POST', '/v1/sessions', {
          applicant_id: applicant.body.data.id,
          workflow_template_id: template.body.data.id,
          expected_outcome: OUTCOMES[n++ % OUTCOMES.length],
        }).catch(() => ({ status: 0, body: { data: { id: '' } } }));
        answers[res.status] = (answers[res.status] ?? 0) + 1;
        if (res.status === 201) created.push(res.body.data.id);
        else await sleep(50);
      }
    });

    for (let i = 0; i < 5; i++) {
      await sleep(1200);
      await stack.stopService('us', 'sessions', 'SIGKILL');
      await sleep(200);
      stack.startService('us', 'sessions');
      await stack.waitReady('us', 60_000);
    }
    await sleep(1000);
    creating = false;
    await Promise.all(producers);
    assert.ok(created.length >= 20, `only ${created.length} sessions were created: ${JSON.stringify(answers)}`);

    // every committed session rests, and nothing is left to do or to relay
    const settled = await waitFor(async () => {
      const [r] = await query<{ open: number; jobs: number; unrelayed: number }>(
        db.url,
        `SELECT (SELECT count(*)::int FROM sessions.sessions WHERE status IN ('pending', 'in_progress')) AS open,
                (SELECT count(*)::int FROM sessions.jobs) AS jobs,
                (SELECT count(*)::int FROM sessions.outbox WHERE relayed_at IS NULL) AS unrelayed`,
      );
      return r!.open === 0 && r!.jobs === 0 && r!.unrelayed === 0 ? r : undefined;
    }, 20_000);
    assert.deepEqual(settled, { open: 0, jobs: 0, unrelayed: 0 });

    const sessions = await query<{ id: string; status: string }>(db.url, `SELECT id, status FROM sessions.sessions`);
    const outbox = await query<{ event_id: string; session_id: string; type: string }>(db.url, `SELECT event_id, session_id, type FROM sessions.outbox`);
    // every 201 was committed
    const ids = new Set(sessions.map((s) => s.id));
    for (const id of created) assert.ok(ids.has(id), `${id} answered 201 but is not stored`);

    const onStream = await streamEvents('us', () => true, root, reader);
    // exactly once by event id, and nothing on the stream that was not committed
    const bySession = eventsOnceEach(onStream, outbox);
    for (const s of sessions) {
      const events = bySession.get(s.id) ?? [];
      assert.deepEqual(
        events.map((e) => [e.type, e.data.status]),
        [[EXPECTED_EVENT[s.status], s.status]],
        `session ${s.id} (${s.status})`,
      );
    }
    // each run happened once
    const runs = await query<{ session_id: string; n: number }>(db.url, `SELECT session_id, count(*)::int AS n FROM sessions.runs GROUP BY session_id HAVING count(*) <> 1`);
    assert.deepEqual(runs, []);
  });
});
