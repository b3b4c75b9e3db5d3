import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { EVENTS, qualify, SUBJECTS, type EvaluationContextWire, type Principal, type ReqOf, type ResOf, type RpcReply, type Subject, type WorkflowTemplate } from '@verity/contracts';
import { type DomainError, type ErrorData } from '@verity/errors';
import { decodeJson, encodeJson, RpcClient } from '@verity/platform';
import { query, refusal, type ServiceApp, type ServiceUnderTest, startServiceUnderTest, testPrincipal, testSigner } from '@verity/testing';
import { ScreeningModule } from '../src/app.module.js';
import { SCREENING_SERVICE, screeningEnv } from '../src/config.js';
import { EvaluationService } from '../src/evaluation/evaluation.service.js';


let db: ServiceUnderTest<unknown>['db'];
let app: ServiceApp;
let nc: NatsConnection;
let rpc: RpcClient;
let root: string;
let svc: ServiceUnderTest<unknown> | undefined;

before(async () => {
  svc = await startServiceUnderTest({ def: SCREENING_SERVICE, module: ScreeningModule, env: screeningEnv, vars: { SCREENING_RULESET_CACHE_SIZE: '50' } });
  ({ db, app, nc, rpc, root } = svc);
});

after(() => svc?.close());

function principal(mode: 'test' | 'live' = 'test', org = `org_${randomBytes(12).toString('hex')}`): Principal {
  return testPrincipal({ org_id: org, mode, scopes: ['workflows:read', 'workflows:write'] });
}

function call<S extends Subject>(p: Principal, subject: S, payload: ReqOf<S>): Promise<ResOf<S>> {
  return rpc.call(subject, payload, { principal: p, requestId: 'req_int' });
}

const reviewOnFindings = {
  name: 'any finding',
  ruleType: 'watchlist_hit',
  condition: { kind: 'field', field: 'finding.count', operator: 'gte', value: 1 },
  action: 'review',
};

const context = (over: Partial<EvaluationContextWire> = {}): EvaluationContextWire => ({
  applicant: { familyName: 'Doe', givenNames: ['Jane'], dateOfBirth: '1990-01-01' },
  findings: [{ id: 'f1', subjectType: 'person', severity: 'high', sourceAuthority: 'OFAC', findingType: 'sanctions', evidence: {} }],
  checks: { document: 'pass' },
  now: new Date().toISOString(),
  ...over,
});

async function versionRows(id: string) {
  return query<{ version: number; name: string; screening_rules: unknown[]; metadata: unknown }>(
    db.url,
    'SELECT version, name, screening_rules, metadata FROM screening.template_versions WHERE template_id = $1 ORDER BY version',
    [id],
  );
}

describe('screening service: templates', () => {
  it('creates version 1 with the defaults, stores the template and its snapshot', async () => {
    const p = principal();
    const t = await call(p, SUBJECTS.templatesCreate, { body: { name: 'Onboarding', screening_rules: [reviewOnFindings] } });
    assert.match(t.id, /^wft_[A-Za-z0-9]{24}$/);
    assert.deepEqual({ ...t, id: 'x', created_at: 'x', updated_at: 'x' }, {
      id: 'x',
      object: 'workflow_template',
      mode: 'test',
      name: 'Onboarding',
      version: 1,
      checks: [],
      screening_rules: [{ ...reviewOnFindings, priority: 100, isActive: true }],
      metadata: {},
      device_intelligence: false,
      photo_upload: false,
      review_threshold: 0.5,
      signing_document: null,
      minimum_age: null,
      accepted_document_types: null,
      accepted_issuing_countries: null,
      applicant_mismatch: 'review',
      thresholds: {},
      watchlist_thresholds: {},
      created_at: 'x',
      updated_at: 'x',
    });
    assert.equal(t.created_at, t.updated_at);
    const [row] = await query(db.url, 'SELECT org_id, mode, current_version FROM screening.templates WHERE id = $1', [t.id]);
    assert.deepEqual(row, { org_id: p.org_id, mode: 'test', current_version: 1 });
    assert.deepEqual(await call(p, SUBJECTS.templatesGet, { id: t.id }), t);
  });

  it('keeps metadata exactly as sent (member order, astral characters); NUL and unpaired surrogates are refused', async () => {
    const p = principal();
    const metadata = { zeta: 1, alpha: { b: 2, a: 1 }, emoji: '😀', escaped: 'a\\u0000b' };
    const t = await call(p, SUBJECTS.templatesCreate, { body: { name: 'Exact', metadata } });
    const read = await call(p, SUBJECTS.templatesGet, { id: t.id });
    assert.equal(JSON.stringify(read.metadata), JSON.stringify(metadata));
    for (const bad of [{ nul: 'a\u0000b' }, { lone: '\ud800' }]) {
      await assert.rejects(call(p, SUBJECTS.templatesCreate, { body: { name: 'Text', metadata: bad } }), (e: DomainError) => {
        assert.equal(e.code, 'validation_error');
        assert.equal(e.param, 'metadata');
        return true;
      });
    }
  });

  it('every accepted PATCH writes the next immutable version; rules replace, omitted stay, [] clears', async () => {
    const p = principal();
    const t = await call(p, SUBJECTS.templatesCreate, { body: { name: 'v1', checks: ['document'], screening_rules: [reviewOnFindings], metadata: { a: 1 } } });

    const v2 = await call(p, SUBJECTS.templatesUpdate, { id: t.id, body: { name: 'v2', metadata: { b: 2 } } });
    assert.equal(v2.version, 2);
    assert.equal(v2.name, 'v2');
    assert.deepEqual(v2.metadata, { b: 2 }, 'metadata is replaced, not merged');
    assert.deepEqual(v2.screening_rules, t.screening_rules, 'omitted rules stay');
    assert.deepEqual(v2.checks, ['document']);
    assert.equal(v2.created_at, t.created_at);
    assert.ok(v2.updated_at >= t.updated_at);

    const tagRule = { name: 'tag it', ruleType: 'custom', condition: { kind: 'field', field: 'check.document.outcome', operator: 'eq', value: 'pass' }, action: 'tag', priority: 7 };
    const v3 = await call(p, SUBJECTS.templatesUpdate, { id: t.id, body: { screening_rules: [tagRule] } });
    assert.deepEqual(v3.screening_rules, [{ ...tagRule, isActive: true }], 'sent rules replace the whole set');
    const v4 = await call(p, SUBJECTS.templatesUpdate, { id: t.id, body: { screening_rules: [] } });
    assert.deepEqual(v4.screening_rules, []);
    assert.equal(v4.version, 4);

    const rows = await versionRows(t.id);
    assert.deepEqual(
      rows.map((r) => [r.version, r.name, (r.screening_rules as { name: string }[]).map((x) => x.name)]),
      [
        [1, 'v1', ['any finding']],
        [2, 'v2', ['any finding']],
        [3, 'v2', ['tag it']],
        [4, 'v2', []],
      ],
    );
    const [tpl] = await query(db.url, 'SELECT current_version FROM screening.templates WHERE id = $1', [t.id]);
    assert.equal(tpl!.current_version, 4);
    // a stored version cannot be changed, even by a statement that reaches the table
    await assert.rejects(query(db.url, `UPDATE screening.template_versions SET name = 'x' WHERE template_id = $1`, [t.id]), /immutable/);
  });

  it('a refused PATCH saves nothing and the previous rules stay readable', async () => {
    const p = principal();
    const t = await call(p, SUBJECTS.templatesCreate, { body: { name: 'keep', screening_rules: [reviewOnFindings] } });
    const bodies: unknown[] = [
      { screening_rules: [{ ...reviewOnFindings, action: 'decline', ruleType: 'credit_history' }] },
      { screening_rules: [{ ...reviewOnFindings, condition: { kind: 'group', op: 'OR', children: [{ kind: 'field', field: 'applicant.shoeSize', operator: 'exists' }] } }] },
      { name: 'renamed', screening_rules: Array.from({ length: 101 }, () => reviewOnFindings) },
      { name: 'renamed', checks: ['document_signing'] },
      { name: 'renamed', colour: 'red' },
      {},
    ];
    const codes: string[] = [];
    for (const body of bodies) codes.push((await refusal(call(p, SUBJECTS.templatesUpdate, { id: t.id, body }))).code);
    assert.deepEqual(codes, ['validation_error', 'validation_error', 'validation_error', 'esign_requirements_not_met', 'validation_error', 'validation_error']);
    assert.deepEqual(await call(p, SUBJECTS.templatesGet, { id: t.id }), t);
    assert.equal((await versionRows(t.id)).length, 1);
  });

  it('the document policy is saved, versioned and pinned like every field; a wrong value saves nothing', async () => {
    const p = principal('live');
    const t = await call(p, SUBJECTS.templatesCreate, {
      body: { name: 'Adults', checks: ['document', 'face_match'], minimum_age: 18, accepted_document_types: ['passport'], accepted_issuing_countries: ['FI', 'SE'], thresholds: { faceMatchPass: 0.7, faceMatchReview: 0.55 } },
    });
    assert.deepEqual(
      [t.minimum_age, t.accepted_document_types, t.accepted_issuing_countries, t.applicant_mismatch, t.thresholds],
      [18, ['passport'], ['FI', 'SE'], 'review', { faceMatchPass: 0.7, faceMatchReview: 0.55 }],
    );
    const v2 = await call(p, SUBJECTS.templatesUpdate, { id: t.id, body: { minimum_age: 21, applicant_mismatch: 'fail', accepted_issuing_countries: null } });
    assert.deepEqual([v2.version, v2.minimum_age, v2.applicant_mismatch, v2.accepted_issuing_countries, v2.accepted_document_types, v2.thresholds], [2, 21, 'fail', null, ['passport'], { faceMatchPass: 0.7, faceMatchReview: 0.55 }]);
    // a session pinned to version 1 keeps its policy
    const v1 = await call(p, SUBJECTS.templatesVersion, { id: t.id, version: 1 });
    assert.deepEqual([v1.minimum_age, v1.applicant_mismatch, v1.accepted_issuing_countries], [18, 'review', ['FI', 'SE']]);
    for (const [body, param] of [
      [{ minimum_age: 17.5 }, 'minimum_age'],
      [{ accepted_document_types: ['visa'] }, 'accepted_document_types'],
      [{ accepted_issuing_countries: ['FIN'] }, 'accepted_issuing_countries'],
      [{ applicant_mismatch: 'decline' }, 'applicant_mismatch'],
      [{ thresholds: { faceMatchPass: 0.5, faceMatchReview: 0.6 } }, 'thresholds'],
    ] as const) {
      const e = await refusal(call(p, SUBJECTS.templatesUpdate, { id: t.id, body }));
      assert.deepEqual([e.code, e.param], ['validation_error', param]);
    }
    assert.deepEqual(await call(p, SUBJECTS.templatesGet, { id: t.id }), v2);
    assert.equal((await versionRows(t.id)).length, 2);
  });

  it('rules read what the document says as document.*, beside applicant.*', async () => {
    const p = principal('live');
    const mismatch = { name: 'not the holder', ruleType: 'custom', condition: { kind: 'field', field: 'document.applicantMatch', operator: 'eq', value: false }, action: 'tag' };
    const issuer = { name: 'nordic', ruleType: 'country_block', condition: { kind: 'field', field: 'document.issuingCountry', operator: 'in', value: ['FI', 'SE'] }, action: 'tag' };
    const t = await call(p, SUBJECTS.templatesCreate, { body: { name: 'doc', screening_rules: [mismatch, issuer] } });
    const doc = { type: 'passport', issuingCountry: 'FI', familyName: 'LEHTINEN', givenNames: ['AINO'], dateOfBirth: '1988-02-14', applicantMatch: false };
    const r = await call(p, SUBJECTS.screeningEvaluate, { template_id: t.id, version: 1, context: context({ document: doc }) });
    assert.deepEqual(r.status === 'ok' && r.tags, ['not the holder', 'nordic']);
    const none = await call(p, SUBJECTS.screeningEvaluate, { template_id: t.id, version: 1, context: context() });
    assert.deepEqual(none.status === 'ok' && none.tags, []);
    // a decline may not rest on the holder's names, age or nationality
    const e = await refusal(
      call(p, SUBJECTS.templatesCreate, { body: { name: 'x', screening_rules: [{ ...mismatch, ruleType: 'custom', condition: { kind: 'field', field: 'document.age', operator: 'lt', value: 18 }, action: 'decline' }] } }),
    );
    assert.equal(e.code, 'validation_error');
  });

  it('concurrent PATCHes each get their own version, none lost', async () => {
    const p = principal();
    const t = await call(p, SUBJECTS.templatesCreate, { body: { name: 'race' } });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => call(p, SUBJECTS.templatesUpdate, { id: t.id, body: { name: `n${i}` } })));
    assert.deepEqual(
      results.map((r) => r.version).sort((a, b) => a - b),
      [2, 3, 4, 5, 6, 7, 8, 9],
    );
    assert.equal((await versionRows(t.id)).length, 9);
    assert.equal((await call(p, SUBJECTS.templatesGet, { id: t.id })).version, 9);
  });

  it('writes nothing when the caller stopped waiting (deadline passed)', async () => {
    const p = principal();
    const msg = await nc.request(
      qualify(root, SUBJECTS.templatesCreate),
      // signed as the gateway signs it (without a request id, the service's own 'req_internal')
      encodeJson({ principal: p, seal: testSigner().seal(p, 'req_internal', Date.now() + 3000), deadline: Date.now() - 1, payload: { body: { name: 'late' } } }),
      { timeout: 3000 },
    );
    const reply = decodeJson<RpcReply<WorkflowTemplate>>(msg.data);
    assert.equal(reply.ok, false);
    assert.equal((reply as { error: ErrorData }).error.code, 'service_unavailable');
    assert.deepEqual(await query(db.url, 'SELECT id FROM screening.templates WHERE org_id = $1', [p.org_id]), []);
  });

  it('lists newest first with a cursor, only the caller’s templates of the caller’s mode', async () => {
    const p = principal();
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) ids.push((await call(p, SUBJECTS.templatesCreate, { body: { name } })).id);
    await call(principal('live', p.org_id), SUBJECTS.templatesCreate, { body: { name: 'live one' } });
    await call(principal(), SUBJECTS.templatesCreate, { body: { name: 'other org' } });
    await call(p, SUBJECTS.templatesUpdate, { id: ids[0]!, body: { name: 'a2' } });

    const first = await call(p, SUBJECTS.templatesList, { limit: '2' });
    assert.deepEqual(first.data.map((t) => t.id), [ids[2], ids[1]]);
    assert.ok(first.next_cursor);
    const second = await call(p, SUBJECTS.templatesList, { limit: '2', cursor: first.next_cursor });
    assert.deepEqual(second.data.map((t) => [t.id, t.name, t.version]), [[ids[0], 'a2', 2]], 'the current version is listed');
    assert.equal(second.next_cursor, null);
    for (const q of [{ limit: '0' }, { limit: '101' }, { cursor: 'nope' }, { status: 'x' }]) {
      assert.equal((await refusal(call(p, SUBJECTS.templatesList, q))).code, 'validation_error', JSON.stringify(q));
    }
  });

  it('a template of another organization or mode does not exist for the caller', async () => {
    const p = principal();
    const t = await call(p, SUBJECTS.templatesCreate, { body: { name: 'mine', screening_rules: [reviewOnFindings] } });
    for (const other of [principal(), principal('live', p.org_id)]) {
      assert.equal((await refusal(call(other, SUBJECTS.templatesGet, { id: t.id }))).code, 'resource_not_found');
      assert.equal((await refusal(call(other, SUBJECTS.templatesUpdate, { id: t.id, body: { name: 'stolen' } }))).code, 'resource_not_found');
      assert.equal((await refusal(call(other, SUBJECTS.templatesVersion, { id: t.id }))).code, 'resource_not_found');
      assert.equal(
        (await refusal(call(other, SUBJECTS.screeningEvaluate, { template_id: t.id, version: 1, context: context() }))).code,
        'resource_not_found',
      );
      assert.deepEqual((await call(other, SUBJECTS.templatesList, {})).data, []);
    }
    for (const id of ['wft_nope', 'app_123456789012345678901234', '']) {
      assert.equal((await refusal(call(p, SUBJECTS.templatesGet, { id }))).code, 'resource_not_found');
    }
    assert.equal((await call(p, SUBJECTS.templatesGet, { id: t.id })).name, 'mine');
  });
});

describe('screening service: versions and evaluation', () => {
  it('templatesVersion returns the current version or the one asked for', async () => {
    const p = principal();
    const t = await call(p, SUBJECTS.templatesCreate, { body: { name: 'one', screening_rules: [reviewOnFindings], device_intelligence: true } });
    await call(p, SUBJECTS.templatesUpdate, { id: t.id, body: { name: 'two', screening_rules: [] } });
    const current = await call(p, SUBJECTS.templatesVersion, { id: t.id });
    assert.deepEqual([current.version, current.name, current.screening_rules], [2, 'two', []]);
    assert.equal('object' in current, false);
    const v1 = await call(p, SUBJECTS.templatesVersion, { id: t.id, version: 1 });
    assert.deepEqual(v1, {
      id: t.id,
      mode: 'test',
      name: 'one',
      version: 1,
      checks: [],
      screening_rules: t.screening_rules,
      metadata: {},
      device_intelligence: true,
      photo_upload: false,
      review_threshold: 0.5,
      signing_document: null,
      minimum_age: null,
      accepted_document_types: null,
      accepted_issuing_countries: null,
      applicant_mismatch: 'review',
      thresholds: {},
      watchlist_thresholds: {},
    });
    for (const version of [3, 0, -1, 1.5]) {
      const e = await refusal(call(p, SUBJECTS.templatesVersion, { id: t.id, version }));
      assert.deepEqual([e.code, e.param], ['resource_not_found', 'version'], String(version));
    }
  });

  it('evaluates a pinned version with its own rules after a later edit, compiling each version once', async () => {
    const p = principal();
    const evaluation = app.get(EvaluationService);
    const t = await call(p, SUBJECTS.templatesCreate, { body: { name: 'pinned', screening_rules: [reviewOnFindings] } });
    const before = evaluation.stats().compilations;

    const r1 = await call(p, SUBJECTS.screeningEvaluate, { template_id: t.id, version: 1, context: context() });
    assert.equal(r1.status, 'ok');
    assert.deepEqual(r1.status === 'ok' && [r1.decision, r1.fired.map((f) => f.name)], ['review', ['any finding']]);

    // the template changes: version 2 approves instead
    const approve = { name: 'clean', ruleType: 'custom', condition: { kind: 'field', field: 'check.document.outcome', operator: 'eq', value: 'pass' }, action: 'approve' };
    await call(p, SUBJECTS.templatesUpdate, { id: t.id, body: { screening_rules: [approve] } });

    const again = await call(p, SUBJECTS.screeningEvaluate, { template_id: t.id, version: 1, context: context() });
    assert.deepEqual(again, r1, 'version 1 still evaluates its own rules');
    const r2 = await call(p, SUBJECTS.screeningEvaluate, { template_id: t.id, version: 2, context: context() });
    assert.deepEqual(r2.status === 'ok' && [r2.decision, r2.fired.map((f) => f.name)], ['approve', ['clean']]);
    await call(p, SUBJECTS.screeningEvaluate, { template_id: t.id, version: 2, context: context({ findings: [] }) });
    assert.equal(evaluation.stats().compilations - before, 2, 'one compilation per version');
    assert.ok(evaluation.stats().cached <= 50);
  });

  it('applies the template switches: device intelligence, review threshold, metadata', async () => {
    const p = principal();
    const tor = { name: 'tor', ruleType: 'ip_reputation', condition: { kind: 'field', field: 'fraud.ipIsTorExit', operator: 'eq', value: true }, action: 'adjust_score', scoreAdjustment: 0.4 };
    const gold = { name: 'gold', ruleType: 'custom', condition: { kind: 'field', field: 'session.metadata.tier', operator: 'eq', value: 'gold' }, action: 'tag' };
    const off = await call(p, SUBJECTS.templatesCreate, { body: { name: 'off', screening_rules: [tor, gold], metadata: { tier: 'gold' } } });
    const on = await call(p, SUBJECTS.templatesCreate, {
      body: { name: 'on', screening_rules: [tor, gold], metadata: { tier: 'gold' }, device_intelligence: true, review_threshold: 0.3 },
    });
    const ctx = context({ fraud: { ipIsTorExit: true } });
    const rOff = await call(p, SUBJECTS.screeningEvaluate, { template_id: off.id, version: 1, context: ctx });
    const rOn = await call(p, SUBJECTS.screeningEvaluate, { template_id: on.id, version: 1, context: ctx });
    assert.deepEqual(rOff.status === 'ok' && [rOff.decision, rOff.score, rOff.tags], ['none', 0, ['gold']]);
    assert.deepEqual(rOn.status === 'ok' && [rOn.decision, rOn.score, rOn.tags], ['review', 0.4, ['gold']]);

    const bad = await call(p, SUBJECTS.templatesCreate, { body: { name: 'bad md', screening_rules: [gold], metadata: { tier: { nested: true } } } });
    assert.deepEqual(await call(p, SUBJECTS.screeningEvaluate, { template_id: bad.id, version: 1, context: context() }), {
      status: 'errored',
      reason: 'session_metadata_invalid',
      key: 'tier',
    });
  });

  it('floors a decline to review and reports it', async () => {
    const p = principal();
    const decline = { name: 'sanctioned', ruleType: 'watchlist_hit', condition: { kind: 'field', field: 'finding.severity.high.count', operator: 'gte', value: 1 }, action: 'decline' };
    const t = await call(p, SUBJECTS.templatesCreate, { body: { name: 'decline', screening_rules: [decline] } });
    const r = await call(p, SUBJECTS.screeningEvaluate, { template_id: t.id, version: 1, context: context() });
    assert.deepEqual(r.status === 'ok' && [r.decision, r.decline_floored], ['review', true]);
  });

  it('refuses an unknown version or a malformed context', async () => {
    const p = principal();
    const t = await call(p, SUBJECTS.templatesCreate, { body: { name: 'x' } });
    const e = await refusal(call(p, SUBJECTS.screeningEvaluate, { template_id: t.id, version: 2, context: context() }));
    assert.deepEqual([e.code, e.param], ['resource_not_found', 'version']);
    const bad = await refusal(call(p, SUBJECTS.screeningEvaluate, { template_id: t.id, version: 1, context: { ...context(), now: 'tomorrow' } }));
    assert.equal(bad.code, 'validation_error');
    assert.deepEqual((bad.details as { issues: { path: unknown[] }[] }).issues.map((i) => i.path), [['context', 'now']]);
  });

  it('answers its health subject', async () => {
    const h = await rpc.call(SUBJECTS.screeningHealth, {}, { principal: null, requestId: 'req_int' });
    assert.deepEqual(h, { service: 'screening', status: 'ok', checks: { postgres: 'ok' } });
  });
});

describe('screening.admin.purge-test-data.v1', () => {
  const op = { principal: null, requestId: 'req_op' };
  const purge = (orgId: unknown) => rpc.call(SUBJECTS.screeningPurgeTestData, { org_id: orgId as string }, op);
  async function rowsOf(orgId: string, mode: 'test' | 'live') {
    const templates = await query<{ id: string; current_version: number }>(db.url, 'SELECT id, current_version FROM screening.templates WHERE org_id = $1 AND mode = $2 ORDER BY id', [orgId, mode]);
    const versions = await query<{ template_id: string; version: number }>(
      db.url,
      'SELECT template_id, version FROM screening.template_versions WHERE org_id = $1 AND mode = $2 ORDER BY template_id, version',
      [orgId, mode],
    );
    return { templates, versions };
  }

  it('deletes the test-mode templates with their versions, counted, drops their compiled rules and announces each; live and other organizations stay', async () => {
    const p = principal('test');
    const live = principal('live', p.org_id);
    const other = principal('test');
    const evaluation = app.get(EvaluationService);
    const a = await call(p, SUBJECTS.templatesCreate, { body: { name: 'a', screening_rules: [reviewOnFindings] } });
    await call(p, SUBJECTS.templatesUpdate, { id: a.id, body: { name: 'a2' } });
    const b = await call(p, SUBJECTS.templatesCreate, { body: { name: 'b' } });
    const l = await call(live, SUBJECTS.templatesCreate, { body: { name: 'live', screening_rules: [reviewOnFindings] } });
    const o = await call(other, SUBJECTS.templatesCreate, { body: { name: 'other', screening_rules: [reviewOnFindings] } });
    // compiled and cached before the purge
    for (const [who, id, version] of [[p, a.id, 1], [p, a.id, 2], [live, l.id, 1], [other, o.id, 1]] as const) {
      assert.equal((await call(who, SUBJECTS.screeningEvaluate, { template_id: id, version, context: context() })).status, 'ok');
    }
    const before = await rowsOf(p.org_id, 'test');
    assert.equal(before.versions.length, 3);
    const untouched = { live: await rowsOf(p.org_id, 'live'), other: await rowsOf(other.org_id, 'test') };

    // an API key's principal cannot reach it, and nothing is deleted
    const refused = await refusal(rpc.call(SUBJECTS.screeningPurgeTestData, { org_id: p.org_id }, { ...op, principal: p }));
    assert.equal(refused.code, 'internal_error');
    assert.deepEqual(await rowsOf(p.org_id, 'test'), before);

    const changed: unknown[] = [];
    const sub = nc.subscribe(qualify(root, EVENTS.templateChanged), {
      callback: (_e, m) => {
        changed.push(decodeJson(m.data));
      },
    });
    const r = await purge(p.org_id);
    assert.deepEqual(r, { removed: { templates: 2, template_versions: 3 } });
    assert.deepEqual(await rowsOf(p.org_id, 'test'), { templates: [], versions: [] });
    assert.deepEqual(await rowsOf(p.org_id, 'live'), untouched.live);
    assert.deepEqual(await rowsOf(other.org_id, 'test'), untouched.other);
    await nc.flush();
    await new Promise((res) => setTimeout(res, 100));
    sub.unsubscribe();
    // sessions drop their cached pins of the purged templates
    const byId = (x: unknown, y: unknown) => ((x as { template_id: string }).template_id < (y as { template_id: string }).template_id ? -1 : 1);
    assert.deepEqual(
      changed.sort(byId),
      [a.id, b.id].map((id) => ({ template_id: id, org_id: p.org_id, mode: 'test' })).sort(byId),
    );

    // the purged versions are gone from the cache too: evaluating them finds nothing
    const compilations = evaluation.stats().compilations;
    for (const version of [1, 2]) {
      const e = await refusal(call(p, SUBJECTS.screeningEvaluate, { template_id: a.id, version, context: context() }));
      assert.deepEqual([e.code, e.param], ['resource_not_found', 'template_id']);
    }
    assert.equal((await refusal(call(p, SUBJECTS.templatesGet, { id: a.id }))).code, 'resource_not_found');
    assert.deepEqual((await call(p, SUBJECTS.templatesList, {})).data, []);
    // the others still evaluate from the cache
    for (const [who, id] of [[live, l.id], [other, o.id]] as const) {
      assert.equal((await call(who, SUBJECTS.screeningEvaluate, { template_id: id, version: 1, context: context() })).status, 'ok');
    }
    assert.equal(evaluation.stats().compilations, compilations, 'nothing compiled again');
    assert.deepEqual(await purge(p.org_id), { removed: { templates: 0, template_versions: 0 } });
  });

  it('refuses a missing or malformed org_id as a validation error naming it', async () => {
    for (const bad of [undefined, '', 'org_', 'wft_AAAAAAAAAAAAAAAAAAAAAAAA', 42]) {
      const e = await refusal(purge(bad));
      assert.equal(e.code, 'validation_error', String(bad));
      assert.equal(e.param, 'org_id');
    }
  });
});
