/**
 * The console's reads in the sessions service (docs/sessions.md, "Usage and timeline (console)"), against real Postgres and NATS:
 * the metering counters every create writes (kept by the test-data purge and an erasure), `sessions.admin.usage.v1`
 * over them, their back-fill by the migration, and `sessions.timeline.v1`. The services sessions calls (applicants,
 * templates, screening, evidence, accounts) are played by responders on their subjects.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  eventStreamName,
  SUBJECTS,
  type Applicant,
  type CheckType,
  type Principal,
  type ReqOf,
  type ResOf,
  type Session,
  type Subject,
  type TemplateVersion,
  type UsageRow,
} from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { newId } from '@verity/keys';
import { createLogger, RpcServer } from '@verity/platform';
import { cloneTestDatabase, query, refusal, startServiceUnderTest, testPrincipal, waitFor, type ServiceUnderTest, testPrincipalVerifier } from '@verity/testing';
import type { QueryRunner } from 'typeorm';
import { SessionsModule } from '../src/app.module.js';
import { SESSIONS_SERVICE, sessionsEnv } from '../src/config.js';
import { UsageDaily1764300000000 } from '../src/database/migrations/1764300000000-UsageDaily.js';
import { SessionsRepository, type NewSession } from '../src/sessions/sessions.repository.js';
import { acceptEveryDebit, cleanScreening, NO_DOCUMENT_POLICY } from './peers.js';

let svc: ServiceUnderTest<unknown>;
let peers: RpcServer;

/** Applicants and templates by owner and id. */
const applicants = new Map<string, Applicant>();
const templates = new Map<string, TemplateVersion>();
const key = (p: { org_id: string; mode: string } | null | undefined, id: string) => `${p?.org_id}:${p?.mode}:${id}`;

before(async () => {
  svc = await startServiceUnderTest({
    def: SESSIONS_SERVICE,
    module: SessionsModule,
    env: sessionsEnv,
    vars: { CAPTURE_SECRET_KEY: 'sessions-usage-int-capture-key-0123456789', JOBS_POLL_MS: '200', OUTBOX_POLL_MS: '200' },
  });
  peers = new RpcServer(svc.nc, svc.root, 'peers', createLogger('sessions-usage-int', 'us', 'silent'), { principals: testPrincipalVerifier() });
  peers.handle(SUBJECTS.applicantsGet, async (p, ctx) => applicants.get(key(ctx.principal, p.id)) ?? Promise.reject(DomainError.notFound()));
  peers.handle(SUBJECTS.templatesVersion, async (p, ctx) => templates.get(key(ctx.principal, p.id)) ?? Promise.reject(DomainError.notFound()));
  acceptEveryDebit(peers);
  peers.handle(SUBJECTS.screeningEvaluate, async () => cleanScreening());
  peers.handle(SUBJECTS.evidenceStoreSynthetic, async (p) => ({ capture_acquisition: p.capture_acquisition, available_images: p.artifacts }));
  peers.handle(SUBJECTS.evidenceAvailable, async () => ({ capture_acquisition: null, available_images: [] }));
  await svc.nc.flush();
});

after(async () => {
  await peers?.close();
  if (svc) await (await jetstreamManager(svc.nc)).streams.delete(eventStreamName(svc.root)).catch(() => undefined);
  await svc?.close();
});

function call<S extends Subject>(p: Principal | null, subject: S, payload: ReqOf<S>): Promise<ResOf<S>> {
  return svc.rpc.call(subject, payload, { principal: p, requestId: 'req_int_usage' });
}

function owner(orgId: string, mode: 'test' | 'live'): Principal {
  return testPrincipal({ org_id: orgId, mode, scopes: ['sessions:read', 'sessions:write'] });
}

/** An applicant (without an email address: no invitation) and a template of the given checks, of the principal's owner. */
function fixture(p: Principal, checks: CheckType[]): { applicantId: string; templateId: string } {
  const applicantId = newId('applicant');
  applicants.set(key(p, applicantId), {
    id: applicantId, object: 'applicant', mode: p.mode, family_name: 'Doe', given_names: ['Jane'], name_suffix: null, email: null,
    phone: null, date_of_birth: '1990-01-01', address: { country: 'DE' }, external_id: null, erased: false, created_at: new Date().toISOString(),
  });
  const templateId = newId('workflowTemplate');
  templates.set(key(p, templateId), {
    id: templateId, mode: p.mode, name: 'KYC', version: 1, checks, screening_rules: [], metadata: {}, device_intelligence: false,
    photo_upload: false, review_threshold: 0.5, signing_document: null, ...NO_DOCUMENT_POLICY,
  });
  return { applicantId, templateId };
}

function create(p: Principal, f: { applicantId: string; templateId: string }, body: Record<string, unknown> = {}): Promise<Session> {
  return call(p, SUBJECTS.sessionsCreate, { body: { applicant_id: f.applicantId, workflow_template_id: f.templateId, ...body } });
}

function resting(p: Principal, id: string, statuses = ['completed', 'manual_review', 'errored']): Promise<Session> {
  return waitFor(async () => {
    const s = await call(p, SUBJECTS.sessionsGet, { id });
    return statuses.includes(s.status) ? s : undefined;
  }, 10_000);
}

function usage(orgId: string, from: string, to: string): Promise<{ data: UsageRow[] }> {
  return call(null, SUBJECTS.sessionsUsage, { org_id: orgId, from, to });
}

/** The UTC day of an instant of the API. */
const dayOf = (iso: string) => iso.slice(0, 10);

/** The day `n` days after `day`. */
function shift(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/** The counters `sessions` make: one per check of each, by UTC day of creation and mode; ordered by day, mode, check. */
function expected(sessions: Session[]): UsageRow[] {
  const counts = new Map<string, UsageRow>();
  for (const s of sessions) {
    for (const c of s.checks) {
      const row = { day: dayOf(s.created_at), mode: s.mode, check: c.type, count: 0 };
      const k = `${row.day} ${row.mode} ${row.check}`;
      (counts.get(k) ?? counts.set(k, row).get(k)!).count += 1;
    }
  }
  return [...counts.keys()].sort().map((k) => counts.get(k)!);
}

/** The days `sessions` were created on, first and last. */
function span(sessions: Session[]): [string, string] {
  const days = sessions.map((s) => dayOf(s.created_at)).sort();
  return [days[0]!, days.at(-1)!];
}

const pause = () => new Promise((r) => setTimeout(r, 5));

describe('metering and sessions.admin.usage.v1', () => {
  it('counts every create once per check, by UTC day and mode; another organization\'s are not included', async () => {
    const orgId = newId('org');
    const test = owner(orgId, 'test');
    const live = owner(orgId, 'live');
    const t = fixture(test, ['document', 'face_match', 'watchlist']);
    const l = fixture(live, ['document', 'liveness']);
    const other = owner(newId('org'), 'test');
    const o = fixture(other, ['document', 'watchlist']);
    const made = [...(await Promise.all(Array.from({ length: 12 }, () => create(test, t)))), await create(live, l), await create(live, l)];
    const theirs = await create(other, o);

    const [from, to] = span(made);
    const mine = (await usage(orgId, from, to)).data;
    // in order: by day, then live before test, then check
    assert.deepEqual(mine, expected(made));
    assert.deepEqual((await usage(other.org_id, dayOf(theirs.created_at), dayOf(theirs.created_at))).data, expected([theirs]));
    // the day before: nothing
    assert.deepEqual((await usage(orgId, shift(from, -1), shift(from, -1))).data, []);
  });

  it('answers the days of the range that have counts, by day, mode and check; the ends are included', async () => {
    const orgId = newId('org');
    await query(
      svc.db.url,
      `INSERT INTO sessions.usage_daily (org_id, mode, day, "check", count) VALUES
         ($1, 'test', '2026-01-03', 'document', 4), ($1, 'live', '2026-01-03', 'watchlist', 1), ($1, 'test', '2026-01-01', 'liveness', 2),
         ($1, 'live', '2026-01-06', 'document', 9), ($1, 'live', '2025-12-31', 'document', 9)`,
      [orgId],
    );
    assert.deepEqual((await usage(orgId, '2026-01-01', '2026-01-05')).data, [
      { day: '2026-01-01', mode: 'test', check: 'liveness', count: 2 },
      { day: '2026-01-03', mode: 'live', check: 'watchlist', count: 1 },
      { day: '2026-01-03', mode: 'test', check: 'document', count: 4 },
    ]);
    assert.deepEqual((await usage(orgId, '2026-01-06', '2026-01-06')).data, [{ day: '2026-01-06', mode: 'live', check: 'document', count: 9 }]);
    // a whole leap year is one range
    assert.equal((await usage(orgId, '2025-02-01', '2026-02-01')).data.length, 5);
  });

  it('a create that writes nothing counts nothing: refused, past its deadline, or failing in the statement', async () => {
    const orgId = newId('org');
    const test = owner(orgId, 'test');
    const f = fixture(test, ['document', 'watchlist']);
    const first = await create(test, f);
    const counts = async () => (await usage(orgId, shift(dayOf(first.created_at), -1), shift(dayOf(first.created_at), 1))).data;
    const before = await counts();
    assert.deepEqual(before, expected([first]));

    // refused before the write (another organization's template)
    const e = await refusal(create(test, { applicantId: f.applicantId, templateId: fixture(owner(newId('org'), 'test'), ['document']).templateId }));
    assert.equal(e.param, 'workflow_template_id');
    // through the create statement itself
    const repo = svc.app.get(SessionsRepository);
    const session = (id: string): NewSession => ({
      id, applicant_id: f.applicantId, workflow_template_id: f.templateId, template_version: 1, expected_outcome: 'pass', checks: ['document', 'watchlist'],
      metadata: {}, capture: null, photo_upload: false, device_intelligence: false, now: new Date(),
    });
    // the deadline passed before the statement ran: nothing written
    assert.equal(await repo.create(test, session(newId('session')), null, null, new Date(Date.now() - 1000)), null);
    // the statement fails (the id is taken): rolled back whole, counters included
    await assert.rejects(repo.create(test, session(first.id), null, null, new Date(Date.now() + 5000)), /duplicate key/);
    assert.deepEqual(await counts(), before);
    // and one that is written counts
    const written = await repo.create(test, session(newId('session')), null, null, new Date(Date.now() + 5000));
    assert.ok(written);
    assert.deepEqual(await counts(), expected([first, { ...first, created_at: written.created_at.toISOString() }]));
  });

  it('creates written together by one statement add up in the counters they share; a failing one counts nothing', async () => {
    const test = owner(newId('org'), 'test');
    const f = fixture(test, ['document', 'liveness']);
    const repo = svc.app.get(SessionsRepository);
    const session = (id: string): NewSession => ({
      id, applicant_id: f.applicantId, workflow_template_id: f.templateId, template_version: 1, expected_outcome: 'pass', checks: ['document', 'liveness'],
      metadata: {}, capture: null, photo_upload: false, device_intelligence: false, now: new Date(),
    });
    const deadline = () => new Date(Date.now() + 5000);
    // the create statements run, counted (the batch is one statement; should it fail, each create is retried alone)
    const db = repo.db;
    const prepared = db.prepared;
    let statements = 0;
    db.prepared = ((name: string, text: string, params?: unknown[]) => {
      if (name === 'sessions_create') statements += 1;
      return prepared.call(db, name, text, params);
    }) as typeof db.prepared;
    try {
      // created in one turn of the event loop: one batch, one statement, each counter touched once
      const ten = await Promise.all(Array.from({ length: 10 }, () => repo.create(test, session(newId('session')), null, null, deadline())));
      assert.equal(statements, 1, 'the ten were written by one statement');
      const written = ten.map((r) => ({ mode: r!.mode, created_at: r!.created_at.toISOString(), checks: r!.checks }) as Session);
      const [from, to] = span(written);
      assert.deepEqual((await usage(test.org_id, from, to)).data, expected(written));

      // one create of a batch fails (its id is taken): the batch rolls back and goes again one by one; the failing one counts nothing
      statements = 0;
      const taken = ten[0]!.id;
      const results = await Promise.allSettled([taken, newId('session'), newId('session')].map((id) => repo.create(test, session(id), null, null, deadline())));
      assert.equal(statements, 4, 'the batch, then each alone');
      assert.deepEqual(results.map((r) => r.status), ['rejected', 'fulfilled', 'fulfilled']);
      const more = results.flatMap((r) => (r.status === 'fulfilled' ? [{ mode: r.value!.mode, created_at: r.value!.created_at.toISOString(), checks: r.value!.checks } as Session] : []));
      const all = [...written, ...more];
      assert.deepEqual((await usage(test.org_id, ...span(all))).data, expected(all));
    } finally {
      db.prepared = prepared;
    }
  });

  it('the test-data purge and an erasure keep the counters', async () => {
    const orgId = newId('org');
    const test = owner(orgId, 'test');
    const live = owner(orgId, 'live');
    const t = fixture(test, ['document', 'face_match']);
    const l = fixture(live, ['document', 'liveness']);
    const made = [await create(test, t, { expected_outcome: 'pass' }), await create(test, t, { expected_outcome: 'review' }), await create(live, l)];
    await resting(test, made[0]!.id);
    await resting(test, made[1]!.id);
    const [from, to] = span(made);
    const before = (await usage(orgId, from, to)).data;
    assert.deepEqual(before, expected(made));

    const purged = await call(null, SUBJECTS.sessionsPurgeTestData, { org_id: orgId });
    assert.equal(purged.removed.sessions, 2);
    assert.equal((await refusal(call(test, SUBJECTS.sessionsGet, { id: made[0]!.id }))).code, 'resource_not_found');
    const erased = await call(live, SUBJECTS.sessionsPrivacyErase, { applicant_id: l.applicantId, session_ids: [] });
    assert.deepEqual(erased.session_ids, [made[2]!.id]);
    assert.equal(erased.erased.sessions, 1);

    assert.deepEqual((await usage(orgId, from, to)).data, before);
  });

  it('refuses a bad request with the field at fault, and a call with a principal', async () => {
    const orgId = newId('org');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ org_id: 'org_nope', from: '2026-01-01', to: '2026-01-02' }, 'org_id'],
      [{ from: '2026-01-01', to: '2026-01-02' }, 'org_id'],
      [{ org_id: orgId, from: '2026-02-30', to: '2026-03-01' }, 'from'],
      [{ org_id: orgId, from: 20260101, to: '2026-03-01' }, 'from'],
      [{ org_id: orgId, from: '2026-01-01', to: '2026/03/01' }, 'to'],
      [{ org_id: orgId, from: '2026-01-01' }, 'to'],
      [{ org_id: orgId, from: '2026-03-02', to: '2026-03-01' }, 'to'],
      [{ org_id: orgId, from: '2025-01-01', to: '2026-01-02' }, 'to'],
    ];
    for (const [req, param] of cases) {
      const e = await refusal(call(null, SUBJECTS.sessionsUsage, req as unknown as ReqOf<typeof SUBJECTS.sessionsUsage>));
      assert.deepEqual([e.code, e.param], ['validation_error', param], JSON.stringify(req));
    }
    // an operator subject: a call carrying a principal came from the wrong caller
    assert.equal((await refusal(call(owner(orgId, 'test'), SUBJECTS.sessionsUsage, { org_id: orgId, from: '2026-01-01', to: '2026-01-01' }))).code, 'internal_error');
  });

  it('the migration back-fills the counters from the sessions there, by UTC day whatever the connection\'s time zone', async () => {
    const db = await cloneTestDatabase('sessions-usage-backfill');
    try {
      // the schema before the migration, with sessions an earlier release wrote
      await query(db.url, `DROP TABLE sessions.usage_daily`);
      const [a, b] = [newId('org'), newId('org')];
      const rows: Array<[string, 'test' | 'live', string, CheckType[]]> = [
        [a, 'test', '2026-03-14T23:59:59.999Z', ['document', 'face_match']],
        [a, 'test', '2026-03-15T00:00:00.000Z', ['document']],
        [a, 'test', '2026-03-14T01:00:00.000+02:00', ['document']],
        [a, 'live', '2026-03-14T10:00:00.000Z', ['document', 'document']],
        [b, 'test', '2026-03-14T10:00:00.000Z', ['watchlist']],
      ];
      for (const [org, mode, at, checks] of rows) {
        await query(
          db.url,
          `INSERT INTO sessions.sessions (id, org_id, mode, applicant_id, workflow_template_id, template_version, status, expected_outcome, checks, metadata, created_at)
           VALUES ($1, $2, $3, $4, $5, 1, 'completed', $6, $7, '{}', $8)`,
          [newId('session'), org, mode, newId('applicant'), newId('workflowTemplate'), mode === 'test' ? 'pass' : null, JSON.stringify(checks.map((type) => ({ type, outcome: 'pass' }))), at],
        );
      }
      const statements: string[] = [];
      await new UsageDaily1764300000000().up({ query: async (sql: string) => void statements.push(sql) } as unknown as QueryRunner);
      await query(db.url, `BEGIN; SET LOCAL TIME ZONE 'Pacific/Kiritimati'; ${statements.join(';\n')}; COMMIT`);
      const counters = await query<{ org_id: string; mode: string; day: string; check: string; count: string }>(
        db.url,
        `SELECT org_id, mode, to_char(day, 'YYYY-MM-DD') AS day, "check", count FROM sessions.usage_daily ORDER BY org_id = $1 DESC, day, mode, "check"`,
        [a],
      );
      assert.deepEqual(
        counters.map((r) => [r.org_id === a ? 'a' : 'b', r.mode, r.day, r.check, Number(r.count)]),
        [
          // 01:00 at UTC+2 is the 13th in UTC (and the 14th where the connection is)
          ['a', 'test', '2026-03-13', 'document', 1],
          // the same check twice in one session counts once
          ['a', 'live', '2026-03-14', 'document', 1],
          ['a', 'test', '2026-03-14', 'document', 1],
          ['a', 'test', '2026-03-14', 'face_match', 1],
          // the first instant of the 15th in UTC
          ['a', 'test', '2026-03-15', 'document', 1],
          ['b', 'test', '2026-03-14', 'watchlist', 1],
        ],
      );
    } finally {
      await db.drop();
    }
  });
});

describe('sessions.timeline.v1', () => {
  it('a session created, sent to review, noted and decided: those entries, oldest first', async () => {
    const live = owner(newId('org'), 'live');
    const f = fixture(live, ['document']);
    const s = await create(live, f);
    await pause();
    const reviewed = await call(live, SUBJECTS.sessionsReview, { id: s.id, body: { reason: 'the photo is blurred' } });
    await pause();
    const noted = await call(live, SUBJECTS.sessionsNote, { id: s.id, body: { note: 'called the applicant' } });
    await pause();
    const decided = await call(live, SUBJECTS.sessionsDecision, { id: s.id, body: { outcome: 'approved' } });
    const notes = noted.metadata.operatorNotes as Array<{ note: string; created_at: string }>;

    assert.deepEqual((await call(live, SUBJECTS.sessionsTimeline, { id: s.id })).data, [
      { kind: 'created', type: null, text: null, at: s.created_at },
      { kind: 'event', type: 'kyc.session.manual_review_requested', text: 'manual_review', at: reviewed.updated_at },
      { kind: 'note', type: null, text: 'called the applicant', at: notes[0]!.created_at },
      { kind: 'event', type: 'kyc.session.completed', text: 'completed', at: decided.updated_at },
    ]);
  });

  it('a test session run to its end: created, then the event its run delivered', async () => {
    const test = owner(newId('org'), 'test');
    const s = await create(test, fixture(test, ['document', 'watchlist']), { expected_outcome: 'fail' });
    const done = await resting(test, s.id);
    assert.deepEqual((await call(test, SUBJECTS.sessionsTimeline, { id: s.id })).data, [
      { kind: 'created', type: null, text: null, at: s.created_at },
      { kind: 'event', type: 'kyc.session.completed', text: 'completed', at: done.updated_at },
    ]);
  });

  it('an erased session keeps its events and loses its notes', async () => {
    const live = owner(newId('org'), 'live');
    const f = fixture(live, ['document']);
    const s = await create(live, f);
    await call(live, SUBJECTS.sessionsNote, { id: s.id, body: { note: 'personal remark' } });
    assert.deepEqual((await call(live, SUBJECTS.sessionsTimeline, { id: s.id })).data.map((e) => e.kind), ['created', 'note']);
    await call(live, SUBJECTS.sessionsPrivacyErase, { applicant_id: f.applicantId, session_ids: [] });
    const cancelled = await call(live, SUBJECTS.sessionsGet, { id: s.id });
    assert.deepEqual((await call(live, SUBJECTS.sessionsTimeline, { id: s.id })).data, [
      { kind: 'created', type: null, text: null, at: s.created_at },
      { kind: 'event', type: 'kyc.session.cancelled', text: 'cancelled', at: cancelled.updated_at },
    ]);
  });

  it("another organization's or mode's session, a malformed id and an unknown one are all 404", async () => {
    const orgId = newId('org');
    const live = owner(orgId, 'live');
    const s = await create(live, fixture(live, ['document']));
    for (const [p, id] of [
      [owner(newId('org'), 'live'), s.id],
      [owner(orgId, 'test'), s.id],
      [live, 'ses_nope'],
      [live, 42 as unknown as string],
      [live, newId('session')],
    ] as const) {
      const e = await refusal(call(p, SUBJECTS.sessionsTimeline, { id }));
      assert.deepEqual([e.code, e.param], ['resource_not_found', undefined], `${p.org_id} ${p.mode} ${id}`);
    }
    // principal-scoped: without one there is no owner to scope by
    assert.equal((await refusal(call(null, SUBJECTS.sessionsTimeline, { id: s.id }))).code, 'internal_error');
    assert.equal((await call(live, SUBJECTS.sessionsTimeline, { id: s.id })).data.length, 1);
  });
});
