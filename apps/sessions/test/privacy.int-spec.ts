/**
 * A data subject request's steps in the sessions service (docs/privacy.md) and the operator's test-data purge, against
 * real Postgres and NATS. The services sessions calls (applicants, screening, evidence, accounts) are played by
 * responders on their subjects. What is asserted is what a caller sees and what the tables hold: canary values of
 * the person are searched for in the text of every row of the sessions schema.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  eventStreamName,
  SUBJECTS,
  type Applicant,
  type CaptureCaller,
  type CaptureVerifyReply,
  type EvaluateReply,
  type EvaluateRequest,
  type EvidenceArtifact,
  type Principal,
  type ReqOf,
  type ResOf,
  type Session,
  type Subject,
  type TemplateVersion,
} from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { newId } from '@verity/keys';
import { createLogger, RpcServer } from '@verity/platform';
import { query, refusal, startServiceUnderTest, testPrincipal, waitFor, type ServiceUnderTest, testPrincipalVerifier } from '@verity/testing';
import { SessionsModule } from '../src/app.module.js';
import { SESSIONS_SERVICE, sessionsEnv } from '../src/config.js';
import { ERASED_TEXT, ERASURE_CANCELLATION_REASON } from '../src/privacy/privacy.repository.js';
import { acceptEveryDebit, cleanScreening, NO_DOCUMENT_POLICY } from './peers.js';

let svc: ServiceUnderTest<unknown>;
let peers: RpcServer;

/** Applicants and templates by owner and id: the same applicant id may exist for several owners here, so that scoping shows. */
const applicants = new Map<string, Applicant>();
const templates = new Map<string, TemplateVersion>();
const key = (p: { org_id: string; mode: string } | null | undefined, id: string) => `${p?.org_id}:${p?.mode}:${id}`;

/** What the evidence peer holds, by session. */
const evidence = new Map<string, EvidenceArtifact[]>();
/** What the region's reader "reads" from a live capture, by session. */
const readings = new Map<string, CaptureVerifyReply>();
/** Screening, replaceable per test (e.g. to hold a run in flight). */
let evaluate: (req: EvaluateRequest) => Promise<EvaluateReply>;
/** The reader, before it answers (e.g. to hold a run in flight). */
let reading: (sessionId: string) => Promise<void>;
const clean = cleanScreening;

before(async () => {
  svc = await startServiceUnderTest({
    def: SESSIONS_SERVICE,
    module: SessionsModule,
    env: sessionsEnv,
    vars: { CAPTURE_SECRET_KEY: 'sessions-privacy-int-capture-key-0123456789', JOBS_POLL_MS: '200', OUTBOX_POLL_MS: '200' },
  });
  peers = new RpcServer(svc.nc, svc.root, 'peers', createLogger('sessions-privacy-int', 'us', 'silent'), { principals: testPrincipalVerifier() });
  peers.handle(SUBJECTS.applicantsGet, async (p, ctx) => applicants.get(key(ctx.principal, p.id)) ?? Promise.reject(DomainError.notFound()));
  peers.handle(SUBJECTS.templatesVersion, async (p, ctx) => templates.get(key(ctx.principal, p.id)) ?? Promise.reject(DomainError.notFound()));
  acceptEveryDebit(peers);
  peers.handle(SUBJECTS.screeningEvaluate, async (p) => evaluate(p));
  peers.handle(SUBJECTS.evidenceStoreSynthetic, async (p) => {
    evidence.set(p.session_id, p.artifacts);
    return { capture_acquisition: p.capture_acquisition, available_images: p.artifacts };
  });
  peers.handle(SUBJECTS.evidenceAvailable, async (p) => {
    const images = evidence.get(p.session_id);
    return { capture_acquisition: images ? 'camera' : null, available_images: images ?? [] };
  });
  peers.handle(SUBJECTS.evidenceCaptureVerify, async (p) => {
    await reading(p.session_id);
    const r = readings.get(p.session_id);
    if (!r) throw new DomainError('internal_error');
    evidence.set(p.session_id, r.available_images);
    return r;
  });
  await svc.nc.flush();
});

after(async () => {
  await peers?.close();
  if (svc) await (await jetstreamManager(svc.nc)).streams.delete(eventStreamName(svc.root)).catch(() => undefined);
  await svc?.close();
});

beforeEach(() => {
  evaluate = async () => clean();
  reading = async () => undefined;
});

function call<S extends Subject>(p: Principal | null, subject: S, payload: ReqOf<S>): Promise<ResOf<S>> {
  return svc.rpc.call(subject, payload, { principal: p, requestId: 'req_int_privacy' });
}

/** The values of one person in one owner's records: each must be gone after its erasure, and only then. */
function newPerson() {
  const tag = randomBytes(4).toString('hex');
  return {
    family: `Quill${tag}`,
    given: `Zephy${tag}`,
    email: `zephy.${tag}@canary.example`,
    meta: `meta-${tag}`,
    note: `called-${tag}`,
    reason: `reason-${tag}`,
    docNumber: `DN${tag.toUpperCase()}`,
    ip: `198.51.100.${parseInt(tag.slice(0, 2), 16) % 250}`,
    userAgent: `CanaryBrowser/${tag}`,
  };
}
type Person = ReturnType<typeof newPerson>;
const needles = (x: Person) => [x.family, x.given, x.email.split('@')[0]!, x.meta, x.note, x.reason, x.docNumber, x.userAgent];

function principalOf(orgId: string, mode: 'test' | 'live'): Principal {
  return testPrincipal({ org_id: orgId, mode, scopes: ['sessions:read', 'sessions:write'] });
}

/** `x` as an applicant `applicantId` of the principal's owner. */
function applicant(p: Principal, applicantId: string, x: Person): void {
  applicants.set(key(p, applicantId), {
    id: applicantId, object: 'applicant', mode: p.mode, family_name: x.family, given_names: [x.given], name_suffix: null, email: x.email,
    phone: null, date_of_birth: '1980-02-03', address: { country: 'NL' }, external_id: null, erased: false, created_at: new Date().toISOString(),
  });
}

/** A template of the principal's owner with an identity check and a watchlist (test runs find something for `review`). */
function template(p: Principal, checks: TemplateVersion['checks'] = ['document', 'face_match', 'liveness', 'watchlist']): string {
  const id = newId('workflowTemplate');
  templates.set(key(p, id), {
    id, mode: p.mode, name: 'KYC', version: 1, checks, screening_rules: [], metadata: {}, device_intelligence: false, photo_upload: false,
    review_threshold: 0.5, signing_document: null, ...NO_DOCUMENT_POLICY,
  });
  return id;
}

async function create(p: Principal, applicantId: string, templateId: string, body: Record<string, unknown> = {}): Promise<Session> {
  return call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId, ...body } });
}

async function resting(p: Principal, id: string, statuses = ['completed', 'manual_review', 'errored']): Promise<Session> {
  return waitFor(async () => {
    const s = await call(p, SUBJECTS.sessionsGet, { id });
    return statuses.includes(s.status) ? s : undefined;
  }, 10_000);
}

/** A test session of `x`, run to manual review, with a note and a declining decision with a reason. */
async function decidedTestSession(p: Principal, applicantId: string, x: Person): Promise<string> {
  const s = await create(p, applicantId, template(p), { expected_outcome: 'review', metadata: { customer_ref: x.meta } });
  await resting(p, s.id, ['manual_review']);
  await call(p, SUBJECTS.sessionsNote, { id: s.id, body: { note: x.note } });
  await call(p, SUBJECTS.sessionsDecision, { id: s.id, body: { outcome: 'declined', reason: x.reason } });
  return s.id;
}

/** The capture of a live session by `x`'s browser, the document read as `x`'s passport; submitted (the live run is queued). */
async function capture(caller: CaptureCaller, x: Person): Promise<void> {
  // the invitation settled first (sent while the session is pending): what follows does not race it
  await waitFor(async () => (await count(`SELECT 1 FROM sessions.email_log WHERE session_id = $1 AND status <> 'pending'`, [caller.session_id])) === 1, 5000);
  readings.set(caller.session_id, {
    document: { type: 'passport', issuing_country: 'NLD', number: x.docNumber, expiry_date: '2031-01-01' },
    holder: { family_name: x.family.toUpperCase(), given_names: [x.given.toUpperCase()], date_of_birth: '1980-02-03', nationality: 'NLD' },
    checks: { document: { outcome: 'pass', reasons: [], score: null }, face_match: { outcome: 'pass', reasons: [], score: 0.91 }, liveness: { outcome: 'pass', reasons: [], score: 0.8 } },
    available_images: ['portrait', 'front', 'selfie'],
    // each person's own selfie: none within reach of another's
    selfie_fingerprint: createHash('sha256').update(x.meta).digest('hex').slice(0, 16),
  });
  const connection = { ip: x.ip, user_agent: x.userAgent, device_id: `dev_${x.meta}` };
  await call(null, SUBJECTS.sessionsCaptureGet, { caller, connection });
  await call(null, SUBJECTS.sessionsCaptureImageStored, { caller, stored: { object: 'capture_image', artifact: 'front', width: 1600, height: 1000 }, connection });
  await call(null, SUBJECTS.sessionsCaptureImageStored, { caller, stored: { object: 'capture_image', artifact: 'selfie', width: 720, height: 960 }, connection });
  await call(null, SUBJECTS.sessionsCaptureSubmit, { caller, body: { acquisition: 'camera', signals: { paste_count: 0 } }, connection });
}

/** A live session of `x` that went through the capture flow to its resting status, then got a note. */
async function capturedLiveSession(p: Principal, applicantId: string, x: Person, templateId = template(p, ['document', 'face_match', 'liveness'])): Promise<string> {
  const s = await create(p, applicantId, templateId, { metadata: { customer_ref: x.meta } });
  await capture({ session_id: s.id, org_id: p.org_id, mode: 'live' }, x);
  await resting(p, s.id);
  await call(p, SUBJECTS.sessionsNote, { id: s.id, body: { note: x.note } });
  return s.id;
}

/**
 * The tables of the sessions schema; without `all`, those holding rows of sessions (not its migrations, nor the
 * metering counters, which hold counts of no one session and stay: usage-timeline.int-spec.ts, nor the watchlist
 * monitors, one row per list version: docs/watchlist.md).
 */
async function tables(all = false): Promise<string[]> {
  const rows = await query<{ t: string }>(svc.db.url, `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'sessions' AND table_type = 'BASE TABLE' ORDER BY 1`);
  return rows.map((r) => r.t).filter((t) => all || (t !== 'migrations' && t !== 'usage_daily' && t !== 'watchlist_monitors'));
}

/** Every table of the sessions schema holding a row whose text contains one of `values`, with the count. */
async function search(values: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const t of await tables(true)) {
    const [r] = await query<{ n: number }>(svc.db.url, `SELECT count(*)::int AS n FROM sessions.${t} x WHERE x::text ILIKE ANY($1)`, [values.map((v) => `%${v}%`)]);
    if (r!.n > 0) found.push(`${t}: ${r!.n}`);
  }
  return found;
}

/** Every row of every table of the sessions schema that names one of the sessions, as text. */
async function rowsOf(sessionIds: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const t of await tables()) {
    const col = t === 'sessions' ? 'id' : 'session_id';
    const rows = await query<{ x: string }>(svc.db.url, `SELECT x::text AS x FROM sessions.${t} x WHERE ${col} = ANY($1) ORDER BY 1`, [sessionIds]);
    out.push(...rows.map((r) => `${t}: ${r.x}`));
  }
  return out;
}

async function count(sql: string, params: unknown[]): Promise<number> {
  const [r] = await query<{ n: number }>(svc.db.url, `SELECT count(*)::int AS n FROM (${sql}) q`, params);
  return r!.n;
}

describe('sessions.privacy.export.v1 and sessions.privacy.erase.v1', () => {
  it("erase removes one owner's applicant's personal data and nothing else; a repeat counts zero", async () => {
    const orgId = newId('org');
    const live = principalOf(orgId, 'live');
    const test = principalOf(orgId, 'test');
    const other = principalOf(newId('org'), 'live');
    const applicantId = newId('applicant');
    // the same applicant id for the other mode and another organization, and another applicant of the same owner
    const [person, personInTest, personElsewhere, neighbour] = [newPerson(), newPerson(), newPerson(), newPerson()];
    const neighbourId = newId('applicant');
    applicant(live, applicantId, person);
    applicant(test, applicantId, personInTest);
    applicant(other, applicantId, personElsewhere);
    applicant(live, neighbourId, neighbour);

    const captured = await capturedLiveSession(live, applicantId, person);
    const waiting = await create(live, applicantId, template(live), { metadata: { customer_ref: person.meta } });
    // an invitation still to be sent: its job due later, its email row pending
    await waitFor(async () => (await count(`SELECT 1 FROM sessions.email_log WHERE session_id = $1 AND status = 'sent'`, [waiting.id])) === 1, 5000);
    await query(svc.db.url, `INSERT INTO sessions.jobs (kind, session_id, principal, run_after) VALUES ('invite_email', $1, $2, now() + interval '1 hour')`, [waiting.id, JSON.stringify(live)]);
    await query(svc.db.url, `UPDATE sessions.email_log SET status = 'pending', sent_at = NULL WHERE session_id = $1`, [waiting.id]);
    const untouched = [
      await decidedTestSession(test, applicantId, personInTest),
      await capturedLiveSession(other, applicantId, personElsewhere),
      await capturedLiveSession(live, neighbourId, neighbour),
    ];

    // the export: every session of the applicant of this owner, read in full, and their emails
    const exported = await call(live, SUBJECTS.sessionsPrivacyExport, { applicant_id: applicantId, session_ids: ['ses_ignored'] });
    assert.deepEqual(exported.session_ids, [waiting.id, captured]);
    assert.deepEqual(exported.sessions.map((s) => s.id), [waiting.id, captured]);
    assert.deepEqual(exported.sessions[1], await call(live, SUBJECTS.sessionsGet, { id: captured }));
    const full = exported.sessions[1]!;
    assert.equal(full.metadata.customer_ref, person.meta);
    assert.deepEqual((full.metadata.operatorNotes as Array<{ note: string }>).map((n) => n.note), [person.note]);
    assert.equal(full.idv?.document?.number, person.docNumber);
    assert.equal(full.idv?.holder?.family_name, person.family.toUpperCase());
    assert.equal(full.erased, false);
    assert.deepEqual(exported.email_log.map((e) => [e.session_id, e.template]).sort(), [[captured, 'session_invite'], [waiting.id, 'session_invite']].sort());
    const exportText = JSON.stringify(exported);
    for (const x of [personInTest, personElsewhere, neighbour]) assert.ok(!exportText.includes(x.meta), 'the export holds nothing of another owner or applicant');

    // before: the search finds the person where it is stored
    const stored = await search(needles(person));
    for (const t of ['sessions', 'devices']) assert.ok(stored.some((f) => f.startsWith(`${t}:`)), `${t} holds the person before (found: ${stored.join(', ')})`);
    assert.equal(await count(`SELECT 1 FROM sessions.document_numbers WHERE session_id = $1`, [captured]), 1);
    assert.equal(await count(`SELECT 1 FROM sessions.selfie_fingerprints WHERE session_id = $1`, [captured]), 1);
    const untouchedBefore = await rowsOf(untouched);

    const erased = await call(live, SUBJECTS.sessionsPrivacyErase, { applicant_id: applicantId, session_ids: [] });
    assert.deepEqual(erased, {
      erased: { sessions: 2, email_log: 2, devices: 1, document_numbers: 1, selfie_fingerprints: 1, jobs: 1, runs: 0 },
      session_ids: [waiting.id, captured],
    });

    assert.deepEqual(await search(needles(person)), [], 'no row of the sessions schema holds the person');
    assert.equal(await count(`SELECT 1 FROM sessions.devices WHERE session_id = ANY($1)`, [[captured, waiting.id]]), 0);
    assert.equal(await count(`SELECT 1 FROM sessions.document_numbers WHERE session_id = ANY($1)`, [[captured, waiting.id]]), 0);
    assert.equal(await count(`SELECT 1 FROM sessions.selfie_fingerprints WHERE session_id = ANY($1)`, [[captured, waiting.id]]), 0);
    assert.equal(await count(`SELECT 1 FROM sessions.jobs WHERE session_id = ANY($1)`, [[captured, waiting.id]]), 0);
    const emails = await query<{ recipient: string; subject: string; status: string }>(svc.db.url, `SELECT recipient, subject, status FROM sessions.email_log WHERE session_id = ANY($1) ORDER BY seq`, [[captured, waiting.id]]);
    assert.deepEqual(emails, [
      { recipient: ERASED_TEXT, subject: ERASED_TEXT, status: 'sent' },
      { recipient: ERASED_TEXT, subject: ERASED_TEXT, status: 'skipped' },
    ]);
    // the other mode, the other organization and the other applicant, as they were
    assert.deepEqual(await rowsOf(untouched), untouchedBefore);
    for (const x of [personInTest, personElsewhere, neighbour]) assert.ok((await search([x.meta, x.note])).some((f) => f.startsWith('sessions:')));

    // reads: erased, empty metadata, nothing read from the document; ids, statuses, outcomes and checks stay
    const after = await call(live, SUBJECTS.sessionsGet, { id: captured });
    assert.deepEqual(after, {
      ...full,
      metadata: {},
      erased: true,
      idv: { capture_acquisition: 'camera', available_images: ['portrait', 'front', 'selfie'] },
    });
    // a session still waiting for its applicant is cancelled like an operator cancel: its event, its link gone
    const cancelled = await call(live, SUBJECTS.sessionsGet, { id: waiting.id });
    assert.deepEqual([cancelled.status, cancelled.outcome, cancelled.erased, cancelled.url, cancelled.client_secret], ['cancelled', null, true, null, null]);
    assert.deepEqual(cancelled.metadata, { cancellationReason: ERASURE_CANCELLATION_REASON });
    const events = await query<{ type: string; event: { data: unknown } }>(svc.db.url, `SELECT type, event FROM sessions.outbox WHERE session_id = $1`, [waiting.id]);
    assert.deepEqual(events.map((e) => [e.type, e.event.data]), [['kyc.session.cancelled', { sessionId: waiting.id, status: 'cancelled', outcome: null, occurredAt: cancelled.updated_at }]]);
    await waitFor(async () => (await count(`SELECT 1 FROM sessions.outbox WHERE session_id = $1 AND relayed_at IS NOT NULL`, [waiting.id])) === 1, 5000);
    const caller = { session_id: waiting.id, org_id: orgId, mode: 'live' as const };
    assert.equal((await refusal(call(null, SUBJECTS.sessionsCaptureGet, { caller, connection: { ip: person.ip, user_agent: null, device_id: null } }))).code, 'invalid_state_transition');
    const listed = await call(live, SUBJECTS.sessionsList, { applicant_id: applicantId });
    assert.deepEqual(listed.data.map((s) => [s.id, s.erased, s.metadata]), [[waiting.id, true, { cancellationReason: ERASURE_CANCELLATION_REASON }], [captured, true, {}]]);
    assert.deepEqual((await call(live, SUBJECTS.sessionsList, { applicant_id: neighbourId })).data.map((s) => s.erased), [false]);

    // erased sessions take no more personal data
    const note = await refusal(call(live, SUBJECTS.sessionsNote, { id: captured, body: { note: person.note } }));
    assert.deepEqual([note.code, note.details?.erased], ['invalid_state_transition', true]);

    // again: nothing left, the same sessions named, nothing changed
    const rowsAfter = await rowsOf([captured, waiting.id]);
    assert.deepEqual(await call(live, SUBJECTS.sessionsPrivacyErase, { applicant_id: applicantId, session_ids: [] }), {
      erased: { sessions: 0, email_log: 0, devices: 0, document_numbers: 0, selfie_fingerprints: 0, jobs: 0, runs: 0 },
      session_ids: [waiting.id, captured],
    });
    assert.deepEqual(await rowsOf([captured, waiting.id]), rowsAfter);

    // the export after the erasure shows the erased sessions and no personal data
    const again = await call(live, SUBJECTS.sessionsPrivacyExport, { applicant_id: applicantId, session_ids: [] });
    assert.deepEqual(again.sessions.map((s) => [s.id, s.erased]), [[waiting.id, true], [captured, true]]);
    assert.ok(needles(person).every((v) => !JSON.stringify(again).includes(v)));
  });

  it('a test-mode erasure: the decision reason, notes, run findings and decisions on hits go; a session in review can still be decided, without a reason', async () => {
    const test = principalOf(newId('org'), 'test');
    const applicantId = newId('applicant');
    const person = newPerson();
    applicant(test, applicantId, person);
    const decided = await decidedTestSession(test, applicantId, person);
    const inReview = await create(test, applicantId, template(test), { expected_outcome: 'review', metadata: { customer_ref: person.meta } });
    await resting(test, inReview.id, ['manual_review']);
    const findings = await query<{ findings: unknown[] }>(svc.db.url, `SELECT findings FROM sessions.runs WHERE session_id = $1`, [decided]);
    assert.equal(findings[0]!.findings.length, 1, 'the run found something (watchlist in review)');
    const [row] = await query<{ decision_reason: string }>(svc.db.url, `SELECT decision_reason FROM sessions.sessions WHERE id = $1`, [decided]);
    assert.equal(row!.decision_reason, person.reason);
    // a reviewer's decision on a watchlist hit of the run, its reason about the person (docs/watchlist.md, "Reviewing hits")
    await query(svc.db.url, `INSERT INTO sessions.watchlist_decisions (session_id, finding_id, outcome, reason, decided_by) VALUES ($1, $2, 'cleared', $3, 'usr_int')`, [decided, `fnd_${decided.slice(4)}_l1`, person.reason]);

    const reply = await call(test, SUBJECTS.sessionsPrivacyErase, { applicant_id: applicantId, session_ids: [] });
    assert.deepEqual(reply, {
      erased: { sessions: 2, email_log: 2, devices: 0, document_numbers: 0, selfie_fingerprints: 0, jobs: 0, runs: 2 },
      session_ids: [inReview.id, decided],
    });
    assert.deepEqual(await search(needles(person)), []);
    const runs = await query<{ findings: unknown[]; checks: unknown; status: string }>(svc.db.url, `SELECT findings, checks, status FROM sessions.runs WHERE session_id = $1`, [decided]);
    assert.deepEqual(runs.map((r) => [r.findings, r.status]), [[[], 'manual_review']]);
    assert.deepEqual(await query(svc.db.url, `SELECT 1 FROM sessions.watchlist_decisions WHERE session_id = $1`, [decided]), [], 'the decisions on its hits go with the findings');
    const d = await call(test, SUBJECTS.sessionsGet, { id: decided });
    assert.deepEqual([d.status, d.outcome, d.metadata, d.erased], ['completed', 'declined', {}, true]);
    assert.ok(d.checks.every((c) => c.outcome === 'review'), 'check outcomes stay');

    const withReason = await refusal(call(test, SUBJECTS.sessionsDecision, { id: inReview.id, body: { outcome: 'approved', reason: person.reason } }));
    assert.deepEqual([withReason.code, withReason.details?.erased], ['invalid_state_transition', true]);
    const approved = await call(test, SUBJECTS.sessionsDecision, { id: inReview.id, body: { outcome: 'approved' } });
    assert.deepEqual([approved.status, approved.outcome, approved.metadata, approved.erased], ['completed', 'approved', {}, true]);
    assert.deepEqual(await search(needles(person)), []);
  });

  // held while the reader works (nothing recorded yet), or in screening (the document's number recorded, uncommitted)
  for (const stage of ['reading', 'screening'] as const) {
    it(`a live run finishing after the erasure stores nothing it read from the document (erased during ${stage})`, async () => {
      const live = principalOf(newId('org'), 'live');
      const applicantId = newId('applicant');
      const person = newPerson();
      applicant(live, applicantId, person);
      const templateId = template(live, ['document', 'face_match', 'liveness']);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const inRun = new Promise<void>((r) => (entered = r));
      const hold = async () => {
        entered();
        await gate;
      };
      if (stage === 'reading') reading = hold;
      else evaluate = async (req) => (req.template_id === templateId ? hold().then(clean) : clean());
      const s = await create(live, applicantId, templateId, { metadata: { customer_ref: person.meta } });
      await capture({ session_id: s.id, org_id: live.org_id, mode: 'live' }, person);
      await inRun;
      const reply = await call(live, SUBJECTS.sessionsPrivacyErase, { applicant_id: applicantId, session_ids: [] });
      assert.equal(reply.erased.sessions, 1);
      release();
      await waitFor(async () => (await count(`SELECT 1 FROM sessions.jobs WHERE session_id = $1`, [s.id])) === 0, 10_000);
      const read = await call(live, SUBJECTS.sessionsGet, { id: s.id });
      assert.deepEqual([read.status, read.erased, read.metadata], ['cancelled', true, { cancellationReason: ERASURE_CANCELLATION_REASON }]);
      const [row] = await query<{ idv: unknown }>(svc.db.url, `SELECT idv FROM sessions.sessions WHERE id = $1`, [s.id]);
      assert.equal(row!.idv, null);
      assert.equal(await count(`SELECT 1 FROM sessions.document_numbers WHERE session_id = $1`, [s.id]), 0, 'the number the run recorded went with it');
      assert.equal(await count(`SELECT 1 FROM sessions.runs WHERE session_id = $1`, [s.id]), 0);
      assert.deepEqual(await search(needles(person)), []);
    });
  }

  it('an unknown or malformed applicant id names nothing; an applicant id that is not a string is 422', async () => {
    const p = principalOf(newId('org'), 'test');
    for (const applicant_id of [newId('applicant'), 'app_nope', '']) {
      assert.deepEqual(await call(p, SUBJECTS.sessionsPrivacyExport, { applicant_id, session_ids: [] }), { sessions: [], email_log: [], session_ids: [] });
      assert.deepEqual(await call(p, SUBJECTS.sessionsPrivacyErase, { applicant_id, session_ids: [] }), {
        erased: { sessions: 0, email_log: 0, devices: 0, document_numbers: 0, selfie_fingerprints: 0, jobs: 0, runs: 0 },
        session_ids: [],
      });
    }
    for (const subject of [SUBJECTS.sessionsPrivacyExport, SUBJECTS.sessionsPrivacyErase] as const) {
      const e = await refusal(call(p, subject, { applicant_id: 42 as unknown as string, session_ids: [] }));
      assert.deepEqual([e.code, e.param], ['validation_error', 'applicant_id']);
      // without the request's principal there is no owner to scope by
      assert.equal((await refusal(call(null, subject, { applicant_id: newId('applicant'), session_ids: [] }))).code, 'internal_error');
    }
  });
});

describe('sessions.admin.purge-test-data.v1', () => {
  /** Rows per table of the organization's sessions of `mode`. */
  async function tally(orgId: string, mode: 'test' | 'live'): Promise<Record<string, number>> {
    const ofOwner = `SELECT id FROM sessions.sessions WHERE org_id = $1 AND mode = $2`;
    const out: Record<string, number> = {};
    for (const t of await tables()) {
      out[t] = await count(t === 'sessions' ? ofOwner : `SELECT 1 FROM sessions.${t} WHERE session_id IN (${ofOwner})`, [orgId, mode]);
    }
    return out;
  }

  it('deletes every test-mode row of the organization, counted; live rows and other organizations stay', async () => {
    const orgId = newId('org');
    const test = principalOf(orgId, 'test');
    const live = principalOf(orgId, 'live');
    const otherTest = principalOf(newId('org'), 'test');
    const [a, b, c] = [newId('applicant'), newId('applicant'), newId('applicant')];
    applicant(test, a, newPerson());
    // the live applicant is the person on the document the capture shows
    const holder = newPerson();
    applicant(live, b, holder);
    applicant(otherTest, c, newPerson());
    const testSessions = [await decidedTestSession(test, a, newPerson()), (await create(test, a, template(test), { expected_outcome: 'pass' })).id];
    await resting(test, testSessions[1]!);
    // a queued job, a device, a document number and a selfie fingerprint of a test session (the capture flow is live-only; rows as it would write them)
    await query(svc.db.url, `INSERT INTO sessions.jobs (kind, session_id, principal, run_after) VALUES ('test_run', $1, $2, now() + interval '1 hour')`, [testSessions[1], JSON.stringify(test)]);
    await query(svc.db.url, `INSERT INTO sessions.devices (org_id, mode, device_id, session_id, ip) VALUES ($1, 'test', 'dev_1', $2, '192.0.2.1')`, [orgId, testSessions[1]]);
    await query(svc.db.url, `INSERT INTO sessions.document_numbers (org_id, mode, number_hash, applicant_id, session_id) VALUES ($1, 'test', 'h1', $2, $3)`, [orgId, a, testSessions[1]]);
    await query(svc.db.url, `INSERT INTO sessions.selfie_fingerprints (org_id, mode, fingerprint, applicant_id, session_id) VALUES ($1, 'test', x'00ff00ff00ff00ff', $2, $3)`, [orgId, a, testSessions[1]]);
    // and a reviewer's decision on a watchlist hit of one (docs/watchlist.md, "Reviewing hits")
    await query(svc.db.url, `INSERT INTO sessions.watchlist_decisions (session_id, finding_id, outcome, reason, decided_by) VALUES ($1, $2, 'cleared', 'a namesake', 'usr_int')`, [testSessions[0], `fnd_${testSessions[0]!.slice(4)}_l1`]);
    const liveSessions = [await capturedLiveSession(live, b, holder)];
    const otherSessions = [await decidedTestSession(otherTest, c, newPerson())];
    await waitFor(async () => (await count(`SELECT 1 FROM sessions.outbox WHERE session_id = ANY($1) AND relayed_at IS NULL`, [[...testSessions, ...liveSessions, ...otherSessions]])) === 0, 5000);

    const existed = await tally(orgId, 'test');
    assert.ok(Object.values(existed).every((n) => n > 0), `every table holds test rows of the organization: ${JSON.stringify(existed)}`);
    const kept = await rowsOf([...liveSessions, ...otherSessions]);

    const reply = await call(null, SUBJECTS.sessionsPurgeTestData, { org_id: orgId });
    assert.deepEqual(reply, { removed: existed });
    assert.ok(Object.values(await tally(orgId, 'test')).every((n) => n === 0));
    assert.equal(await count(`SELECT 1 FROM sessions.sessions WHERE id = ANY($1)`, [testSessions]), 0);
    assert.deepEqual(await rowsOf([...liveSessions, ...otherSessions]), kept);
    assert.equal((await refusal(call(test, SUBJECTS.sessionsGet, { id: testSessions[0]! }))).code, 'resource_not_found');
    assert.equal((await call(live, SUBJECTS.sessionsGet, { id: liveSessions[0]! })).status, 'completed');

    // again: nothing left
    assert.deepEqual(await call(null, SUBJECTS.sessionsPurgeTestData, { org_id: orgId }), {
      removed: Object.fromEntries(Object.keys(existed).map((k) => [k, 0])),
    });
  });

  it('refuses a malformed organization id and a call that carries a principal', async () => {
    const e = await refusal(call(null, SUBJECTS.sessionsPurgeTestData, { org_id: 'org_nope' }));
    assert.deepEqual([e.code, e.param], ['validation_error', 'org_id']);
    const p = principalOf(newId('org'), 'test');
    const applicantId = newId('applicant');
    applicant(p, applicantId, newPerson());
    const s = await create(p, applicantId, template(p), { expected_outcome: 'pass' });
    assert.equal((await refusal(call(p, SUBJECTS.sessionsPurgeTestData, { org_id: p.org_id }))).code, 'internal_error');
    assert.equal((await call(p, SUBJECTS.sessionsGet, { id: s.id })).id, s.id, 'nothing was deleted');
  });
});
