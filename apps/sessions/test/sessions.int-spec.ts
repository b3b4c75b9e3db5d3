/**
 * The sessions service in process against real Postgres and NATS (JetStream). The services it calls
 * (applicants, screening) are played by small responders on the same NATS subjects, so that a test can
 * make them slow, absent or answer `errored`.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  EVENTS,
  eventStreamName,
  subjectRoot,
  SUBJECTS,
  type Applicant,
  type CaptureAcquisition,
  type DomainEvent,
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
import { connectNats, createLogger, createServiceApp, loadConfig, RpcClient, RpcServer, serviceEnv } from '@verity/platform';
import { cloneTestDatabase, isolationPrefix, query, refusal, sessionEvent, testPrincipal, waitFor, TEST_SERVER_ENV, testPrincipalVerifier, testSigner } from '@verity/testing';
import { SessionsModule } from '../src/app.module.js';
import { Outbox } from '../src/events/outbox.js';
import { SESSIONS_SERVICE, sessionsEnv, type SessionsConfig } from '../src/config.js';
import { acceptEveryDebit, cleanScreening, NO_DOCUMENT_POLICY } from './peers.js';

type App = Awaited<ReturnType<typeof createServiceApp>>;

let db: Awaited<ReturnType<typeof cloneTestDatabase>>;
let app: App | null = null;
let nc: NatsConnection;
let rpc: RpcClient;
let root: string;
let cfg: SessionsConfig;

const log = createLogger('sessions-int', 'us', 'silent');
const applicants = new Map<string, Applicant>();
const templates = new Map<string, TemplateVersion>();
let evaluate: (req: EvaluateRequest) => Promise<EvaluateReply>;
const evaluated: EvaluateRequest[] = [];

/** What the evidence peer holds, by session; `evidenceFails` > 0 makes its next calls fail. */
const evidence = new Map<string, { org: string; capture_acquisition: CaptureAcquisition; artifacts: EvidenceArtifact[] }>();
const evidenceStores: string[] = [];
let evidenceFails = 0;
function evidenceAnswer(): void {
  if (evidenceFails > 0) {
    evidenceFails -= 1;
    throw new DomainError('service_unavailable');
  }
}

const clean = cleanScreening;

async function startApp(): Promise<void> {
  app = await createServiceApp(SESSIONS_SERVICE, SessionsModule, cfg, log);
}
async function stopApp(): Promise<void> {
  await app?.close();
  app = null;
}

before(async () => {
  db = await cloneTestDatabase('sessions');
  const prefix = isolationPrefix('sessions');
  root = subjectRoot('us', prefix);
  cfg = loadConfig({ ...serviceEnv, ...sessionsEnv }, {
    ...TEST_SERVER_ENV,
    REGION: 'us',
    DATABASE_URL: db.url,
    NATS_SUBJECT_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    OUTBOX_POLL_MS: '200',
    JOBS_POLL_MS: '200',
    CAPTURE_SECRET_KEY: 'sessions-int-test-capture-key-0123456789',
  });
  nc = await connectNats(cfg.NATS_URL, 'sessions-int-test');
  rpc = new RpcClient(nc, root, 5000, { signer: testSigner() });
  // the services sessions calls, played on their subjects
  const peers = new RpcServer(nc, root, 'peers', log, { principals: testPrincipalVerifier() });
  peers.handle(SUBJECTS.applicantsGet, async (p, ctx) => {
    const a = applicants.get(p.id);
    if (!a || ctx.principal?.org_id !== orgOf.get(p.id)) throw DomainError.notFound();
    return a;
  });
  peers.handle(SUBJECTS.templatesVersion, async (p, ctx) => {
    const t = templates.get(p.id);
    if (!t || ctx.principal?.org_id !== orgOf.get(p.id)) throw DomainError.notFound();
    return t;
  });
  acceptEveryDebit(peers);
  peers.handle(SUBJECTS.screeningEvaluate, async (p) => {
    evaluated.push(p);
    return evaluate(p);
  });
  peers.handle(SUBJECTS.evidenceStoreSynthetic, async (p, ctx) => {
    evidenceAnswer();
    evidenceStores.push(p.session_id);
    if (!evidence.has(p.session_id)) evidence.set(p.session_id, { org: ctx.principal!.org_id, capture_acquisition: p.capture_acquisition, artifacts: p.artifacts });
    return { capture_acquisition: p.capture_acquisition, available_images: p.artifacts };
  });
  peers.handle(SUBJECTS.evidenceAvailable, async (p, ctx) => {
    evidenceAnswer();
    const e = evidence.get(p.session_id);
    if (!e || e.org !== ctx.principal?.org_id) return { capture_acquisition: null, available_images: [] };
    return { capture_acquisition: e.capture_acquisition, available_images: e.artifacts };
  });
  await startApp();
});

after(async () => {
  await stopApp();
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(eventStreamName(root)).catch(() => undefined);
  await nc?.close();
  await db?.drop();
});

beforeEach(() => {
  evaluate = async () => clean();
  evidenceFails = 0;
});

const orgOf = new Map<string, string>();

function principal(mode: 'test' | 'live' = 'test'): Principal {
  return testPrincipal({ mode, scopes: ['sessions:read', 'sessions:write'] });
}

/** An organization with one applicant and one template of the given checks. */
function fixture(mode: 'test' | 'live' = 'test', checks: TemplateVersion['checks'] = ['document', 'face_match', 'watchlist'], email: string | null = 'jane@example.com') {
  const p = principal(mode);
  const applicantId = newId('applicant');
  applicants.set(applicantId, {
    id: applicantId,
    object: 'applicant',
    mode,
    family_name: 'Doe',
    given_names: ['Jane'],
    name_suffix: null,
    email,
    phone: null,
    date_of_birth: '1990-01-01',
    address: { country: 'DE' },
    external_id: null,
    erased: false,
    created_at: new Date().toISOString(),
  });
  const templateId = newId('workflowTemplate');
  templates.set(templateId, {
    id: templateId,
    mode,
    name: 'KYC',
    version: 3,
    checks,
    screening_rules: [],
    metadata: {},
    device_intelligence: false,
    photo_upload: false,
    review_threshold: 0.5,
    signing_document: checks.includes('document_signing') ? { title: 'Rental', variables: ['start_datetime', 'amount', 'currency'] } : null, ...NO_DOCUMENT_POLICY,
  });
  orgOf.set(applicantId, p.org_id);
  orgOf.set(templateId, p.org_id);
  return { p, applicantId, templateId };
}

function call<S extends Subject>(p: Principal | null, subject: S, payload: ReqOf<S>): Promise<ResOf<S>> {
  return rpc.call(subject, payload, { principal: p, requestId: 'req_int' });
}

async function settled(p: Principal, id: string, statuses = ['completed', 'manual_review', 'errored']): Promise<Session> {
  return waitFor(async () => {
    const s = await call(p, SUBJECTS.sessionsGet, { id });
    return statuses.includes(s.status) ? s : undefined;
  }, 3000);
}

async function outboxOf(sessionId: string) {
  return query<{ event_id: string; type: string; relayed_at: Date | null; event: DomainEvent }>(
    db.url,
    `SELECT event_id, type, relayed_at, event FROM sessions.outbox WHERE session_id = $1 ORDER BY seq`,
    [sessionId],
  );
}

/** Every message of the stream, read with an ordered consumer. */
async function streamMessages(): Promise<Array<{ msgId: string; event: DomainEvent }>> {
  const js = jetstream(nc);
  const consumer = await js.consumers.get(eventStreamName(root));
  const out: Array<{ msgId: string; event: DomainEvent }> = [];
  const info = await (await jetstreamManager(nc)).streams.info(eventStreamName(root));
  const total = info.state.messages;
  while (out.length < total) {
    const m = await consumer.next({ expires: 2000 });
    if (!m) break;
    out.push({ msgId: m.headers?.get('Nats-Msg-Id') ?? '', event: m.json<DomainEvent>() });
  }
  return out;
}

describe('test-mode runs', () => {
  it('a created session runs in the background, records the run and relays its event once', async () => {
    const { p, applicantId, templateId } = fixture('test', ['document', 'face_match', 'credit_history', 'watchlist']);
    const created = await call(p, SUBJECTS.sessionsCreate, {
      body: { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: 'fail', metadata: { ref: 'x' } },
    });
    assert.equal(created.status, 'pending');
    assert.deepEqual(created.checks, [
      { type: 'document', outcome: null, reasons: [], score: null },
      { type: 'face_match', outcome: null, reasons: [], score: null },
      { type: 'credit_history', outcome: null, reasons: [], score: null },
      { type: 'watchlist', outcome: null, reasons: [], score: null },
    ]);
    assert.equal(created.idv, undefined);
    const s = await settled(p, created.id);
    assert.equal(s.status, 'completed');
    assert.equal(s.outcome, 'declined');
    // synthetic results: no reasons, no score (contract §20), stored so on the run as on the session
    assert.deepEqual(s.checks, ['document', 'face_match', 'credit_history', 'watchlist'].map((type) => ({ type, outcome: 'fail', reasons: [], score: null })));
    assert.deepEqual(s.idv, { capture_acquisition: 'camera', available_images: ['portrait', 'front', 'selfie'] });
    // the synthetic images were stored by the evidence service, with the run's principal
    assert.deepEqual(evidence.get(s.id), { org: p.org_id, capture_acquisition: 'camera', artifacts: ['portrait', 'front', 'selfie'] });

    // screening got the pinned version, the check outcomes and the watchlist finding; the applicant's own names
    const req = evaluated.find((e) => e.template_id === templateId)!;
    assert.equal(req.version, 3);
    assert.equal(req.context.checks.credit_history, 'fail');
    assert.deepEqual(req.context.findings.map((f) => [f.subjectType, f.severity]), [['sanction', 'high']]);
    assert.equal(req.context.applicant.familyName, 'Doe');

    const [run] = await query<{ template_version: number; credit_recording: string; screening: { trace: unknown[] }; status: string; checks: unknown }>(
      db.url,
      `SELECT template_version, credit_recording, screening, status, checks FROM sessions.runs WHERE session_id = $1`,
      [s.id],
    );
    assert.deepEqual(run!.checks, s.checks);
    assert.equal(run!.template_version, 3);
    assert.equal(run!.credit_recording, 'credit-history/fail');
    assert.deepEqual(run!.screening.trace, []);
    assert.equal(run!.status, 'completed');

    const rows = await waitFor(async () => {
      const r = await outboxOf(s.id);
      return r.length === 1 && r[0]!.relayed_at ? r : undefined;
    }, 3000);
    assert.equal(rows[0]!.type, 'kyc.session.completed');
    const onStream = (await streamMessages()).filter((m) => m.event.data.sessionId === s.id);
    assert.equal(onStream.length, 1);
    assert.equal(onStream[0]!.msgId, rows[0]!.event_id);
    assert.deepEqual(onStream[0]!.event.data, { sessionId: s.id, status: 'completed', outcome: 'declined', occurredAt: s.updated_at, checks: s.checks });
    assert.equal((await query(db.url, `SELECT 1 FROM sessions.jobs WHERE session_id = $1`, [s.id])).length, 0);
  });

  it('relaying a row twice publishes it once (event id as message id)', async () => {
    const { p, applicantId, templateId } = fixture();
    const created = await call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId } });
    await settled(p, created.id);
    const [row] = await waitFor(async () => {
      const r = await outboxOf(created.id);
      return r[0]?.relayed_at ? r : undefined;
    }, 3000);
    // as if the process had died after the publish and before marking the row
    await query(db.url, `UPDATE sessions.outbox SET relayed_at = NULL WHERE event_id = $1`, [row!.event_id]);
    await waitFor(async () => (await outboxOf(created.id))[0]!.relayed_at !== null, 3000);
    const onStream = (await streamMessages()).filter((m) => m.msgId === row!.event_id);
    assert.equal(onStream.length, 1);
  });

  it('a template metadata value screening cannot evaluate errors the run with erroredReason and no event', async () => {
    const { p, applicantId, templateId } = fixture();
    evaluate = async () => ({ status: 'errored', reason: 'session_metadata_invalid', key: 'segment' });
    const created = await call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId } });
    const s = await settled(p, created.id);
    assert.equal(s.status, 'errored');
    assert.equal(s.outcome, null);
    assert.match(s.metadata.erroredReason as string, /"segment"/);
    assert.deepEqual(await outboxOf(s.id), []);
  });

  it('screening not answering is retried, and the run completes once it answers', async () => {
    const { p, applicantId, templateId } = fixture();
    let calls = 0;
    evaluate = async () => {
      calls += 1;
      if (calls <= 2) throw new DomainError('service_unavailable');
      return clean();
    };
    const created = await call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId } });
    const s = await settled(p, created.id);
    assert.equal(s.status, 'completed');
    assert.equal(calls, 3);
    assert.equal((await query(db.url, `SELECT 1 FROM sessions.runs WHERE session_id = $1`, [s.id])).length, 1);
  });

  it('evidence not answering is retried; the images are stored before the session rests', async () => {
    const { p, applicantId, templateId } = fixture('test', ['document']);
    evidenceFails = 2;
    const created = await call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: 'doc_quality' } });
    const s = await settled(p, created.id);
    assert.equal(s.status, 'manual_review');
    assert.equal(evidenceFails, 0, 'both failing calls were made');
    // doc_quality: no usable face, so no portrait; no face_match or liveness, so no selfie
    assert.deepEqual(evidence.get(s.id)?.artifacts, ['front']);
    assert.deepEqual(s.idv, { capture_acquisition: 'camera', available_images: ['front'] });
    assert.equal((await query(db.url, `SELECT 1 FROM sessions.runs WHERE session_id = $1`, [s.id])).length, 1);
  });

  it('idv on read is what evidence holds now; evidence not answering falls back to the run record', async () => {
    const { p, applicantId, templateId } = fixture('test', ['document', 'liveness']);
    const created = await call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId } });
    const s = await settled(p, created.id);
    assert.deepEqual(s.idv, { capture_acquisition: 'camera', available_images: ['portrait', 'front', 'selfie'] });
    // the portrait deleted under retention drops out of the read
    evidence.get(s.id)!.artifacts = ['front', 'selfie'];
    assert.deepEqual((await call(p, SUBJECTS.sessionsGet, { id: s.id })).idv, { capture_acquisition: 'camera', available_images: ['front', 'selfie'] });
    evidenceFails = 1;
    assert.deepEqual((await call(p, SUBJECTS.sessionsGet, { id: s.id })).idv, { capture_acquisition: 'camera', available_images: ['portrait', 'front', 'selfie'] });
  });

  it('a run without an identity check stores no evidence and has no idv', async () => {
    const { p, applicantId, templateId } = fixture('test', ['watchlist']);
    const created = await call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId } });
    const s = await settled(p, created.id);
    assert.equal(s.status, 'completed');
    assert.equal(s.idv, undefined);
    assert.ok(!evidenceStores.includes(s.id));
  });

  it('an operator cancel during the run wins: the run is dropped, one cancelled event', async () => {
    const { p, applicantId, templateId } = fixture();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inRun = new Promise<void>((r) => (entered = r));
    evaluate = async () => {
      entered();
      await gate;
      return clean();
    };
    const created = await call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId } });
    await inRun;
    const cancelled = await call(p, SUBJECTS.sessionsCancel, { id: created.id, body: { reason: 'duplicate' } });
    assert.equal(cancelled.status, 'cancelled');
    release();
    await waitFor(async () => (await query(db.url, `SELECT 1 FROM sessions.jobs WHERE session_id = $1`, [created.id])).length === 0, 3000);
    const s = await call(p, SUBJECTS.sessionsGet, { id: created.id });
    assert.equal(s.status, 'cancelled');
    assert.equal(s.metadata.cancellationReason, 'duplicate');
    assert.deepEqual((await outboxOf(s.id)).map((r) => r.type), ['kyc.session.cancelled']);
    assert.equal((await query(db.url, `SELECT 1 FROM sessions.runs WHERE session_id = $1`, [s.id])).length, 0);
  });
});

describe('template pins', () => {
  it('a template change event makes the next create pin the new version and its signing requirements', async () => {
    const { p, applicantId, templateId } = fixture('test', ['document']);
    const body = { applicant_id: applicantId, workflow_template_id: templateId };
    assert.equal((await call(p, SUBJECTS.sessionsCreate, { body })).checks.length, 1);
    const t = templates.get(templateId)!;
    templates.set(templateId, { ...t, version: 4, checks: ['document', 'document_signing'], signing_document: { title: 'Lease', variables: ['amount', 'currency'] } });
    // without the event the cached pin stands (the bound is TEMPLATE_PIN_CACHE_TTL_MS)
    const cached = await call(p, SUBJECTS.sessionsCreate, { body });
    assert.deepEqual(cached.checks.map((c) => c.type), ['document']);
    // the event arrives before a create sent after it on the same connection
    rpc.publish(EVENTS.templateChanged, { template_id: templateId, org_id: p.org_id, mode: p.mode });
    const e = await refusal(call(p, SUBJECTS.sessionsCreate, { body }));
    assert.deepEqual([e.code, e.details?.reason], ['esign_requirements_not_met', 'esign_session_metadata_required']);
    const fresh = await call(p, SUBJECTS.sessionsCreate, { body: { ...body, metadata: { amount: 100, currency: 'EUR' } } });
    assert.deepEqual(fresh.checks.map((c) => c.type), ['document', 'document_signing']);
    const versions = await query<{ template_version: number }>(db.url, 'SELECT template_version FROM sessions.sessions WHERE org_id = $1 ORDER BY seq', [p.org_id]);
    assert.deepEqual(versions.map((r) => r.template_version), [3, 3, 4]);
  });

  it('a pin is cached per organization and mode: another owner of the same id still gets 404', async () => {
    const { p, applicantId, templateId } = fixture('test', ['document']);
    assert.equal((await call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId } })).status, 'pending');
    const other = fixture('test', ['document']);
    const e = await refusal(call(other.p, SUBJECTS.sessionsCreate, { body: { applicant_id: other.applicantId, workflow_template_id: templateId } }));
    assert.deepEqual([e.code, e.param], ['resource_not_found', 'workflow_template_id']);
  });
});

describe('crash recovery at start', () => {
  it('a process restarted picks up unfinished runs and unrelayed events', async () => {
    const { p, applicantId, templateId } = fixture('test', ['document']);
    await stopApp();
    // what a process that died after its commits leaves behind: a pending session with its job, and an event
    // committed but never published
    const pendingId = newId('session');
    const strandedId = newId('session');
    for (const id of [pendingId, strandedId]) {
      await query(
        db.url,
        `INSERT INTO sessions.sessions (id, org_id, mode, applicant_id, workflow_template_id, template_version, status, expected_outcome, checks, metadata)
         VALUES ($1, $2, 'test', $3, $4, 3, 'pending', 'review', '[{"type":"document","outcome":null}]', '{}')`,
        [id, p.org_id, applicantId, templateId],
      );
    }
    await query(db.url, `INSERT INTO sessions.jobs (kind, session_id, principal) VALUES ('test_run', $1, $2)`, [pendingId, JSON.stringify(p)]);
    await query(db.url, `UPDATE sessions.sessions SET status = 'cancelled' WHERE id = $1`, [strandedId]);
    const eventId = newId('event');
    const event: DomainEvent = {
      id: eventId,
      type: 'kyc.session.cancelled',
      timestamp: new Date().toISOString(),
      org_id: p.org_id,
      mode: 'test',
      data: { sessionId: strandedId, status: 'cancelled', outcome: null, occurredAt: new Date().toISOString() },
    };
    await query(db.url, `INSERT INTO sessions.outbox (event_id, session_id, type, event) VALUES ($1, $2, $3, $4)`, [
      eventId,
      strandedId,
      event.type,
      JSON.stringify(event),
    ]);
    await startApp();
    const s = await settled(p, pendingId);
    assert.equal(s.status, 'manual_review');
    await waitFor(async () => (await outboxOf(strandedId))[0]!.relayed_at !== null, 3000);
    await waitFor(async () => (await outboxOf(pendingId))[0]?.relayed_at, 3000);
    const msgs = await streamMessages();
    assert.equal(msgs.filter((m) => m.msgId === eventId).length, 1);
    assert.deepEqual(
      msgs.filter((m) => m.event.data.sessionId === pendingId).map((m) => m.event.type),
      ['kyc.session.manual_review_requested'],
    );
  });
});

describe('replicas', () => {
  it("two processes' relays started at once publish the outbox in its order, each event once (one relay at a time)", async () => {
    const { p } = fixture('test', ['document']);
    // a second process of the service beside this one, on the same database and NATS
    const second = await createServiceApp(SESSIONS_SERVICE, SessionsModule, cfg, log);
    try {
      // events of one session, committed together, then both relays started at the same moment: they race for the rows
      const sessionId = newId('session');
      const events = Array.from({ length: 600 }, (_, i) =>
        sessionEvent(p.org_id, 'test', i % 2 ? 'kyc.session.manual_review_requested' : 'kyc.session.completed', {
          data: { sessionId, status: 'completed', outcome: null, occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() },
        }),
      );
      await query(
        db.url,
        `INSERT INTO sessions.outbox (event_id, session_id, type, event)
         SELECT e->>'id', $1, e->>'type', e FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS t(e, n) ORDER BY n`,
        [sessionId, JSON.stringify(events)],
      );
      app!.get(Outbox).kick();
      second.get(Outbox).kick();
      await waitFor(async () => {
        const [r] = await query<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM sessions.outbox WHERE session_id = $1 AND relayed_at IS NULL`, [sessionId]);
        return r!.n === 0 ? true : undefined;
      }, 15_000);
      const onStream = (await streamMessages()).filter((m) => m.event.data.sessionId === sessionId);
      assert.deepEqual(
        onStream.map((m) => m.msgId),
        events.map((e) => e.id),
      );
    } finally {
      await second.close();
    }
  });
});

describe('outbox relay', () => {
  it('a backlog spanning several batches goes out whole, each session\'s events in the order they were written', async () => {
    const { p } = fixture('test', ['document']);
    await stopApp();
    // 5 sessions, 50 events each, interleaved: every batch of the relay holds events of all five
    const sessions = Array.from({ length: 5 }, () => newId('session'));
    const written = new Map<string, string[]>(sessions.map((id) => [id, []]));
    const rows: unknown[][] = [];
    for (let i = 0; i < 50; i++) {
      for (const sessionId of sessions) {
        const id = newId('event');
        written.get(sessionId)!.push(id);
        const at = new Date().toISOString();
        const event: DomainEvent = {
          id,
          type: 'kyc.session.manual_review_requested',
          timestamp: at,
          org_id: p.org_id,
          mode: 'test',
          data: { sessionId, status: 'manual_review', outcome: null, occurredAt: at },
        };
        rows.push([id, sessionId, event.type, JSON.stringify(event)]);
      }
    }
    await query(
      db.url,
      `INSERT INTO sessions.outbox (event_id, session_id, type, event)
       SELECT e, s, t, ev FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[]) WITH ORDINALITY AS r(e, s, t, ev, n) ORDER BY n`,
      [0, 1, 2, 3].map((c) => rows.map((r) => r[c])),
    );
    await startApp();
    await waitFor(async () => (await query(db.url, `SELECT 1 FROM sessions.outbox WHERE relayed_at IS NULL`)).length === 0, 10_000);
    const msgs = await streamMessages();
    for (const sessionId of sessions) {
      assert.deepEqual(
        msgs.filter((m) => m.event.data.sessionId === sessionId).map((m) => m.msgId),
        written.get(sessionId),
      );
    }
  });
});

describe('emails', () => {
  it('a live session invites the applicant (log-only transport here); a test session only logs the invitation', async () => {
    const live = fixture('live');
    const test = fixture('test');
    const l = await call(live.p, SUBJECTS.sessionsCreate, { body: { applicant_id: live.applicantId, workflow_template_id: live.templateId, expected_outcome: 'fail' } });
    const t = await call(test.p, SUBJECTS.sessionsCreate, { body: { applicant_id: test.applicantId, workflow_template_id: test.templateId } });
    const liveLog = await waitFor(async () => {
      const r = await call(null, SUBJECTS.sessionsEmailLog, { org_id: live.p.org_id });
      return r.data[0]?.status === 'sent' ? r : undefined;
    }, 3000);
    assert.equal(liveLog.data.length, 1);
    assert.equal(liveLog.data[0]!.session_id, l.id);
    assert.equal(liveLog.data[0]!.mode, 'live');
    assert.equal(liveLog.data[0]!.recipient, 'j***@e***.com');
    assert.equal(liveLog.data[0]!.template, 'session_invite');
    assert.ok(liveLog.data[0]!.sent_at);
    const testLog = await call(null, SUBJECTS.sessionsEmailLog, { org_id: test.p.org_id, limit: 5 });
    assert.deepEqual(
      testLog.data.map((e) => [e.session_id, e.status, e.sent_at]),
      [[t.id, 'suppressed', null]],
    );
    // a live session waits for the applicant; its expected_outcome was dropped
    assert.equal((await call(live.p, SUBJECTS.sessionsGet, { id: l.id })).status, 'pending');
    const [row] = await query<{ expected_outcome: string | null }>(db.url, `SELECT expected_outcome FROM sessions.sessions WHERE id = $1`, [l.id]);
    assert.equal(row!.expected_outcome, null);
    // nothing of the address but the mask is stored
    const stored = JSON.stringify(await query(db.url, `SELECT * FROM sessions.email_log`));
    assert.ok(!stored.includes('jane@example.com'));
  });

  it('no email address, no invitation and no log row', async () => {
    const { p, applicantId, templateId } = fixture('live', ['document'], null);
    await call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId } });
    assert.deepEqual((await call(null, SUBJECTS.sessionsEmailLog, { org_id: p.org_id })).data, []);
  });

  it('the email log refuses a bad request', async () => {
    assert.equal((await refusal(call(null, SUBJECTS.sessionsEmailLog, { org_id: 'nope' }))).code, 'validation_error');
    assert.equal((await refusal(call(null, SUBJECTS.sessionsEmailLog, { org_id: newId('org'), limit: 0 }))).code, 'validation_error');
  });
});

describe('refusals write nothing', () => {
  it('esign, unknown ids and bad metadata leave no session, job, email or event', async () => {
    const { p, applicantId, templateId } = fixture('test', ['document', 'document_signing']);
    const before = await query(db.url, `SELECT count(*)::int AS n FROM sessions.sessions`);
    const esign = await refusal(call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId, metadata: { currency: 'EUR' } } }));
    assert.equal(esign.code, 'esign_requirements_not_met');
    assert.deepEqual(esign.details, { reason: 'esign_session_metadata_required', missing_keys: ['metadata.start_datetime', 'metadata.amount'] });
    const other = fixture('test');
    // another organization's applicant and template do not exist for this caller
    assert.equal((await refusal(call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: other.applicantId, workflow_template_id: templateId } }))).param, 'applicant_id');
    assert.equal((await refusal(call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: other.templateId } }))).param, 'workflow_template_id');
    assert.equal((await refusal(call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId, metadata: { amount: 5 } } }))).code, 'validation_error');
    const afterCount = await query(db.url, `SELECT count(*)::int AS n FROM sessions.sessions`);
    assert.deepEqual(afterCount, before);
    assert.deepEqual(await query(db.url, `SELECT 1 FROM sessions.email_log WHERE org_id = $1`, [p.org_id]), []);
  });
});

describe("the console's list (sessions.console.list.v1)", () => {
  it("lists the principal's organization and mode only, filtered by status, check and result, days and applicants", async () => {
    const { p, applicantId, templateId } = fixture('test', ['document', 'face_match']);
    const passed = await call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: 'pass' } });
    const review = await call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: 'review' } });
    await settled(p, passed.id);
    await settled(p, review.id);
    const other = fixture('test');
    await call(other.p, SUBJECTS.sessionsCreate, { body: { applicant_id: other.applicantId, workflow_template_id: other.templateId } });
    const userId = newId('consoleUser');
    const person = { ...p, key_id: userId, actor: { user_id: userId, role: 'developer' as const } };
    const consoleRpc = new RpcClient(nc, root, 5000, { signer: testSigner('console') });
    const list = (req: Record<string, unknown>, who: Principal = person) => consoleRpc.call(SUBJECTS.sessionsConsoleList, req, { principal: who, requestId: 'req_int_console_list' });
    const ids = async (req: Record<string, unknown>) => (await list(req)).data.map((s) => s.id);
    const today = new Date().toISOString().slice(0, 10);

    assert.deepEqual(await ids({ org_id: other.p.org_id }), [review.id, passed.id], 'newest first, the principal\'s organization whatever the request names');
    assert.deepEqual(await ids({ status: 'manual_review' }), [review.id]);
    assert.deepEqual(await ids({ check: 'face_match', check_outcome: 'review' }), [review.id]);
    assert.deepEqual(await ids({ check: 'liveness' }), []);
    assert.deepEqual(await ids({ created_from: today, created_to: today }), [review.id, passed.id]);
    assert.deepEqual(await ids({ created_to: '2020-01-01' }), []);
    assert.deepEqual(await ids({ applicant_ids: [other.applicantId] }), []);
    assert.deepEqual(await ids({ applicant_ids: [] }), [], 'a name search that matched nobody matches nothing');
    assert.deepEqual(await ids({ applicant_ids: [applicantId], limit: 1 }), [review.id]);
    assert.deepEqual((await list({}, { ...person, mode: 'live' })).data, [], 'the other mode has none');
    for (const bad of [{ status: 'nope' }, { check_outcome: 'pass' }, { created_from: '2020-02-31' }, { applicant_ids: Array.from({ length: 201 }, () => applicantId) }]) {
      assert.equal((await refusal(list(bad))).code, 'validation_error', JSON.stringify(bad).slice(0, 60));
    }
    // only the console, for a person
    assert.equal((await refusal(call(p, SUBJECTS.sessionsConsoleList, {}))).code, 'internal_error');
  });
});
