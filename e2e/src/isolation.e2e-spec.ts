/**
 * The isolation matrix (docs/security.md): every route the gateway declares, called by every kind of intruder on
 * one owner's data, answers 404 `resource_not_found` (an id of another owner does not exist for the caller) or 403
 * `region_mismatch` (a key of the other region, refused from its text), nothing else, and changes nothing. Lists
 * answer the intruder's own data only (documented: a filter that matches nothing is an empty page). A key without
 * the scope a route declares is refused 403 `insufficient_scope`. The capture routes take a client secret, not a
 * key: one from the other region is unknown (401). The routes, their scopes and their example bodies are read from
 * the gateway's OpenAPI document, which is generated from the routes' declarations: a new route is covered the day
 * it is declared.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SUBJECTS, type Principal, type Session } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { REPO_ROOT } from '@verity/stack';
import { waitFor } from '@verity/testing';
import { account, createSession, newApplicant, newTemplate, type Client, type One } from './sessions-support.js';
import { client, clientAs, closeOperators, createKey, errorOf, orgWithKey } from './support.js';

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
  // completed, with the session's images in its export (its image route serves the owner)
  await waitFor(async () => ((await owner.c<One>('GET', `/v1/data_subject_requests/${dsar.body.data.id}`)).body.data?.status === 'completed' ? true : undefined), 20_000, 100);
  owned = { applicantId, templateId, sessionId: s.body.data.id, captureSecret: liveSession.body.data.client_secret!, dsarId: dsar.body.data.id };
});

/**
 * The gateway's /v1 routes as its OpenAPI document publishes them: generated from each route's declaration
 * (`@Route` in apps/gateway), so a route joins every matrix below by being declared, with no list here to update.
 */
interface DeclaredRoute {
  /** `METHOD /v1/path/:param`, as the gateway declares it. */
  key: string;
  method: string;
  pattern: string;
  auth: 'key' | 'capture' | 'public';
  /** The scope a key needs (null: any key); undefined when no key is involved. */
  scope?: string | null;
  /** Publishable keys may call it. */
  publishable: boolean;
  params: string[];
  query: string[];
  body: { kind: 'json' | 'multipart' | 'image'; example?: Record<string, unknown> } | null;
  /** The status of a success. */
  success: number;
}

interface DocOperation {
  security: Array<Record<string, string[]>>;
  parameters?: Array<{ name?: string; in?: string }>;
  requestBody?: { content: Record<string, { example?: Record<string, unknown> }> };
  responses: Record<string, unknown>;
  'x-verity-scope'?: string | null;
  'x-verity-publishable-key'?: boolean;
}

function declaredRoutes(): DeclaredRoute[] {
  const doc = JSON.parse(readFileSync(path.join(REPO_ROOT, 'apps/gateway/openapi/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, DocOperation>> };
  const out: DeclaredRoute[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    if (!p.startsWith('/v1/')) continue;
    for (const [m, op] of Object.entries(item)) {
      const pattern = p.replace(/\{([^}]+)\}/g, ':$1');
      const scheme = op.security[0] ? Object.keys(op.security[0])[0] : undefined;
      const media = Object.keys(op.requestBody?.content ?? {})[0];
      out.push({
        key: `${m.toUpperCase()} ${pattern}`,
        method: m.toUpperCase(),
        pattern,
        auth: scheme === 'apiKey' ? 'key' : scheme === 'clientSecret' ? 'capture' : 'public',
        scope: op['x-verity-scope'],
        publishable: op['x-verity-publishable-key'] === true,
        params: (op.parameters ?? []).filter((x) => x.in === 'path').map((x) => x.name!),
        query: (op.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name!),
        body: media
          ? { kind: media === 'application/json' ? 'json' : media === 'multipart/form-data' ? 'multipart' : 'image', example: op.requestBody!.content[media]!.example }
          : null,
        success: Number(Object.keys(op.responses).find((s) => s.startsWith('2'))),
      });
    }
  }
  return out;
}

const ROUTES = declaredRoutes();

/** The owner's resource a path parameter names, by the collection before it (`/v1/sessions/:id` → a session). */
const COLLECTIONS: Record<string, keyof Owned> = { applicants: 'applicantId', 'workflow-templates': 'templateId', sessions: 'sessionId', data_subject_requests: 'dsarId' };
/** The owner's resource an id field of a body or query names. */
const ID_FIELDS: Record<string, 'applicantId' | 'templateId' | 'sessionId'> = { applicant_id: 'applicantId', workflow_template_id: 'templateId', session_id: 'sessionId' };
/** Path parameters that name no resource, and a value every route that has one serves. */
const PARAM_VALUES: Record<string, string> = { artifact: 'front', index: '0' };

type Call = { route: string; method: string; path: string; body?: unknown; rawBody?: string; headers?: Record<string, string> };
/** An intruder's call: on the owner's data (404), or on its own (its documented success, the owner's data unseen). */
type MatrixCall = Call & { expect: 'not_found' | 'own'; success: number };

/** The route's path with the owner's ids in it; `refers` when one of them names the owner's data. */
function ownerPath(r: DeclaredRoute): { path: string; refers: boolean } {
  let refers = false;
  const p = r.pattern.replace(/:([A-Za-z_]+)/g, (_, name: string, at: number) => {
    if (PARAM_VALUES[name]) return PARAM_VALUES[name];
    const collection = r.pattern.slice(0, at - 1).split('/').pop()!;
    const owned_ = COLLECTIONS[collection];
    assert.ok(owned_, `${r.key}: the owner has no resource for :${name} (add one to the owner's data and to COLLECTIONS)`);
    refers = true;
    return owned[owned_];
  });
  return { path: p, refers };
}

/**
 * Every keyed route, as an intruder calls it on the owner's data: the owner's ids in the path; in a body (the
 * route's documented example), each id field the owner's in turn, the others the intruder's own; in a list, a
 * filter by the owner's ids.
 */
function keyedCalls(own: { applicantId: string; templateId: string }): MatrixCall[] {
  const calls: MatrixCall[] = [];
  for (const r of ROUTES.filter((x) => x.auth === 'key')) {
    const { path: p, refers } = ownerPath(r);
    const filters = r.query.filter((q) => ID_FIELDS[q]).map((q) => `${q}=${owned[ID_FIELDS[q]!]}`);
    const url = filters.length ? `${p}?${filters.join('&')}` : p;
    const base = { route: r.key, method: r.method, path: url, success: r.success };
    if (r.body?.kind === 'multipart') {
      // a scan of the intruder's own bytes, whatever they are (these are refused as malformed): no owner's data
      calls.push({ ...base, rawBody: 'not multipart', headers: { 'content-type': 'multipart/form-data; boundary=x' }, expect: refers ? 'not_found' : 'own' });
      continue;
    }
    if (r.body?.kind === 'image') throw new Error(`${r.key}: a keyed route with an image body has no call here yet`);
    const example = r.body?.example;
    if (r.body) assert.ok(example, `${r.key}: its declaration gives no example body`);
    const idFields = Object.keys(example ?? {}).filter((f) => ID_FIELDS[f]);
    if (!idFields.length) {
      calls.push({ ...base, body: example, expect: refers ? 'not_found' : 'own' });
      continue;
    }
    for (const field of idFields) {
      const body = { ...example };
      for (const f of idFields) body[f] = f === field ? owned[ID_FIELDS[f]!] : (own as Record<string, string>)[ID_FIELDS[f]!] ?? owned[ID_FIELDS[f]!];
      calls.push({ ...base, route: idFields.length > 1 ? `${r.key} (${field})` : r.key, body, expect: 'not_found' });
    }
  }
  return calls;
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
  it('covers every route the gateway declares: every keyed route is called, the capture and public ones below', () => {
    const keyed = ROUTES.filter((r) => r.auth === 'key').map((r) => r.key);
    const called = new Set(keyedCalls({ applicantId: owned.applicantId, templateId: owned.templateId }).map((c) => c.route.replace(/ \(.*\)$/, '')));
    assert.deepEqual(keyed.filter((k) => !called.has(k)), []);
    // the table is read, not empty: the routes a client knows are in it
    assert.ok(ROUTES.length >= 25, `${ROUTES.length} routes`);
    for (const k of ['GET /v1/me', 'POST /v1/sessions', 'GET /v1/sessions/:id/idv-image/:artifact', 'PUT /v1/capture/images/:artifact', 'GET /v1/openapi.json']) {
      assert.ok(ROUTES.some((r) => r.key === k), k);
    }
    assert.deepEqual(ROUTES.filter((r) => r.auth === 'public').map((r) => r.key), ['GET /v1/openapi.json'], 'public routes hold no one\'s data (openapi-contract covers them)');
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
      for (const call of keyedCalls(own)) {
        const res = await c(call.method, call.path, { body: call.body, rawBody: call.rawBody, headers: call.headers });
        const label = `${intruder.name}: ${call.route}`;
        if (call.expect === 'not_found') {
          assertRefused(res, 404, 'resource_not_found', label);
          continue;
        }
        // its own data: the documented success (a scan of bytes that are no image is refused, never a 5xx)
        if (call.rawBody === undefined) assert.equal(res.status, call.success, `${label}: ${res.text}`);
        else assert.ok(res.status < 500, `${label}: ${res.status}`);
        for (const id of [owned.applicantId, owned.templateId, owned.sessionId, owned.dsarId]) assert.ok(!res.text.includes(id), `${label} shows the owner's ${id}`);
        if (!intruder.sameOrg) assert.ok(!res.text.includes(owner.orgId), `${label} tells the owner's organization`);
      }
      assert.deepEqual(await ownerView(), before, 'the owner\'s data did not change');
    });
  }

  it('a key of the other region: 403 region_mismatch on every route, decided before any lookup, nothing changed', async () => {
    const before = await ownerView();
    const eu = client('eu', owner.key);
    for (const call of keyedCalls({ applicantId: owned.applicantId, templateId: owned.templateId })) {
      const res = await eu(call.method, call.path, { body: call.body, rawBody: call.rawBody, headers: call.headers });
      assertRefused(res, 403, 'region_mismatch', `us key at eu: ${call.route}`);
    }
    assert.deepEqual(await ownerView(), before);
  });

  it('a key without the scope a route declares: 403 insufficient_scope naming it, on every route; a publishable key: on every route but GET /v1/me', async () => {
    const before = await ownerView();
    const scopes = [...new Set(ROUTES.map((r) => r.scope).filter((x): x is string => typeof x === 'string'))];
    // two keys of the owner's organization, each with one scope: one of them lacks any route's scope
    const [a, b] = await Promise.all(['webhooks:read', 'idv:scan'].map(async (scope) => ({ scope, c: client('us', (await createKey('us', owner.orgId, { scopes: [scope] })).key) })));
    const pk = client('us', (await createKey('us', owner.orgId, { type: 'pk', scopes })).key);
    const byRoute = new Map(ROUTES.map((r) => [r.key, r]));
    for (const call of keyedCalls({ applicantId: owned.applicantId, templateId: owned.templateId })) {
      const route = byRoute.get(call.route.replace(/ \(.*\)$/, ''))!;
      const send = (c: Client) => c(call.method, call.path, { body: call.body, rawBody: call.rawBody, headers: call.headers });
      if (route.scope === null) {
        assert.equal((await send(a!.c)).status, route.success, `${call.route}: any key`);
      } else {
        const without = route.scope === a!.scope ? b! : a!;
        const res = await send(without.c);
        assertRefused(res, 403, 'insufficient_scope', `${call.route} with only ${without.scope}`);
        assert.deepEqual(errorOf(res).details, { required_scope: route.scope }, call.route);
      }
      const res = await send(pk);
      if (route.publishable) assert.equal(res.status, route.success, `${call.route}: publishable key`);
      else assertRefused(res, 403, 'insufficient_scope', `${call.route} with a publishable key`);
    }
    assert.deepEqual(await ownerView(), before);
  });

  it("a live session's client secret at the other region's gateway is unknown there (401), on every capture route", async () => {
    const eu = client('eu', owned.captureSecret);
    const capture = ROUTES.filter((r) => r.auth === 'capture');
    assert.ok(capture.length >= 4, `${capture.length} capture routes`);
    for (const r of capture) {
      const p = r.pattern.replace(/:([A-Za-z_]+)/g, (_, name: string) => PARAM_VALUES[name] ?? name);
      const call: Omit<Call, 'route'> =
        r.body?.kind === 'image'
          ? { method: r.method, path: p, rawBody: 'x', headers: { 'content-type': 'image/jpeg' } }
          : { method: r.method, path: p, body: r.body ? (r.body.example ?? {}) : undefined };
      const res = await eu(call.method, call.path, { body: call.body, rawBody: call.rawBody, headers: call.headers });
      assert.equal(res.status, 401, `${r.key}: ${res.text}`);
      assert.equal(errorOf(res).code, 'invalid_capture_token');
    }
    // and at home it still works: the link was not used up by the attempts
    assert.equal((await client('us', owned.captureSecret)('GET', '/v1/capture')).status, 200);
  });

  it("the owner's own calls succeed on the same ids: the matrix's refusals are isolation, not bad requests", async () => {
    const calls = keyedCalls({ applicantId: owned.applicantId, templateId: owned.templateId });
    const reads = calls.filter((c) => c.method === 'GET' && c.expect === 'not_found');
    assert.ok(reads.length >= 5, `${reads.length} reads of the owner's ids`);
    for (const read of reads) {
      const res = await owner.c(read.method, read.path);
      assert.equal(res.status, 200, `${read.route}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    const note = calls.find((c) => c.route === 'POST /v1/sessions/:id/notes')!;
    assert.ok([200, 201].includes((await owner.c(note.method, note.path, { body: note.body })).status));
    const decision = calls.find((c) => c.route === 'POST /v1/sessions/:id/decision')!;
    const decided = await owner.c<One>(decision.method, decision.path, { body: decision.body });
    assert.equal(decided.status, 200, decided.text);
    assert.deepEqual([decided.body.data.status, decided.body.data.outcome], ['completed', 'approved']);
  });
});

describe('behind the gateway: NATS credentials are not a principal (docs/security.md, "The bus\'s trust boundary")', () => {
  it("the sessions service's credentials cannot debit the owner's wallet with a principal no edge signed: refused before any handler", async () => {
    const rpc = await clientAs('us', 'sessions');
    const forged: Principal = {
      org_id: owner.orgId,
      key_id: 'key_forged',
      key_type: 'sk',
      mode: 'live',
      region: 'us',
      scopes: ['sessions:write'] as Principal['scopes'],
      tier: 'standard',
      custom_limits: null,
      billing: { subscription_status: 'active', past_due_since: null, wallet_balance: null, wallet_locked: false },
    };
    const e = await rpc.call(SUBJECTS.accountsBillingDebit, { session_id: 'ses_forgedforgedforgedforged', checks: ['document'] }, { principal: forged, requestId: 'req_e2e_forged' }).then(
      () => assert.fail('a forged principal was debited'),
      (err: unknown) => err,
    );
    assert.ok(e instanceof DomainError, String(e));
    assert.equal(e.code, 'internal_error');
  });
});
