/**
 * The isolation matrix (docs/security.md): every route of the gateway's route table, called by every kind
 * of intruder on one owner's data, answers 404 `resource_not_found` (an id of another owner does not exist for
 * the caller) or 403 `region_mismatch` (a key of the other region, refused from its text), nothing else, and
 * changes nothing. Lists answer the intruder's own data only (documented: a filter that matches nothing is an
 * empty page). The capture routes take a client secret, not a key: one from the other region is unknown (401).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Session } from '@verity/contracts';
import { REPO_ROOT } from '@verity/stack';
import { waitFor } from '@verity/testing';
import { account, createSession, newApplicant, newTemplate, type Client, type One } from './sessions-support.js';
import { client, closeOperators, createKey, errorOf, orgWithKey } from './support.js';

type Call = { method: string; path: string; body?: unknown; rawBody?: string; headers?: Record<string, string> };

/** The owner's data: a test-mode applicant, template and session (in manual review, so every action would apply), in us. */
interface Owned {
  applicantId: string;
  templateId: string;
  sessionId: string;
  /** A live session's client secret, for the capture routes. */
  captureSecret: string;
  /** An access request for the applicant. */
  dsarId: string;
}

let owner: { c: Client; key: string; orgId: string };

after(closeOperators);
let owned: Owned;

before(async () => {
  const o = await orgWithKey('us');
  owner = { c: client('us', o.key), key: o.key, orgId: o.org.id };
  const applicantId = await newApplicant(owner.c, { family_name: 'Owner', given_names: ['Only'] });
  const templateId = await newTemplate(owner.c, { name: 'Owner template', checks: ['document', 'face_match'] });
  const s = await createSession(owner.c, { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: 'review' });
  assert.equal(s.status, 201, s.text);
  await waitFor(async () => ((await owner.c<One>('GET', `/v1/sessions/${s.body.data.id}`)).body.data?.status === 'manual_review' ? true : undefined), 5000);
  const live = await account('us', 'live');
  const liveSession = await createSession(live.c, { applicant_id: await newApplicant(live.c), workflow_template_id: await newTemplate(live.c) });
  assert.equal(liveSession.status, 201, liveSession.text);
  const dsar = await owner.c<One>('POST', '/v1/data_subject_requests', { body: { type: 'access', applicant_id: applicantId } });
  assert.equal(dsar.status, 202, dsar.text);
  owned = { applicantId, templateId, sessionId: s.body.data.id, captureSecret: liveSession.body.data.client_secret!, dsarId: dsar.body.data.id };
});

/** Every keyed route of the table, as the intruder calls it on the owner's data. */
function keyedCalls(own: { applicantId: string; templateId: string }): Record<string, Call> {
  const { applicantId, templateId, sessionId, dsarId } = owned;
  return {
    'GET /v1/me': { method: 'GET', path: '/v1/me' },
    'POST /v1/applicants': { method: 'POST', path: '/v1/applicants', body: { family_name: 'Intruder' } },
    'GET /v1/applicants': { method: 'GET', path: '/v1/applicants' },
    'GET /v1/applicants/:id': { method: 'GET', path: `/v1/applicants/${applicantId}` },
    'POST /v1/workflow-templates': { method: 'POST', path: '/v1/workflow-templates', body: { name: 'Intruder', checks: ['document'] } },
    'GET /v1/workflow-templates': { method: 'GET', path: '/v1/workflow-templates' },
    'GET /v1/workflow-templates/:id': { method: 'GET', path: `/v1/workflow-templates/${templateId}` },
    'PATCH /v1/workflow-templates/:id': { method: 'PATCH', path: `/v1/workflow-templates/${templateId}`, body: { name: 'Taken over' } },
    // the owner's applicant with the intruder's template, and the other way round
    'POST /v1/sessions': { method: 'POST', path: '/v1/sessions', body: { applicant_id: applicantId, workflow_template_id: own.templateId } },
    'POST /v1/sessions (template)': { method: 'POST', path: '/v1/sessions', body: { applicant_id: own.applicantId, workflow_template_id: templateId } },
    'GET /v1/sessions': { method: 'GET', path: `/v1/sessions?applicant_id=${applicantId}` },
    'GET /v1/sessions/:id': { method: 'GET', path: `/v1/sessions/${sessionId}` },
    'POST /v1/sessions/:id/notes': { method: 'POST', path: `/v1/sessions/${sessionId}/notes`, body: { note: 'intruder was here' } },
    'POST /v1/sessions/:id/cancel': { method: 'POST', path: `/v1/sessions/${sessionId}/cancel`, body: {} },
    'POST /v1/sessions/:id/review': { method: 'POST', path: `/v1/sessions/${sessionId}/review`, body: {} },
    'POST /v1/sessions/:id/decision': { method: 'POST', path: `/v1/sessions/${sessionId}/decision`, body: { outcome: 'approved' } },
    'GET /v1/webhook-events': { method: 'GET', path: `/v1/webhook-events?session_id=${sessionId}` },
    'POST /v1/id-verification': { method: 'POST', path: '/v1/id-verification', rawBody: 'not multipart', headers: { 'content-type': 'multipart/form-data; boundary=x' } },
    'GET /v1/sessions/:id/idv-image/:artifact': { method: 'GET', path: `/v1/sessions/${sessionId}/idv-image/front` },
    'POST /v1/data_subject_requests': { method: 'POST', path: '/v1/data_subject_requests', body: { type: 'access', applicant_id: applicantId } },
    'GET /v1/data_subject_requests/:id': { method: 'GET', path: `/v1/data_subject_requests/${dsarId}` },
  };
}

/** What an intruder of the same region may see: 404 on the owner's ids, its own data in lists, its own creates. */
const SAME_REGION: Record<string, 'not_found' | 'own_list' | 'own_create' | 'own'> = {
  'GET /v1/me': 'own',
  'POST /v1/applicants': 'own_create',
  'GET /v1/applicants': 'own_list',
  'GET /v1/applicants/:id': 'not_found',
  'POST /v1/workflow-templates': 'own_create',
  'GET /v1/workflow-templates': 'own_list',
  'GET /v1/workflow-templates/:id': 'not_found',
  'PATCH /v1/workflow-templates/:id': 'not_found',
  'POST /v1/sessions': 'not_found',
  'POST /v1/sessions (template)': 'not_found',
  'GET /v1/sessions': 'own_list',
  'GET /v1/sessions/:id': 'not_found',
  'POST /v1/sessions/:id/notes': 'not_found',
  'POST /v1/sessions/:id/cancel': 'not_found',
  'POST /v1/sessions/:id/review': 'not_found',
  'POST /v1/sessions/:id/decision': 'not_found',
  'GET /v1/webhook-events': 'own_list',
  // a stateless scan of the intruder's own bytes: no owner's data is involved (this body is refused as malformed)
  'POST /v1/id-verification': 'own',
  'GET /v1/sessions/:id/idv-image/:artifact': 'not_found',
  'POST /v1/data_subject_requests': 'not_found',
  'GET /v1/data_subject_requests/:id': 'not_found',
};

const CAPTURE_ROUTES = ['GET /v1/capture', 'PUT /v1/capture/images/:artifact', 'POST /v1/capture/submit', 'POST /v1/capture/skip'];
/** Routes the table declares public: they hold no one's data (e2e/src/openapi-contract.e2e-spec.ts covers them). */
const PUBLIC_ROUTES = ['GET /v1/openapi.json'];

/** The route table as the gateway declares it (apps/gateway/src/access/routes.ts): a new route must join the matrix. */
function declaredRoutes(): string[] {
  const text = readFileSync(path.join(REPO_ROOT, 'apps/gateway/src/access/routes.ts'), 'utf8');
  return [...text.matchAll(/^\s*'((?:GET|POST|PUT|PATCH|DELETE) \/v1[^']*)':/gm)].map((m) => m[1]!);
}

/** Whatever the owner's data looks like now, as the owner reads it. */
async function ownerView() {
  const [a, t, s] = await Promise.all([
    owner.c('GET', `/v1/applicants/${owned.applicantId}`),
    owner.c<{ data: { name: string; version: number } }>('GET', `/v1/workflow-templates/${owned.templateId}`),
    owner.c<One>('GET', `/v1/sessions/${owned.sessionId}`),
  ]);
  const session = s.body.data as Session & { notes?: unknown[] };
  return { applicant: a.text, template: [t.body.data.name, t.body.data.version], session: [session.status, session.outcome, session.updated_at, JSON.stringify(session.notes ?? null)] };
}

function assertRefused(res: { status: number; text: string; body: unknown; headers: Headers }, status: number, code: string, label: string): void {
  assert.equal(res.status, status, `${label}: ${res.status} ${res.text}`);
  assert.equal(errorOf(res as Parameters<typeof errorOf>[0]).code, code, label);
  for (const id of [owned.applicantId, owned.templateId, owned.sessionId, owned.dsarId]) assert.ok(!res.text.includes(id), `${label} echoes ${id}`);
  for (const word of ['Owner', 'Only']) assert.ok(!res.text.includes(word), `${label} tells the owner's data`);
}

describe('isolation matrix: every route × another organization, another mode, another region', () => {
  it('the matrix covers every route of the gateway', () => {
    const covered = new Set([...Object.keys(keyedCalls({ applicantId: '', templateId: '' })).map((k) => k.replace(/ \(.*\)$/, '')), ...CAPTURE_ROUTES, ...PUBLIC_ROUTES]);
    assert.deepEqual(declaredRoutes().filter((r) => !covered.has(r)), []);
  });

  const intruders: Array<{ name: string; sameOrg: boolean; make: () => Promise<Client> }> = [
    { name: 'another organization (us, test mode)', sameOrg: false, make: async () => client('us', (await orgWithKey('us')).key) },
    { name: "the same organization's live key (another mode)", sameOrg: true, make: async () => client('us', (await createKey('us', owner.orgId, { mode: 'live' })).key) },
    { name: 'an organization of the other region (eu), at its own gateway', sameOrg: false, make: async () => client('eu', (await orgWithKey('eu')).key) },
  ];

  for (const intruder of intruders) {
    it(`${intruder.name}: 404 on every id of the owner, its own data only in lists, nothing changed`, async () => {
      const before = await ownerView();
      const c = await intruder.make();
      // the intruder's own applicant and template, for the creates that name one of the owner's
      const own = { applicantId: await newApplicant(c, { family_name: 'Intruder' }), templateId: await newTemplate(c, { name: 'Intruder' }) };
      const calls = keyedCalls(own);
      for (const [route, call] of Object.entries(calls)) {
        const res = await c(call.method, call.path, { body: call.body, rawBody: call.rawBody, headers: call.headers });
        const expect = SAME_REGION[route]!;
        if (expect === 'not_found') assertRefused(res, 404, 'resource_not_found', `${intruder.name}: ${route}`);
        else if (expect === 'own_list') {
          assert.equal(res.status, 200, `${route}: ${res.text}`);
          for (const id of [owned.applicantId, owned.templateId, owned.sessionId]) assert.ok(!res.text.includes(id), `${route} lists the owner's ${id}`);
        } else if (expect === 'own_create') {
          assert.equal(res.status, 201, `${route}: ${res.text}`);
        } else {
          assert.ok(res.status < 500, `${route}: ${res.status}`);
          if (!intruder.sameOrg) assert.ok(!res.text.includes(owner.orgId), `${route} tells the owner's organization`);
        }
      }
      assert.deepEqual(await ownerView(), before, 'the owner\'s data did not change');
    });
  }

  it('a key of the other region: 403 region_mismatch on every route, decided before any lookup, nothing changed', async () => {
    const before = await ownerView();
    const calls = keyedCalls({ applicantId: owned.applicantId, templateId: owned.templateId });
    const eu = client('eu', owner.key);
    for (const [route, call] of Object.entries(calls)) {
      const res = await eu(call.method, call.path, { body: call.body, rawBody: call.rawBody, headers: call.headers });
      assertRefused(res, 403, 'region_mismatch', `us key at eu: ${route}`);
    }
    assert.deepEqual(await ownerView(), before);
  });

  it("a live session's client secret at the other region's gateway is unknown there (401), on every capture route", async () => {
    const eu = client('eu', owned.captureSecret);
    const calls: Call[] = [
      { method: 'GET', path: '/v1/capture' },
      { method: 'PUT', path: '/v1/capture/images/front', rawBody: 'x', headers: { 'content-type': 'image/jpeg' } },
      { method: 'POST', path: '/v1/capture/submit', body: { acquisition: 'camera' } },
      { method: 'POST', path: '/v1/capture/skip', body: {} },
    ];
    for (const call of calls) {
      const res = await eu(call.method, call.path, { body: call.body, rawBody: call.rawBody, headers: call.headers });
      assert.equal(res.status, 401, `${call.method} ${call.path}: ${res.text}`);
      assert.equal(errorOf(res).code, 'invalid_capture_token');
    }
    // and at home it still works: the link was not used up by the attempts
    assert.equal((await client('us', owned.captureSecret)('GET', '/v1/capture')).status, 200);
  });

  it("the owner's own calls succeed on the same ids: the matrix's refusals are isolation, not bad requests", async () => {
    const calls = keyedCalls({ applicantId: owned.applicantId, templateId: owned.templateId });
    for (const route of ['GET /v1/applicants/:id', 'GET /v1/workflow-templates/:id', 'GET /v1/sessions/:id', 'GET /v1/sessions/:id/idv-image/:artifact', 'GET /v1/data_subject_requests/:id']) {
      const res = await owner.c(calls[route]!.method, calls[route]!.path);
      assert.equal(res.status, 200, `${route}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    const note = calls['POST /v1/sessions/:id/notes']!;
    assert.ok([200, 201].includes((await owner.c(note.method, note.path, { body: note.body })).status));
    const decision = calls['POST /v1/sessions/:id/decision']!;
    const decided = await owner.c<One>(decision.method, decision.path, { body: decision.body });
    assert.equal(decided.status, 200, decided.text);
    assert.deepEqual([decided.body.data.status, decided.body.data.outcome], ['completed', 'approved']);
  });
});
