/**
 * Invitations across a crash, on a us stack of its own with a recording mail server: the sessions process is
 * killed (SIGKILL) at the moment the mail server has an invitation and before it answers. Every committed
 * invitation must arrive as exactly one message (one Message-ID), and be recorded as sent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/transport-node';
import { subjectRoot, SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { freePort, Stack, type ServiceName } from '@verity/stack';
import { api, cloneTestDatabase, isolationPrefix, query, startSmtpServer, waitFor, type SmtpServer } from '@verity/testing';

const SERVICES: ServiceName[] = ['accounts', 'applicants', 'screening', 'sessions', 'gateway'];
const op = { principal: null, requestId: 'req_e2e_invite_crash' };

describe('invitations across a crash', () => {
  let stack: Stack;
  let db: Awaited<ReturnType<typeof cloneTestDatabase>>;
  let nc: NatsConnection;
  let ops: RpcClient;
  let root: string;
  let smtp: SmtpServer;

  before(async () => {
    smtp = await startSmtpServer();
    const prefix = isolationPrefix('invcrash');
    root = subjectRoot('us', prefix);
    db = await cloneTestDatabase('invite_crash');
    stack = new Stack({
      // its database is a clone of the migrated template
      migrate: false,
      regions: ['us'],
      ports: { us: await freePort(), eu: 0 },
      databaseUrl: () => db.url,
      isolationPrefix: prefix,
      env: { LOG_LEVEL: 'error', RPC_TIMEOUT_MS: '3000' },
      serviceEnv: { sessions: { JOBS_POLL_MS: '200', SMTP_URL: smtp.url, SMTP_FROM: 'Verity <no-reply@verify.example>', SMTP_TIMEOUT: '1s' } },
      output: null,
    });
    await stack.startNats();
    for (const s of SERVICES) stack.startService('us', s);
    nc = await stack.connectNats('us', 'operator', 'e2e-invite-crash');
    ops = new RpcClient(nc, root, 5000);
    // every service it started answers, not only sessions: the test creates an applicant and a workflow first
    for (const health of [SUBJECTS.accountsHealth, SUBJECTS.applicantsHealth, SUBJECTS.screeningHealth, SUBJECTS.sessionsHealth]) {
      await waitFor(async () => (await ops.call(health, {}, op).catch(() => null))?.status === 'ok', 30_000, 100);
    }
    await waitFor(async () => (await api(stack.baseUrl('us'), 'GET', '/health/live').catch(() => null))?.status === 200, 30_000, 100);
  });

  after(async () => {
    // the stream goes with the stack's own NATS server
    await nc?.close();
    await stack?.stop();
    await smtp?.close();
    await db?.drop();
  });

  async function sessionsAnswers(): Promise<boolean> {
    return (await ops.call(SUBJECTS.sessionsHealth, {}, { ...op, timeoutMs: 1000 }).catch(() => null))?.status === 'ok';
  }

  it('SIGKILL while the mail server holds an invitation: every committed invitation arrives as one message and is recorded sent', async () => {
    const org = await ops.call(SUBJECTS.accountsOrgCreate, { name: 'invite crash', tier: 'enterprise' }, op);
    await ops.call(SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: 1_000_000 }, op);
    const { key } = await ops.call(
      SUBJECTS.accountsKeyCreate,
      { org_id: org.id, mode: 'live', type: 'sk', scopes: ['applicants:write', 'workflows:write', 'sessions:read', 'sessions:write'] },
      op,
    );
    const call = <T>(method: string, p: string, body?: unknown) => api<T>(stack.baseUrl('us'), method, p, { key, body });
    const applicant = await call<{ data: { id: string } }>('POST', '/v1/applicants', { family_name: 'Crash', email: 'applicant@example.org' });
    const template = await call<{ data: { id: string } }>('POST', '/v1/workflow-templates', { name: 'invite crash', checks: ['document'] });
    assert.equal(template.status, 201, template.text);

    // the first and third invitations kill the sender while the mail server holds them, before its answer
    let received = 0;
    smtp.beforeAccept = async () => {
      received++;
      if (received !== 1 && received !== 3) return;
      await stack.stopService('us', 'sessions', 'SIGKILL');
      stack.startService('us', 'sessions');
    };

    const created: string[] = [];
    for (let i = 0; i < 4; i++) {
      await waitFor(sessionsAnswers, 30_000, 100);
      const res = await call<{ data: { id: string } }>('POST', '/v1/sessions', { applicant_id: applicant.body.data.id, workflow_template_id: template.body.data.id });
      assert.equal(res.status, 201, res.text);
      created.push(res.body.data.id);
      // one invitation at a time, so that each crash hits one known invitation
      await waitFor(async () => {
        const [r] = await query<{ status: string }>(db.url, `SELECT status FROM sessions.email_log WHERE session_id = $1`, [res.body.data.id]);
        return r?.status === 'sent';
      }, 30_000, 100);
    }

    const emails = await query<{ id: string; session_id: string; status: string }>(db.url, `SELECT id, session_id, status FROM sessions.email_log WHERE org_id = $1`, [org.id]);
    assert.deepEqual(emails.map((e) => e.session_id).sort(), [...created].sort());
    assert.ok(emails.every((e) => e.status === 'sent'));
    assert.deepEqual(await query(db.url, `SELECT id FROM sessions.jobs`), [], 'nothing is left to send');
    // exactly one message per committed invitation: copies sent again after a crash are the same message
    const expected = emails.map((e) => `<${e.id}@verify.example>`).sort();
    assert.deepEqual([...new Set(smtp.messages.map((m) => m.messageId))].sort(), expected);
    assert.ok(smtp.messages.length >= 6, `the two invitations of the crashes were sent again: ${smtp.messages.length} messages`);
  });
});
