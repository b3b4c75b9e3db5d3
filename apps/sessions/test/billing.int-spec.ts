/**
 * The sessions half of billing live creates (docs/sessions.md, "Billing") against real Postgres and NATS: the debit before
 * the write, the refund of a create that wrote nothing, and `sessions.exists.v1` for the settle sweep. The
 * accounts service (debit, refund) and the services a create reads (applicants, screening) are played by
 * responders on their subjects, so that a test can refuse a debit or see what was asked.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { SUBJECTS, type Applicant, type BillingDebitRequest, type Principal, type ReqOf, type ResOf, type Subject, type TemplateVersion } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { newId } from '@verity/keys';
import { createLogger, RpcServer } from '@verity/platform';
import { query, refusal, startServiceUnderTest, testPrincipal, waitFor, type ServiceUnderTest, testPrincipalVerifier } from '@verity/testing';
import { SessionsModule } from '../src/app.module.js';
import { SESSIONS_SERVICE, sessionsEnv } from '../src/config.js';
import { NO_DOCUMENT_POLICY } from './peers.js';

let svc: ServiceUnderTest<unknown>;
let peers: RpcServer;

const applicants = new Map<string, { org: string; applicant: Applicant }>();
const templates = new Map<string, { org: string; template: TemplateVersion }>();
/** What accounts was asked, in order: debits with their principal, and refunds. */
const debits: Array<{ req: BillingDebitRequest; principal: Principal | null }> = [];
const refunds: Array<{ session_id: string; principal: Principal | null }> = [];
/** When set, the next debits are refused with it. */
let refuseDebit: DomainError | null = null;

before(async () => {
  svc = await startServiceUnderTest({
    def: SESSIONS_SERVICE,
    module: SessionsModule,
    env: sessionsEnv,
    vars: { CAPTURE_SECRET_KEY: 'sessions-billing-int-capture-key-0123456789', JOBS_POLL_MS: '200', OUTBOX_POLL_MS: '200' },
  });
  peers = new RpcServer(svc.nc, svc.root, 'peers', createLogger('sessions-billing-int', 'us', 'silent'), { principals: testPrincipalVerifier() });
  peers.handle(SUBJECTS.applicantsGet, async (p, ctx) => {
    const a = applicants.get(p.id);
    if (!a || a.org !== ctx.principal?.org_id) throw DomainError.notFound();
    return a.applicant;
  });
  peers.handle(SUBJECTS.templatesVersion, async (p, ctx) => {
    const t = templates.get(p.id);
    if (!t || t.org !== ctx.principal?.org_id) throw DomainError.notFound();
    return t.template;
  });
  peers.handle(SUBJECTS.accountsBillingDebit, async (p, ctx) => {
    debits.push({ req: p, principal: ctx.principal });
    if (refuseDebit) throw refuseDebit;
    return { session_id: p.session_id, org_id: ctx.principal!.org_id, amount: 350, checks: p.checks, created_at: new Date().toISOString(), settled_at: null, refunded_at: null };
  });
  peers.handle(SUBJECTS.accountsBillingRefund, async (p, ctx) => {
    refunds.push({ session_id: p.session_id, principal: ctx.principal });
    return { session_id: p.session_id, org_id: ctx.principal!.org_id, amount: 350, checks: [], created_at: new Date().toISOString(), settled_at: null, refunded_at: new Date().toISOString() };
  });
  await svc.nc.flush();
});

after(async () => {
  await peers?.close();
  await svc?.close();
});

beforeEach(() => {
  refuseDebit = null;
});

function call<S extends Subject>(p: Principal | null, subject: S, payload: ReqOf<S>, timeoutMs?: number): Promise<ResOf<S>> {
  return svc.rpc.call(subject, payload, { principal: p, requestId: 'req_int_billing', timeoutMs });
}

/** An organization of `mode` with one applicant (with an email address: a live create queues an invitation) and one template. */
function fixture(mode: 'test' | 'live') {
  const p = testPrincipal({ mode, scopes: ['sessions:read', 'sessions:write'] });
  const applicantId = newId('applicant');
  applicants.set(applicantId, {
    org: p.org_id,
    applicant: {
      id: applicantId, object: 'applicant', mode, family_name: 'Doe', given_names: ['Jane'], name_suffix: null, email: 'jane@example.com',
      phone: null, date_of_birth: '1990-01-01', address: { country: 'DE' }, external_id: null, erased: false, created_at: new Date().toISOString(),
    },
  });
  const templateId = newId('workflowTemplate');
  templates.set(templateId, {
    org: p.org_id,
    template: {
      id: templateId, mode, name: 'KYC', version: 1, checks: ['document', 'face_match', 'liveness'], screening_rules: [], metadata: {},
      device_intelligence: false, photo_upload: false, review_threshold: 0.5, signing_document: null, ...NO_DOCUMENT_POLICY,
    },
  });
  return { p, body: { applicant_id: applicantId, workflow_template_id: templateId } };
}

/** Sessions, jobs and email-log rows of an organization, as stored. */
async function stored(orgId: string): Promise<{ sessions: number; jobs: number; emails: number }> {
  const [r] = await query<{ sessions: number; jobs: number; emails: number }>(
    svc.db.url,
    `SELECT (SELECT count(*)::int FROM sessions.sessions WHERE org_id = $1) AS sessions,
            (SELECT count(*)::int FROM sessions.jobs j JOIN sessions.sessions s ON s.id = j.session_id WHERE s.org_id = $1) AS jobs,
            (SELECT count(*)::int FROM sessions.email_log WHERE org_id = $1) AS emails`,
    [orgId],
  );
  return r!;
}

describe('billing of live creates', () => {
  it('a live create debits its checks under the id of the session it then writes, with the caller\'s principal', async () => {
    const { p, body } = fixture('live');
    const s = await call(p, SUBJECTS.sessionsCreate, { body });
    const d = debits.filter((x) => x.principal?.org_id === p.org_id);
    assert.equal(d.length, 1);
    assert.deepEqual(d[0]!.req, { session_id: s.id, checks: ['document', 'face_match', 'liveness'] });
    assert.equal(d[0]!.principal?.key_id, p.key_id);
    assert.equal((await stored(p.org_id)).sessions, 1);
    assert.ok(!refunds.some((r) => r.session_id === s.id));
  });

  it('test mode never bills', async () => {
    const { p, body } = fixture('test');
    await call(p, SUBJECTS.sessionsCreate, { body });
    assert.ok(!debits.some((x) => x.principal?.org_id === p.org_id));
  });

  it('a refused debit (402) reaches the caller and nothing is written', async () => {
    const { p, body } = fixture('live');
    refuseDebit = new DomainError('payment_required', { message: "The wallet balance does not cover this verification's price.", details: { price: 350 } });
    const e = await refusal(call(p, SUBJECTS.sessionsCreate, { body }));
    assert.equal(e.code, 'payment_required');
    assert.deepEqual(e.details, { price: 350 });
    assert.deepEqual(await stored(p.org_id), { sessions: 0, jobs: 0, emails: 0 });
    assert.ok(!refunds.some((r) => r.principal?.org_id === p.org_id), 'nothing to give back');
  });

  it('a create refused before billing (unknown applicant, bad body) debits nothing', async () => {
    const { p, body } = fixture('live');
    assert.equal((await refusal(call(p, SUBJECTS.sessionsCreate, { body: { ...body, applicant_id: newId('applicant') } }))).param, 'applicant_id');
    assert.equal((await refusal(call(p, SUBJECTS.sessionsCreate, { body: { ...body, nope: 1 } }))).code, 'validation_error');
    assert.ok(!debits.some((x) => x.principal?.org_id === p.org_id));
  });

  it('a create whose write comes after its deadline writes nothing and gives the debit back', async () => {
    const { p, body } = fixture('live');
    // hold the sessions table: the create's statement waits for it past the caller's deadline
    const blocker = new pg.Client({ connectionString: svc.db.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE sessions.sessions IN SHARE MODE');
      const e = await refusal(call(p, SUBJECTS.sessionsCreate, { body }, 600));
      assert.equal(e.code, 'service_unavailable');
      const debited = debits.find((x) => x.principal?.org_id === p.org_id);
      assert.ok(debited, 'the debit came before the write');
      await new Promise((r) => setTimeout(r, 300));
      await blocker.query('COMMIT');
      const refund = await waitFor(async () => refunds.find((r) => r.session_id === debited.req.session_id), 3000);
      assert.equal(refund.principal?.org_id, p.org_id);
      assert.deepEqual(await stored(p.org_id), { sessions: 0, jobs: 0, emails: 0 });
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
    }
  });
});

describe('sessions.exists.v1 (the settle sweep of accounts)', () => {
  it('true only for a session of the principal\'s organization and mode', async () => {
    const { p, body } = fixture('live');
    const s = await call(p, SUBJECTS.sessionsCreate, { body });
    const exists = (who: Principal, session_id: string) => call(who, SUBJECTS.sessionsExists, { session_id });
    assert.deepEqual(await exists(p, s.id), { exists: true });
    assert.deepEqual(await exists({ ...p, mode: 'test' }, s.id), { exists: false });
    assert.deepEqual(await exists(testPrincipal({ mode: 'live' }), s.id), { exists: false });
    assert.deepEqual(await exists(p, newId('session')), { exists: false });
    assert.deepEqual(await exists(p, 'nope'), { exists: false });
    assert.equal((await refusal(call(null, SUBJECTS.sessionsExists, { session_id: s.id }))).code, 'internal_error');
  });
});
