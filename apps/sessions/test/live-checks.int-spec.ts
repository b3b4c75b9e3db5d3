/**
 * What a live run decides and shows (contract §20, docs/sessions.md "Live runs"): each check with its reasons and
 * score, stored on the session and its run, read back and carried by the resting event; the applicant compared with
 * the document's holder; the template's document policy and thresholds. The sessions service runs in process
 * against real Postgres and NATS (JetStream); the services it calls (applicants, screening, the reader in evidence)
 * are played by responders on their subjects, so that each test chooses what the document says.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  eventStreamName,
  SUBJECTS,
  type Applicant,
  type CaptureVerifyReply,
  type CaptureVerifyRequest,
  type DomainEvent,
  type EvaluateRequest,
  type IdvHolder,
  type Principal,
  type ReqOf,
  type ResOf,
  type Session,
  type Subject,
  type TemplateVersion,
  type WatchlistPerson,
  type WatchlistScreenRequest,
  type WatchlistHit,
  type WatchlistScreenReply,
} from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { newId } from '@verity/keys';
import { createLogger, RpcServer } from '@verity/platform';
import { query, startServiceUnderTest, testPrincipal, waitFor, type ServiceUnderTest, testPrincipalVerifier } from '@verity/testing';
import type { QueryRunner } from 'typeorm';
import { SessionsModule } from '../src/app.module.js';
import { SESSIONS_SERVICE, sessionsEnv } from '../src/config.js';
import { CheckReasons1764400000000 } from '../src/database/migrations/1764400000000-CheckReasons.js';
import { acceptEveryDebit, cleanScreening, NO_DOCUMENT_POLICY } from './peers.js';

let svc: ServiceUnderTest<unknown>;
let peers: RpcServer;
const applicants = new Map<string, Applicant>();
const templates = new Map<string, TemplateVersion>();
const readings = new Map<string, CaptureVerifyReply>();
const verifyRequests = new Map<string, CaptureVerifyRequest>();
const evaluated = new Map<string, EvaluateRequest>();
/** What the watchlist check answers, by the family name screened (none: no list is loaded), and whom it screened. */
const watchlistReplies = new Map<string, WatchlistScreenReply>();
const screened = new Map<string, WatchlistPerson>();
/** The thresholds each live screening was asked with, by family name (none: the region's). */
const screenedThresholds = new Map<string, WatchlistScreenRequest['thresholds']>();
const NO_LIST: WatchlistScreenReply = { outcome: null, lists: 0, best_score: 0, hits: [], review_threshold: 0.8, fail_threshold: null };
/** Monitoring: the hits of the reloaded list by family name, and the version screening says it read. */
const monitorHits = new Map<string, WatchlistHit[]>();
let monitoredVersion = 0;

before(async () => {
  svc = await startServiceUnderTest({
    def: SESSIONS_SERVICE,
    module: SessionsModule,
    env: sessionsEnv,
    vars: { CAPTURE_SECRET_KEY: 'sessions-live-checks-int-capture-key-0123', JOBS_POLL_MS: '200', OUTBOX_POLL_MS: '200' },
  });
  peers = new RpcServer(svc.nc, svc.root, 'peers', createLogger('sessions-live-checks-int', 'us', 'silent'), { principals: testPrincipalVerifier() });
  peers.handle(SUBJECTS.applicantsGet, async (p) => structuredClone(applicants.get(p.id)) ?? Promise.reject(DomainError.notFound()));
  peers.handle(SUBJECTS.templatesVersion, async (p) => templates.get(p.id) ?? Promise.reject(DomainError.notFound()));
  acceptEveryDebit(peers);
  peers.handle(SUBJECTS.screeningEvaluate, async (p) => {
    if (p.context.document) evaluated.set(p.template_id, p);
    return cleanScreening();
  });
  peers.handle(SUBJECTS.screeningWatchlistScreen, async (p) => {
    // monitoring screens against the reloaded list alone, and is told which version it read
    if (p.list) return { ...NO_LIST, outcome: 'pass', lists: 1, hits: monitorHits.get(p.person.family_name) ?? [], list_version: monitoredVersion };
    screened.set(p.person.family_name, p.person);
    screenedThresholds.set(p.person.family_name, p.thresholds);
    return watchlistReplies.get(p.person.family_name) ?? NO_LIST;
  });
  peers.handle(SUBJECTS.evidenceAvailable, async () => ({ capture_acquisition: 'camera', available_images: ['portrait', 'front', 'selfie'] }));
  peers.handle(SUBJECTS.evidenceCaptureVerify, async (p) => {
    verifyRequests.set(p.session_id, p);
    return readings.get(p.session_id) ?? Promise.reject(new DomainError('internal_error'));
  });
  await svc.nc.flush();
});

after(async () => {
  await peers?.close();
  if (svc) await (await jetstreamManager(svc.nc)).streams.delete(eventStreamName(svc.root)).catch(() => undefined);
  await svc?.close();
});

beforeEach(() => verifyRequests.clear());

function call<S extends Subject>(p: Principal | null, subject: S, payload: ReqOf<S>): Promise<ResOf<S>> {
  return svc.rpc.call(subject, payload, { principal: p, requestId: 'req_int_live_checks' });
}

const FINNISH_PASSPORT = { type: 'passport', issuing_country: 'FI', number: 'XP8271602', expiry_date: '2033-05-01' } as const;
const AINO: IdvHolder = { family_name: 'LEHTINEN', given_names: ['AINO', 'KAARINA'], date_of_birth: '1988-02-14', nationality: 'FI' };

/** What the reader answers for a capture: the document and holder, and its face checks with their scores. */
function reading(holder: IdvHolder, over: Partial<CaptureVerifyReply['checks']> = {}, document: CaptureVerifyReply['document'] = FINNISH_PASSPORT): CaptureVerifyReply {
  return {
    document,
    holder,
    checks: {
      document: { outcome: 'pass', reasons: [], score: null },
      face_match: { outcome: 'pass', reasons: [], score: 0.873 },
      liveness: { outcome: 'review', reasons: ['spoof_suspected'], score: 0.58 },
      ...over,
    },
    available_images: ['portrait', 'front', 'selfie'],
    selfie_fingerprint: null,
  };
}

/** A live organization with an applicant of these names and a template of this policy. */
function live(names: Pick<Applicant, 'family_name' | 'given_names' | 'date_of_birth'>, policy: Partial<TemplateVersion> = {}, checks: TemplateVersion['checks'] = ['document', 'face_match', 'liveness']) {
  const p = testPrincipal({ mode: 'live', scopes: ['sessions:read', 'sessions:write'] });
  const applicantId = newId('applicant');
  applicants.set(applicantId, {
    id: applicantId, object: 'applicant', mode: 'live', name_suffix: null, email: null, phone: null, address: null, external_id: null, erased: false,
    created_at: new Date().toISOString(), ...names,
  });
  const templateId = newId('workflowTemplate');
  templates.set(templateId, {
    id: templateId, mode: 'live', name: 'KYC', version: 2, checks, screening_rules: [], metadata: {}, device_intelligence: false, photo_upload: false,
    review_threshold: 0.5, signing_document: null, ...NO_DOCUMENT_POLICY, ...policy,
  });
  return { p, applicantId, templateId };
}

/** A live session of the fixture, captured, submitted and run to its resting status on `read`. */
async function runLive(f: ReturnType<typeof live>, read: CaptureVerifyReply): Promise<Session> {
  const s = await call(f.p, SUBJECTS.sessionsCreate, { body: { applicant_id: f.applicantId, workflow_template_id: f.templateId } });
  readings.set(s.id, read);
  const caller = { session_id: s.id, org_id: f.p.org_id, mode: 'live' as const };
  const connection = { ip: '192.0.2.10', user_agent: 'IntTest/1', device_id: null };
  await call(null, SUBJECTS.sessionsCaptureImageStored, { caller, stored: { object: 'capture_image', artifact: 'front', width: 1600, height: 1000 }, connection });
  await call(null, SUBJECTS.sessionsCaptureImageStored, { caller, stored: { object: 'capture_image', artifact: 'selfie', width: 720, height: 960 }, connection });
  await call(null, SUBJECTS.sessionsCaptureSubmit, { caller, body: { acquisition: 'camera' }, connection });
  return waitFor(async () => {
    const r = await call(f.p, SUBJECTS.sessionsGet, { id: s.id });
    return ['completed', 'manual_review', 'errored'].includes(r.status) ? r : undefined;
  }, 10_000);
}

async function outboxEvents(sessionId: string): Promise<DomainEvent[]> {
  const rows = await query<{ event: DomainEvent }>(svc.db.url, `SELECT event FROM sessions.outbox WHERE session_id = $1 ORDER BY seq`, [sessionId]);
  return rows.map((r) => r.event);
}

const aino = { family_name: 'Lehtinen', given_names: ['Aino'], date_of_birth: '1988-02-14' };

describe('checks with their reasons and score', () => {
  it('a live run stores every check with reasons and score, on the session and its run; the read and the resting event carry them', async () => {
    const f = live(aino, {}, ['document', 'face_match', 'liveness', 'watchlist']);
    const s = await runLive(f, reading(AINO));
    const expected = [
      { type: 'document', outcome: 'pass', reasons: [], score: null },
      { type: 'face_match', outcome: 'pass', reasons: [], score: 0.873 },
      { type: 'liveness', outcome: 'review', reasons: ['spoof_suspected'], score: 0.58 },
      { type: 'watchlist', outcome: 'error', reasons: ['provider_not_configured'], score: null },
    ];
    assert.deepEqual([s.status, s.outcome], ['manual_review', null]);
    assert.deepEqual(s.checks, expected);
    const [row] = await query<{ checks: unknown; run: unknown }>(
      svc.db.url,
      `SELECT s.checks, r.checks AS run FROM sessions.sessions s JOIN sessions.runs r ON r.session_id = s.id WHERE s.id = $1`,
      [s.id],
    );
    assert.deepEqual([row!.checks, row!.run], [expected, expected]);
    const events = await outboxEvents(s.id);
    assert.deepEqual(events.map((e) => [e.type, e.data.checks]), [['kyc.session.manual_review_requested', expected]]);
    // the list carries the same checks
    const page = await call(f.p, SUBJECTS.sessionsList, {});
    assert.deepEqual(page.data.find((x) => x.id === s.id)?.checks, expected);

    // a reviewer's decision completes it: that event carries the checks too
    await call(f.p, SUBJECTS.sessionsDecision, { id: s.id, body: { outcome: 'approved', reason: 'liveness looked fine' } });
    const decided = (await outboxEvents(s.id)).at(-1)!;
    assert.deepEqual([decided.type, decided.data.outcome, decided.data.checks], ['kyc.session.completed', 'approved', expected]);
  });

  it('the template\'s thresholds reach the reader; a template without overrides sends none', async () => {
    const tuned = live(aino, { thresholds: { faceMatchPass: 0.8, faceMatchReview: 0.7 } });
    const a = await runLive(tuned, reading(AINO));
    assert.deepEqual(verifyRequests.get(a.id)?.thresholds, { faceMatchPass: 0.8, faceMatchReview: 0.7 });
    const plain = await runLive(live(aino), reading(AINO));
    assert.equal('thresholds' in verifyRequests.get(plain.id)!, false);
  });
});

describe('the watchlist check (docs/watchlist.md, contract §21)', () => {
  it('a listed person: the check is review with watchlist_hit, the hit is a finding of the run, and screening reads watchlist.*', async () => {
    const holder: IdvHolder = { family_name: 'VIRTANEN', given_names: ['MIKKO'], date_of_birth: '1970-01-01', nationality: 'FI' };
    const hit = {
      list: 'un-sc',
      entity_id: '6900101',
      matched_name: 'Mikko VIRTANEN',
      score: 0.93,
      features: { name: 0.83, pairs: [{ query: 'VIRTANEN', listed: 'VIRTANEN', how: 'exact', similarity: 1 }], unpaired: { query: 0, listed: 0 }, reordered: true, date_of_birth: 'exact' as const, nationality: 'unknown' as const },
    };
    watchlistReplies.set('VIRTANEN', { outcome: 'review', lists: 2, best_score: 0.93, hits: [hit], review_threshold: 0.8, fail_threshold: null });
    const f = live({ family_name: 'Virtanen', given_names: ['Mikko'], date_of_birth: '1970-01-01' }, {}, ['document', 'watchlist']);
    const s = await runLive(f, reading(holder));
    // the document's names, date of birth and nationality were screened
    assert.deepEqual(screened.get('VIRTANEN'), { family_name: 'VIRTANEN', given_names: ['MIKKO'], date_of_birth: '1970-01-01', nationality: 'FI' });
    assert.deepEqual([s.status, s.outcome], ['manual_review', null]);
    assert.deepEqual(s.checks[1], { type: 'watchlist', outcome: 'review', reasons: ['watchlist_hit'], score: null });
    const finding = {
      id: `fnd_${s.id.slice(4)}_l1`,
      subjectType: 'sanction',
      severity: 'medium',
      sourceAuthority: 'un-sc',
      findingType: 'watchlist_match',
      evidence: { matchScore: 0.93, listId: 'un-sc', entityId: '6900101', matchedName: 'Mikko VIRTANEN', features: hit.features },
    };
    const [run] = await query<{ findings: unknown }>(svc.db.url, 'SELECT findings FROM sessions.runs WHERE session_id = $1', [s.id]);
    assert.deepEqual(run!.findings, [finding]);
    const ctx = evaluated.get(f.templateId)!.context;
    assert.deepEqual([ctx.watchlist, ctx.findings], [{ bestScore: 0.93, hitCount: 1 }, [finding]]);

    // a reviewer's decision on the hit (docs/watchlist.md, "Reviewing hits"): read with the hit, for the owner only
    const hits = await call(f.p, SUBJECTS.sessionsWatchlistHits, { id: s.id });
    assert.deepEqual(hits.data, [{ finding_id: finding.id, list: 'un-sc', entity_id: '6900101', matched_name: 'Mikko VIRTANEN', score: 0.93, features: hit.features, decision: null }]);
    const stranger = testPrincipal({ mode: 'live' });
    const decide = (p: Principal, body: unknown, findingId = finding.id) => call(p, SUBJECTS.sessionsWatchlistDecide, { id: s.id, finding_id: findingId, body });
    const codeOf = (e: unknown) => (e instanceof DomainError ? e.code : String(e));
    await assert.rejects(call(stranger, SUBJECTS.sessionsWatchlistHits, { id: s.id }), (e) => codeOf(e) === 'resource_not_found');
    await assert.rejects(decide(stranger, { outcome: 'cleared', reason: 'a namesake' }), (e) => codeOf(e) === 'resource_not_found');
    await assert.rejects(decide(f.p, { outcome: 'cleared', reason: 'a namesake' }, `fnd_${s.id.slice(4)}_l9`), (e) => codeOf(e) === 'resource_not_found');
    await assert.rejects(decide(f.p, { outcome: 'cleared', reason: '  ' }), (e) => codeOf(e) === 'validation_error');
    await assert.rejects(decide(f.p, { outcome: 'approved', reason: 'a namesake' }), (e) => codeOf(e) === 'validation_error');
    assert.equal((await query(svc.db.url, 'SELECT 1 FROM sessions.watchlist_decisions WHERE session_id = $1', [s.id])).length, 0);
    const decided = await decide(f.p, { outcome: 'cleared', reason: 'Another Mikko Virtanen: born 1970 in Oulu, the listed one in Tampere.', reviewer_email: 'r@example.com' });
    assert.deepEqual([decided.decision?.outcome, decided.decision?.decided_by], ['cleared', { id: f.p.key_id, email: 'r@example.com' }]);
    // once: a second decision changes nothing; the timeline shows the one made
    await assert.rejects(decide(f.p, { outcome: 'confirmed', reason: 'on second thoughts' }), (e) => codeOf(e) === 'invalid_state_transition');
    assert.deepEqual((await call(f.p, SUBJECTS.sessionsWatchlistHits, { id: s.id })).data[0]!.decision, decided.decision);
    const entry = (await call(f.p, SUBJECTS.sessionsTimeline, { id: s.id })).data.find((e) => e.kind === 'watchlist_decision');
    assert.deepEqual(entry, {
      kind: 'watchlist_decision', type: 'cleared', text: 'Another Mikko Virtanen: born 1970 in Oulu, the listed one in Tampere.', at: decided.decision!.decided_at,
      hit: { list: 'un-sc', entity_id: '6900101', matched_name: 'Mikko VIRTANEN', decided_by: 'r@example.com' },
    });
  });

  it('no hit: the check passes and the run approves; rules read a best score of what was scored', async () => {
    watchlistReplies.set('SALO', { outcome: 'pass', lists: 2, best_score: 0.41, hits: [], review_threshold: 0.8, fail_threshold: null });
    const f = live({ family_name: 'Salo', given_names: ['Ilona'], date_of_birth: '1980-05-05' }, {}, ['document', 'watchlist']);
    const s = await runLive(f, reading({ family_name: 'SALO', given_names: ['ILONA'], date_of_birth: '1980-05-05', nationality: null }));
    assert.deepEqual([s.status, s.outcome, s.checks[1]], ['completed', 'approved', { type: 'watchlist', outcome: 'pass', reasons: [], score: null }]);
    assert.deepEqual(evaluated.get(f.templateId)!.context.watchlist, { bestScore: 0.41, hitCount: 0 });
    // a template that sets no watchlist thresholds: screening applies the region's
    assert.equal(screenedThresholds.get('SALO'), undefined);
  });

  it('the pinned template\'s watchlist thresholds go with the screening, and its answer decides the check', async () => {
    watchlistReplies.set('LAINE', { outcome: 'fail', lists: 1, best_score: 0.91, hits: [], review_threshold: 0.7, fail_threshold: 0.9 });
    const f = live({ family_name: 'Laine', given_names: ['Oskari'], date_of_birth: '1979-09-09' }, { watchlist_thresholds: { review: 0.7, fail: 0.9 } }, ['document', 'watchlist']);
    const s = await runLive(f, reading({ family_name: 'LAINE', given_names: ['OSKARI'], date_of_birth: '1979-09-09', nationality: null }));
    assert.deepEqual(screenedThresholds.get('LAINE'), { review: 0.7, fail: 0.9 });
    assert.deepEqual(s.checks[1], { type: 'watchlist', outcome: 'fail', reasons: [], score: null });
  });
});

describe('watchlist monitoring (docs/watchlist.md, "Monitoring"; contract §21)', () => {
  /** The `kyc.session.watchlist_hit` messages of the event stream, read with an ordered consumer. */
  async function hitEvents(): Promise<DomainEvent[]> {
    const consumer = await jetstream(svc.nc).consumers.get(eventStreamName(svc.root), { filter_subjects: `${svc.root}.events.kyc.session.watchlist_hit` });
    const out: DomainEvent[] = [];
    for (let m = await consumer.next({ expires: 1000 }); m; m = await consumer.next({ expires: 1000 })) out.push(m.json<DomainEvent>());
    return out;
  }

  /** Once the outbox has relayed every event of the session. */
  function relayed(sessionId: string): Promise<boolean> {
    return waitFor(async () => (await query(svc.db.url, 'SELECT 1 FROM sessions.outbox WHERE session_id = $1 AND relayed_at IS NULL', [sessionId])).length === 0, 10_000);
  }

  /** Screening hands over a version of `list`; resolves once the monitor has screened every session against it. */
  async function reload(list: string, version: number): Promise<void> {
    monitoredVersion = version;
    assert.deepEqual(await call(null, SUBJECTS.sessionsWatchlistMonitor, { list, version, committed_at: new Date().toISOString() }), { accepted: true });
    await waitFor(async () => {
      const [m] = await query<{ done: boolean }>(svc.db.url, 'SELECT finished_at IS NOT NULL AS done FROM sessions.watchlist_monitors WHERE list = $1 AND version = $2', [list, version]);
      return m?.done === true;
    }, 10_000);
  }

  it('a reload that lists an approved person raises one kyc.session.watchlist_hit and puts the session in review; again, nothing; an unlisted person, nothing', async () => {
    const pass = { outcome: 'pass' as const, lists: 1, best_score: 0.2, hits: [], review_threshold: 0.8, fail_threshold: null };
    watchlistReplies.set('NIEMINEN', pass);
    watchlistReplies.set('KORHONEN', pass);
    const listed = live({ family_name: 'Nieminen', given_names: ['Eero'], date_of_birth: '1975-06-01' }, {}, ['document', 'watchlist']);
    const a = await runLive(listed, reading({ family_name: 'NIEMINEN', given_names: ['EERO'], date_of_birth: '1975-06-01', nationality: 'FI' }));
    const other = live({ family_name: 'Korhonen', given_names: ['Liisa'], date_of_birth: '1982-03-03' }, {}, ['document', 'watchlist']);
    const b = await runLive(other, reading({ family_name: 'KORHONEN', given_names: ['LIISA'], date_of_birth: '1982-03-03', nationality: 'FI' }));
    assert.deepEqual([a.status, a.outcome, b.status, b.outcome], ['completed', 'approved', 'completed', 'approved']);

    const hit: WatchlistHit = {
      list: 'eu-fsf',
      entity_id: 'EU.4411.22',
      matched_name: 'Eero NIEMINEN',
      score: 0.97,
      features: { name: 0.87, pairs: [{ query: 'NIEMINEN', listed: 'NIEMINEN', how: 'exact', similarity: 1 }], unpaired: { query: 0, listed: 0 }, reordered: false, date_of_birth: 'exact', nationality: 'match' },
    };
    monitorHits.set('NIEMINEN', [hit]);
    await reload('eu-fsf', 41);
    const inReview = await call(listed.p, SUBJECTS.sessionsGet, { id: a.id });
    // back in the review queue; the earlier decision stands until a reviewer makes another
    assert.deepEqual([inReview.status, inReview.outcome], ['manual_review', 'approved']);
    assert.match(String(inReview.metadata['manualReviewReason']), /eu-fsf/);
    await relayed(a.id);
    const stream = await hitEvents();
    const events = stream.filter((e) => e.data.sessionId === a.id);
    assert.equal(events.length, 1);
    assert.deepEqual(
      [events[0]!.type, events[0]!.org_id, events[0]!.mode, events[0]!.data.status, events[0]!.data.outcome, events[0]!.data.watchlistHits],
      ['kyc.session.watchlist_hit', listed.p.org_id, 'live', 'manual_review', 'approved', [{ list: 'eu-fsf', entityId: 'EU.4411.22', score: 0.97 }]],
    );
    // the hit joins the run's findings, where reviewers see hits
    const [run] = await query<{ findings: Array<{ id: string; findingType: string; evidence: Record<string, unknown> }> }>(svc.db.url, 'SELECT findings FROM sessions.runs WHERE session_id = $1', [a.id]);
    assert.deepEqual(run!.findings.map((f) => [f.id, f.findingType, f.evidence['listId'], f.evidence['entityId']]), [[`fnd_${a.id.slice(4)}_m41_1`, 'watchlist_match', 'eu-fsf', 'EU.4411.22']]);
    // the unlisted person: untouched, no event
    const untouched = await call(other.p, SUBJECTS.sessionsGet, { id: b.id });
    assert.deepEqual([untouched.status, untouched.outcome, stream.filter((e) => e.data.sessionId === b.id).length], ['completed', 'approved', 0]);

    // a reviewer approves again; the same list loaded again finds the same person: known, nothing is raised
    await call(listed.p, SUBJECTS.sessionsDecision, { id: a.id, body: { outcome: 'approved', reason: 'A namesake: another date of birth on the passport.' } });
    await reload('eu-fsf', 42);
    const again = await call(listed.p, SUBJECTS.sessionsGet, { id: a.id });
    assert.deepEqual([again.status, again.outcome], ['completed', 'approved']);
    await relayed(a.id);
    assert.equal((await hitEvents()).filter((e) => e.data.sessionId === a.id).length, 1);
    // a version told twice is monitored once
    assert.deepEqual(await call(null, SUBJECTS.sessionsWatchlistMonitor, { list: 'eu-fsf', version: 42, committed_at: new Date().toISOString() }), { accepted: false });
  });
});

describe('a selfie seen before (docs/reading.md)', () => {
  it('the same picture for another applicant of the organization: face match review with selfie_seen_before; the same applicant again, another picture or another organization are not flagged', async () => {
    const withSelfie = (fingerprint: string) => ({ ...reading(AINO, { liveness: { outcome: 'pass', reasons: [], score: 0.8 } }), selfie_fingerprint: fingerprint });
    const f = live(aino);
    /** Another applicant of the fixture's organization, of the same names (the document matches them too). */
    const anotherApplicant = (fx: ReturnType<typeof live>) => {
      const id = newId('applicant');
      applicants.set(id, { ...applicants.get(fx.applicantId)!, id });
      return { ...fx, applicantId: id };
    };
    const first = await runLive(f, withSelfie('a5a5a5a5a5a5a5a5'));
    assert.deepEqual([first.status, first.outcome], ['completed', 'approved']);
    // the same applicant again: a retry, not someone else
    assert.equal((await runLive(f, withSelfie('a5a5a5a5a5a5a5a5'))).outcome, 'approved');
    // another applicant with the same picture, re-encoded (3 bits apart)
    const other = await runLive(anotherApplicant(f), withSelfie('a5a5a5a5a5a5a5a2'));
    assert.deepEqual([other.status, other.outcome], ['manual_review', null]);
    assert.deepEqual(other.checks[1], { type: 'face_match', outcome: 'review', reasons: ['selfie_seen_before'], score: 0.873 });
    // another picture, and the same picture in another organization
    assert.equal((await runLive(anotherApplicant(f), withSelfie('5a5a5a5a5a5a5a5a'))).outcome, 'approved');
    assert.equal((await runLive(live(aino), withSelfie('a5a5a5a5a5a5a5a5'))).outcome, 'approved');
    // a workflow without face match: liveness carries it
    const livenessOnly = live(aino, {}, ['document', 'liveness']);
    await runLive(livenessOnly, withSelfie('0123456789abcdef'));
    const copy = await runLive(anotherApplicant(livenessOnly), withSelfie('0123456789abcdef'));
    assert.deepEqual(copy.checks[1], { type: 'liveness', outcome: 'review', reasons: ['selfie_seen_before'], score: 0.8 });
    const [n] = await query<{ n: number }>(svc.db.url, `SELECT count(*)::int AS n FROM sessions.selfie_fingerprints WHERE org_id = $1`, [f.p.org_id]);
    assert.equal(n!.n, 4, 'one fingerprint per run of the organization');
  });
});

describe('the person on the document is the person the integrator named', () => {
  it('another person\'s passport: document review with applicant_mismatch, the run in manual review, the applicant as it was', async () => {
    const f = live({ family_name: 'Lovelace', given_names: ['Ada'], date_of_birth: null });
    const before = structuredClone(applicants.get(f.applicantId));
    const s = await runLive(f, reading(AINO, { liveness: { outcome: 'pass', reasons: [], score: 0.8 } }));
    assert.deepEqual([s.status, s.outcome], ['manual_review', null]);
    assert.deepEqual(s.checks[0], { type: 'document', outcome: 'review', reasons: ['applicant_mismatch'], score: null });
    // what was read stays the document's
    assert.deepEqual(s.idv?.holder, AINO);
    assert.deepEqual(applicants.get(f.applicantId), before);
    // screening saw both: the contract's names as applicant.*, the holder and the comparison as document.*
    const ctx = evaluated.get(f.templateId)!.context;
    assert.equal(ctx.applicant.familyName, 'LEHTINEN');
    assert.deepEqual(ctx.document, { type: 'passport', familyName: 'LEHTINEN', givenNames: ['AINO', 'KAARINA'], dateOfBirth: '1988-02-14', issuingCountry: 'FI', nationality: 'FI', applicantMatch: false });
  });

  it('the same person spelled another way passes; a different date of birth does not', async () => {
    const same = await runLive(live({ family_name: 'Lehtinen', given_names: ['A.', 'Kaarina'], date_of_birth: '1988-02-14' }), reading(AINO, { liveness: { outcome: 'pass', reasons: [], score: 0.8 } }));
    assert.deepEqual([same.status, same.outcome, same.checks[0]!.outcome], ['completed', 'approved', 'pass']);
    const dob = await runLive(live({ ...aino, date_of_birth: '1988-02-15' }), reading(AINO));
    assert.deepEqual(dob.checks[0], { type: 'document', outcome: 'review', reasons: ['applicant_mismatch'], score: null });
  });

  it('a template that fails a mismatch declines the run', async () => {
    const s = await runLive(live({ family_name: 'Lovelace', given_names: ['Ada'], date_of_birth: null }, { applicant_mismatch: 'fail' }), reading(AINO, { liveness: { outcome: 'pass', reasons: [], score: 0.8 } }));
    assert.deepEqual([s.status, s.outcome], ['completed', 'declined']);
    assert.deepEqual(s.checks[0], { type: 'document', outcome: 'fail', reasons: ['applicant_mismatch'], score: null });
  });
});

describe('the document policy of the template', () => {
  const passing = { liveness: { outcome: 'pass' as const, reasons: [], score: 0.8 } };

  it('a holder under the minimum age fails document with underage: declined', async () => {
    const year = new Date().getUTCFullYear();
    const child = { ...AINO, date_of_birth: `${year - 16}-01-01` };
    const s = await runLive(live({ ...aino, date_of_birth: child.date_of_birth }, { minimum_age: 18 }), reading(child, passing));
    assert.deepEqual([s.status, s.outcome], ['completed', 'declined']);
    assert.deepEqual(s.checks[0], { type: 'document', outcome: 'fail', reasons: ['underage'], score: null });
    const adult = await runLive(live(aino, { minimum_age: 18 }), reading(AINO, passing));
    assert.deepEqual([adult.status, adult.outcome], ['completed', 'approved']);
  });

  it('a document type or an issuer the template does not accept fails document with its reason', async () => {
    const type = await runLive(live(aino, { accepted_document_types: ['identity_card', 'driver_license'] }), reading(AINO, passing));
    assert.deepEqual(type.checks[0], { type: 'document', outcome: 'fail', reasons: ['document_type_not_accepted'], score: null });
    const issuer = await runLive(live(aino, { accepted_issuing_countries: ['SE', 'NO'] }), reading(AINO, passing));
    assert.deepEqual(issuer.checks[0], { type: 'document', outcome: 'fail', reasons: ['issuer_not_accepted'], score: null });
    const accepted = await runLive(live(aino, { accepted_document_types: ['passport'], accepted_issuing_countries: ['FI'] }), reading(AINO, passing));
    assert.deepEqual([accepted.status, accepted.outcome], ['completed', 'approved']);
  });

  it('a document that could not be read is judged by the reader alone', async () => {
    const unread: CaptureVerifyReply = { ...reading(AINO, passing), document: null, holder: null };
    unread.checks.document = { outcome: 'review', reasons: ['unreadable'], score: null };
    const s = await runLive(live({ family_name: 'Lovelace', given_names: ['Ada'], date_of_birth: null }, { minimum_age: 18, accepted_document_types: ['identity_card'] }), unread);
    assert.deepEqual(s.checks[0], { type: 'document', outcome: 'review', reasons: ['unreadable'], score: null });
  });
});

describe('rows written before reasons and scores', () => {
  it('read with no reasons and no score; the migration completes them, sessions and runs alike, and leaves complete rows alone', async () => {
    const p = testPrincipal({ mode: 'test', scopes: ['sessions:read'] });
    const id = newId('session');
    const old = [{ type: 'document', outcome: 'pass' }, { type: 'watchlist', outcome: 'review' }];
    await query(
      svc.db.url,
      `INSERT INTO sessions.sessions (id, org_id, mode, applicant_id, workflow_template_id, template_version, status, outcome, expected_outcome, checks, metadata)
       VALUES ($1, $2, 'test', $3, $4, 1, 'manual_review', NULL, 'review', $5, '{}')`,
      [id, p.org_id, newId('applicant'), newId('workflowTemplate'), JSON.stringify(old)],
    );
    await query(
      svc.db.url,
      `INSERT INTO sessions.runs (session_id, template_id, template_version, expected_outcome, checks, findings, screening, status) VALUES ($1, 'wft_x', 1, 'review', $2, '[]', 'null', 'manual_review')`,
      [id, JSON.stringify(old)],
    );
    const complete = [{ type: 'document', outcome: 'pass', reasons: [], score: null }, { type: 'watchlist', outcome: 'review', reasons: [], score: null }];
    assert.deepEqual((await call(p, SUBJECTS.sessionsGet, { id })).checks, complete);

    const runner = { query: (sql: string) => query(svc.db.url, sql) } as unknown as QueryRunner;
    await new CheckReasons1764400000000().up(runner);
    const [row] = await query<{ checks: unknown; run: unknown }>(svc.db.url, `SELECT s.checks, r.checks AS run FROM sessions.sessions s JOIN sessions.runs r ON r.session_id = s.id WHERE s.id = $1`, [id]);
    assert.deepEqual([row!.checks, row!.run], [complete, complete]);
    // again: nothing left to do, nothing changed
    await new CheckReasons1764400000000().up(runner);
    const [again] = await query<{ checks: unknown }>(svc.db.url, `SELECT checks FROM sessions.sessions WHERE id = $1`, [id]);
    assert.deepEqual(again!.checks, complete);
  });
});
