/**
 * Data subject requests in the applicants service (docs/privacy.md), against real Postgres and NATS, with the other
 * services of the region played by handlers on the same subjects: requests answer at once and complete by
 * themselves; an erasure resumes where it stopped and never repeats a recorded step; the certificate verifies
 * with a standard JOSE library against the published key set, also after a rotation; the purge removes test data.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SUBJECTS, type Applicant, type DataSubjectRequest, type ErasureCertificatePayload, type ErasureKeySet, type Principal, type ReqOf, type ResOf, type Subject } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { newId } from '@verity/keys';
import { createLogger, RpcClient, RpcServer } from '@verity/platform';
import { query, refusal, type ServiceUnderTest, startServiceUnderTest, testPrincipal, waitFor, testPrincipalVerifier } from '@verity/testing';
import { compactVerify, createLocalJWKSet, jwtVerify } from 'jose';
import { ApplicantsModule } from '../src/app.module.js';
import { APPLICANTS_SERVICE, applicantsEnv } from '../src/config.js';

const signingKey = randomBytes(32).toString('base64');
let svc: ServiceUnderTest<unknown>;
let rpc: RpcClient;
let peers: RpcServer;

/** What the other services were asked, by subject. */
const asked: Record<string, Array<{ applicant_id: string; session_ids: string[]; org_id: string }>> = {};
/** A step's answer: a function of the request, or a failure. */
const behaviour: { sessionsDown: boolean; evidenceFailures: number } = { sessionsDown: false, evidenceFailures: 0 };

before(async () => {
  svc = await startServiceUnderTest({ def: APPLICANTS_SERVICE, module: ApplicantsModule, env: applicantsEnv, vars: { ERASURE_SIGNING_KEY: signingKey, DSAR_POLL_MS: '100' } });
  rpc = svc.rpc;
  peers = new RpcServer(svc.nc, svc.root, 'peers', createLogger('dsar-peers', 'us', 'silent'), { principals: testPrincipalVerifier() });
  const note = (subject: string, p: { applicant_id: string; session_ids: string[] }, principal: Principal | null) =>
    (asked[subject] ??= []).push({ ...p, org_id: principal!.org_id });
  const sessionsOf = (applicantId: string) => [`ses_${applicantId.slice(4)}`];
  peers.handle(SUBJECTS.sessionsPrivacyErase, async (p, ctx) => {
    if (behaviour.sessionsDown) throw new DomainError('service_unavailable');
    note('sessions.erase', p, ctx.principal);
    return { erased: { sessions: 1, email_log: 2 }, session_ids: sessionsOf(p.applicant_id) };
  });
  peers.handle(SUBJECTS.evidencePrivacyErase, async (p, ctx) => {
    note('evidence.erase', p, ctx.principal);
    if (behaviour.evidenceFailures > 0) {
      behaviour.evidenceFailures -= 1;
      throw new DomainError('service_unavailable');
    }
    return { erased: { artifacts: 3, blobs: 3 } };
  });
  peers.handle(SUBJECTS.sessionsPrivacyExport, async (p, ctx) => {
    note('sessions.export', p, ctx.principal);
    return { sessions: [], email_log: [], session_ids: sessionsOf(p.applicant_id) };
  });
  peers.handle(SUBJECTS.evidencePrivacyExport, async (p, ctx) => {
    note('evidence.export', p, ctx.principal);
    return { evidence: [], activity: [] };
  });
  peers.handle(SUBJECTS.webhooksPrivacyExport, async (p, ctx) => {
    note('webhooks.export', p, ctx.principal);
    return { webhook_events: [] };
  });
});

after(async () => {
  await peers?.close();
  await svc?.close();
});

const principal = (mode: 'test' | 'live' = 'test', org = newId('org')) => testPrincipal({ org_id: org, mode, scopes: ['applicants:write', 'dsar:write'] });
const call = <S extends Subject>(p: Principal | null, subject: S, payload: ReqOf<S>): Promise<ResOf<S>> => rpc.call(subject, payload, { principal: p, requestId: 'req_int_dsar' });

async function applicant(p: Principal, family_name = 'Marlowe'): Promise<Applicant> {
  return call(p, SUBJECTS.applicantsCreate, { body: { family_name, given_names: ['Philip'], email: 'pm@example.com', address: { city: 'Los Angeles', country: 'US' } } });
}

const request = (p: Principal, body: unknown) => call(p, SUBJECTS.applicantsDsarCreate, { body });

function completed(p: Principal, id: string): Promise<DataSubjectRequest> {
  return waitFor(async () => {
    const r = await call(p, SUBJECTS.applicantsDsarGet, { id });
    return r.status === 'completed' ? r : undefined;
  }, 20_000);
}

async function keySet(): Promise<ErasureKeySet> {
  return call(null, SUBJECTS.applicantsErasureKeys, {});
}

describe('POST and GET', () => {
  it('answers a pending request of the caller, readable by the caller only', async () => {
    const p = principal('live');
    const a = await applicant(p);
    const r = await request(p, { type: 'access', applicant_id: a.id });
    assert.match(r.id, /^dsr_[A-Za-z0-9]{24}$/);
    assert.deepEqual(r, { id: r.id, object: 'data_subject_request', type: 'access', applicant_id: a.id, mode: 'live', status: 'pending', created_at: r.created_at, completed_at: null });
    assert.equal((await refusal(call(principal('live'), SUBJECTS.applicantsDsarGet, { id: r.id }))).code, 'resource_not_found');
    assert.equal((await refusal(call({ ...p, mode: 'test' }, SUBJECTS.applicantsDsarGet, { id: r.id }))).code, 'resource_not_found');
    assert.equal((await refusal(call(p, SUBJECTS.applicantsDsarGet, { id: 'dsr_nope' }))).code, 'resource_not_found');
  });

  it('refuses another type, a missing or foreign applicant and unknown fields, and writes nothing', async () => {
    const p = principal();
    const a = await applicant(p);
    const foreign = await applicant(principal());
    const cases: Array<[unknown, string, string]> = [
      [{ type: 'rectification', applicant_id: a.id }, 'validation_error', 'type'],
      [{ applicant_id: a.id }, 'validation_error', 'type'],
      [{ type: 'access' }, 'validation_error', 'applicant_id'],
      [{ type: 'access', applicant_id: a.id, extra: 1 }, 'validation_error', 'extra'],
      [{ type: 'erasure', applicant_id: foreign.id }, 'resource_not_found', 'applicant_id'],
      [{ type: 'erasure', applicant_id: 'app_unknown' }, 'resource_not_found', 'applicant_id'],
      ['a string', 'validation_error', 'body'],
    ];
    for (const [body, code, param] of cases) {
      await assert.rejects(request(p, body), (e: DomainError) => e.code === code && (param === 'body' || e.param === param), JSON.stringify(body));
    }
    const [r] = await query<{ n: number }>(svc.db.url, 'SELECT count(*)::int AS n FROM applicants.data_subject_requests WHERE org_id = $1', [p.org_id]);
    assert.equal(r!.n, 0);
  });
});

describe('access', () => {
  it('completes by itself with the export of the applicant, asked of each service with the request’s principal', async () => {
    const p = principal('live');
    const a = await applicant(p, 'Archer');
    const done = await completed(p, (await request(p, { type: 'access', applicant_id: a.id })).id);
    assert.ok(done.completed_at);
    assert.deepEqual(done.export, { applicant: a, sessions: [], email_log: [], evidence: [], activity: [], webhook_events: [] });
    const sessionIds = [`ses_${a.id.slice(4)}`];
    for (const s of ['evidence.export', 'webhooks.export']) {
      assert.deepEqual(asked[s]!.filter((x) => x.applicant_id === a.id), [{ applicant_id: a.id, session_ids: sessionIds, org_id: p.org_id }]);
    }
  });
});

describe('erasure', () => {
  async function verified(certificate: string): Promise<ErasureCertificatePayload> {
    const { payload, protectedHeader } = await jwtVerify(certificate, createLocalJWKSet((await keySet()) as never), { algorithms: ['EdDSA'] });
    assert.equal(protectedHeader.alg, 'EdDSA');
    return payload as unknown as ErasureCertificatePayload;
  }

  it('erases the applicant and its exports, completes with a certificate that verifies, and leaves others as they were', async () => {
    const p = principal('live');
    const a = await applicant(p, 'Spade');
    const other = await applicant(p, 'Hammer');
    const access = await completed(p, (await request(p, { type: 'access', applicant_id: a.id })).id);
    assert.equal(access.export!.applicant.family_name, 'Spade');

    const done = await completed(p, (await request(p, { type: 'erasure', applicant_id: a.id })).id);
    const erased = await call(p, SUBJECTS.applicantsGet, { id: a.id });
    assert.deepEqual(erased, {
      ...a,
      family_name: null,
      given_names: null,
      name_suffix: null,
      email: null,
      phone: null,
      date_of_birth: null,
      address: null,
      external_id: null,
      erased: true,
    });
    assert.deepEqual(await call(p, SUBJECTS.applicantsGet, { id: other.id }), other);
    assert.equal((await call(p, SUBJECTS.applicantsDsarGet, { id: access.id })).export, null);
    const [row] = await query<{ t: string }>(svc.db.url, 'SELECT a::text AS t FROM applicants.applicants a WHERE id = $1', [a.id]);
    for (const v of ['Spade', 'Philip', 'pm@example.com', 'Los Angeles']) assert.ok(!row!.t.includes(v), v);

    const payload = await verified(done.certificate!);
    assert.equal(payload.jti, done.id);
    assert.equal(payload.sub, a.id);
    assert.equal(payload.iss, 'us/erasure');
    assert.equal(payload.region, 'us');
    assert.equal(payload.org_id, p.org_id);
    assert.equal(payload.mode, 'live');
    assert.deepEqual(payload.erased, { sessions: { sessions: 1, email_log: 2 }, evidence: { artifacts: 3, blobs: 3 }, applicants: { applicant: 1, access_exports: 1 } });
    assert.deepEqual(asked['evidence.erase']!.filter((x) => x.applicant_id === a.id), [{ applicant_id: a.id, session_ids: [`ses_${a.id.slice(4)}`], org_id: p.org_id }]);

    // a tampered certificate does not verify
    const [h, body, sig] = done.certificate!.split('.');
    const forged = Buffer.from(JSON.stringify({ ...payload, sub: other.id })).toString('base64url');
    await assert.rejects(jwtVerify(`${h}.${forged}.${sig}`, createLocalJWKSet((await keySet()) as never)));
    assert.ok(body);

    // erasing again is harmless: it completes, and reports nothing more erased here
    const again = await completed(p, (await request(p, { type: 'erasure', applicant_id: a.id })).id);
    assert.deepEqual((await verified(again.certificate!)).erased.applicants, { applicant: 0, access_exports: 0 });
  });

  it('waits while a service is down, and resumes without repeating a recorded step', async () => {
    const p = principal();
    const a = await applicant(p);
    behaviour.sessionsDown = true;
    const r = await request(p, { type: 'erasure', applicant_id: a.id });
    await waitFor(async () => {
      const [row] = await query<{ attempts: number; last_error: string | null }>(svc.db.url, 'SELECT attempts, last_error FROM applicants.data_subject_requests WHERE id = $1', [r.id]);
      return row!.attempts >= 2 && row!.last_error === 'service_unavailable' ? true : undefined;
    }, 10_000);
    assert.equal((await call(p, SUBJECTS.applicantsDsarGet, { id: r.id })).status, 'pending');
    assert.equal((await call(p, SUBJECTS.applicantsGet, { id: a.id })).erased, false, 'nothing of its own erased before the other services');

    // sessions comes back; evidence then fails twice: sessions is not asked again
    behaviour.evidenceFailures = 2;
    behaviour.sessionsDown = false;
    const done = await completed(p, r.id);
    assert.equal(asked['sessions.erase']!.filter((x) => x.applicant_id === a.id).length, 1);
    assert.equal(asked['evidence.erase']!.filter((x) => x.applicant_id === a.id).length, 3);
    assert.equal((await verified(done.certificate!)).erased.sessions!.sessions, 1, 'the certificate names what the first run erased');
  });

  it('publishes retired keys, so certificates signed before a rotation still verify', async () => {
    const p = principal();
    const done = await completed(p, (await request(p, { type: 'erasure', applicant_id: (await applicant(p)).id })).id);
    const before = await keySet();
    assert.equal(before.keys.length, 1);
    const rotated = await startServiceUnderTest({
      def: APPLICANTS_SERVICE,
      module: ApplicantsModule,
      env: applicantsEnv,
      vars: { ERASURE_SIGNING_KEY: randomBytes(32).toString('base64'), ERASURE_RETIRED_PUBLIC_KEYS: before.keys[0]!.x },
    });
    try {
      const after = await rotated.rpc.call(SUBJECTS.applicantsErasureKeys, {}, { principal: null, requestId: 'req_int_dsar' });
      assert.equal(after.keys.length, 2);
      assert.notEqual(after.keys[0]!.kid, before.keys[0]!.kid);
      assert.deepEqual(after.keys[1], before.keys[0]);
      const { payload } = await compactVerify(done.certificate!, createLocalJWKSet(after as never));
      assert.equal(JSON.parse(Buffer.from(payload).toString()).jti, done.id);
    } finally {
      await rotated.close();
    }
  });
});

describe('test-data purge', () => {
  it('removes the organization’s test applicants and requests and counts them; live data and other organizations stay', async () => {
    const org = newId('org');
    const test = principal('test', org);
    const live = principal('live', org);
    const a = await applicant(test);
    await applicant(test);
    const l = await applicant(live);
    const otherOrg = principal('test');
    const elsewhere = await applicant(otherOrg);
    await completed(test, (await request(test, { type: 'access', applicant_id: a.id })).id);
    const reply = await call(null, SUBJECTS.applicantsPurgeTestData, { org_id: org });
    assert.deepEqual(reply, { removed: { applicants: 2, data_subject_requests: 1 } });
    const rows = await query<{ id: string; mode: string }>(svc.db.url, 'SELECT id, mode FROM applicants.applicants WHERE org_id = $1', [org]);
    assert.deepEqual(rows, [{ id: l.id, mode: 'live' }]);
    assert.equal((await call(test, SUBJECTS.applicantsList, {})).data.length, 0);
    assert.deepEqual(await call(otherOrg, SUBJECTS.applicantsGet, { id: elsewhere.id }), elsewhere);
    assert.deepEqual(await call(null, SUBJECTS.applicantsPurgeTestData, { org_id: org }), { removed: { applicants: 0, data_subject_requests: 0 } });
    assert.equal((await refusal(call(null, SUBJECTS.applicantsPurgeTestData, { org_id: 'nope' }))).code, 'resource_not_found');
  });
});
