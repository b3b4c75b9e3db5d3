/**
 * Invitations of live sessions through a real SMTP exchange (a recording mail server on loopback): sent after
 * the session commits, once per committed invitation however the database or the mail server's answer fails
 * on the way, and without the applicant's address in the service's log.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { eventStreamName, subjectRoot, SUBJECTS, type Applicant, type Principal, type TemplateVersion } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { newId } from '@verity/keys';
import { connectNats, createLogger, createServiceApp, loadConfig, RpcClient, RpcServer, serviceEnv } from '@verity/platform';
import { cloneTestDatabase, isolationPrefix, query, startSmtpServer, testPrincipal, waitFor, type SmtpServer, TEST_SERVER_ENV, testPrincipalVerifier, testSigner } from '@verity/testing';
import { SessionsModule } from '../src/app.module.js';
import { SESSIONS_SERVICE, sessionsEnv } from '../src/config.js';
import { acceptEveryDebit, NO_DOCUMENT_POLICY } from './peers.js';

const ADDRESS = 'marguerite.yourcenar@example.org';
const NAME = 'Yourcenar';

let db: Awaited<ReturnType<typeof cloneTestDatabase>>;
let app: Awaited<ReturnType<typeof createServiceApp>> | undefined;
let nc: NatsConnection;
let rpc: RpcClient;
let root: string;
let smtp: SmtpServer;
/** Every line the service logged, as written. */
const logged: string[] = [];
const applicants = new Map<string, Applicant>();
const templates = new Map<string, TemplateVersion>();

before(async () => {
  db = await cloneTestDatabase('invitations');
  smtp = await startSmtpServer();
  const prefix = isolationPrefix('invitations');
  root = subjectRoot('us', prefix);
  const cfg = loadConfig({ ...serviceEnv, ...sessionsEnv }, {
    ...TEST_SERVER_ENV,
    REGION: 'us',
    DATABASE_URL: db.url,
    NATS_SUBJECT_PREFIX: prefix,
    JOBS_POLL_MS: '100',
    OUTBOX_POLL_MS: '200',
    SMTP_URL: smtp.url,
    SMTP_FROM: 'Verity <no-reply@verify.example>',
    SMTP_TIMEOUT: '1s',
    CAPTURE_SECRET_KEY: 'invitations-int-test-capture-key-0123456789',
  });
  nc = await connectNats(cfg.NATS_URL, 'invitations-int-test');
  // generous: three creates at once on a busy machine; no test here waits for a timeout
  rpc = new RpcClient(nc, root, 15_000, { signer: testSigner() });
  const peers = new RpcServer(nc, root, 'peers', createLogger('invitations-peers', 'us', 'silent'), { principals: testPrincipalVerifier() });
  peers.handle(SUBJECTS.applicantsGet, async (p) => applicants.get(p.id) ?? Promise.reject(DomainError.notFound()));
  peers.handle(SUBJECTS.templatesVersion, async (p) => templates.get(p.id) ?? Promise.reject(DomainError.notFound()));
  acceptEveryDebit(peers);
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logged.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  app = await createServiceApp(SESSIONS_SERVICE, SessionsModule, cfg, createLogger('sessions', 'us', 'info', sink));
});

after(async () => {
  await app?.close();
  await smtp?.close();
  if (nc) {
    await (await jetstreamManager(nc)).streams.delete(eventStreamName(root)).catch(() => undefined);
    await nc.close();
  }
  await db?.drop();
});

beforeEach(() => {
  smtp.rejectRecipients = false;
  smtp.beforeAccept = null;
});

/** A live organization's principal, applicant (with ADDRESS) and template. */
function fixture(): { p: Principal; applicantId: string; templateId: string } {
  const p = testPrincipal({ mode: 'live', scopes: ['sessions:read', 'sessions:write'] });
  const applicantId = newId('applicant');
  applicants.set(applicantId, {
    id: applicantId,
    object: 'applicant',
    mode: 'live',
    family_name: NAME,
    given_names: ['Marguerite'],
    name_suffix: null,
    email: ADDRESS,
    phone: null,
    date_of_birth: '1903-06-08',
    address: null,
    external_id: null,
    erased: false,
    created_at: new Date().toISOString(),
  });
  const templateId = newId('workflowTemplate');
  templates.set(templateId, {
    id: templateId,
    mode: 'live',
    name: 'KYC',
    version: 1,
    checks: ['document'],
    screening_rules: [],
    metadata: {},
    device_intelligence: false,
    photo_upload: false,
    review_threshold: 0.5,
    signing_document: null, ...NO_DOCUMENT_POLICY,
  });
  return { p, applicantId, templateId };
}

async function createSession(): Promise<string> {
  const { p, applicantId, templateId } = fixture();
  const s = await rpc.call(SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId } }, { principal: p, requestId: 'req_int_invite' });
  return s.id;
}

/** The session's email-log row once it has left `pending`, and the session's jobs then. */
async function settledEmail(sessionId: string): Promise<{ id: string; status: string; jobs: number }> {
  return waitFor(async () => {
    const [r] = await query<{ id: string; status: string; jobs: number }>(
      db.url,
      `SELECT e.id, e.status, (SELECT count(*)::int FROM sessions.jobs j WHERE j.session_id = e.session_id) AS jobs
         FROM sessions.email_log e WHERE e.session_id = $1`,
      [sessionId],
    );
    return r && r.status !== 'pending' && r.jobs === 0 ? r : undefined;
  }, 15_000, 50);
}

describe('invitations', () => {
  it('are sent once each, after the session committed, with a Message-ID of their email-log row', async () => {
    const before = smtp.messages.length;
    // while the mail server takes an invitation, no transaction holds its job: it was committed before the send
    const heldAtSend: boolean[] = [];
    smtp.beforeAccept = async (m) => {
      const emailId = /^<([^@>]+)@/.exec(m.messageId ?? '')?.[1] ?? '';
      const free = await query(
        db.url,
        `SELECT j.id FROM sessions.jobs j JOIN sessions.email_log e ON e.session_id = j.session_id WHERE e.id = $1 FOR UPDATE OF j SKIP LOCKED`,
        [emailId],
      );
      heldAtSend.push(free.length === 0);
    };
    const ids = await Promise.all(Array.from({ length: 3 }, () => createSession()));
    for (const id of ids) {
      const email = await settledEmail(id);
      assert.equal(email.status, 'sent');
      const sent = smtp.messages.slice(before).filter((m) => m.messageId === `<${email.id}@verify.example>`);
      assert.equal(sent.length, 1);
    }
    assert.equal(smtp.messages.length - before, 3);
    assert.deepEqual(heldAtSend, [false, false, false], 'no transaction held the invitation\'s job while the mail server took it');
  });

  it('the database connections lost just as the mail server takes the message: still one email, recorded as sent', async () => {
    const before = smtp.messages.length;
    smtp.beforeAccept = async () => {
      smtp.beforeAccept = null;
      await query(db.url, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'sessions-us'`);
    };
    const id = await createSession();
    const email = await settledEmail(id);
    assert.equal(email.status, 'sent');
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(
      smtp.messages.slice(before).map((m) => m.messageId),
      [`<${email.id}@verify.example>`],
    );
  });

  it('the mail server\'s answer lost after it took the message: sent again as the same message (one Message-ID)', async () => {
    const before = smtp.messages.length;
    let first = true;
    smtp.beforeAccept = () => {
      if (!first) return;
      first = false;
      throw new Error('connection lost before the reply');
    };
    const id = await createSession();
    const email = await settledEmail(id);
    assert.equal(email.status, 'sent');
    const ids = new Set(smtp.messages.slice(before).map((m) => m.messageId));
    assert.deepEqual([...ids], [`<${email.id}@verify.example>`]);
  });

  it('a recipient the mail server rejects: the invitation fails, and no address or name reaches the log', async () => {
    smtp.rejectRecipients = true;
    const since = logged.length;
    const id = await createSession();
    const email = await settledEmail(id);
    assert.equal(email.status, 'failed');
    const lines = logged.slice(since).join('\n');
    assert.match(lines, /invitation given up/);
    assert.match(lines, /"responseCode":550/, 'the cause stays readable');
    assert.ok(!lines.includes(ADDRESS), `the address is in the log: ${lines}`);
    assert.ok(!lines.includes('example.org'), 'nor its domain');
    assert.ok(!lines.includes(NAME), 'nor the name');
  });
});
