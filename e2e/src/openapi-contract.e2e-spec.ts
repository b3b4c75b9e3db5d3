/**
 * The OpenAPI document against the running gateway (docs/openapi.md): every route of the document is called with a
 * valid request and with each refusal that is cheap to provoke (no key, a key of the other region, a key without
 * the route's scope, an unknown id, a bad body or query, a bad client secret), and every answer must be one the
 * document lists for that route, with a body valid against the document's schema for its status. The schemas of
 * answers are checked closed (no field the document does not name), although the document leaves them open for
 * clients. Finally every route of the document must have been answered with its success status.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { REPO_ROOT } from '@verity/stack';
import { multipart, sampleImage, SVG_IMAGE, waitFor, type ApiResponse } from '@verity/testing';
import { liveSession } from './capture-support.js';
import { createSession, newApplicant, newTemplate, type Client, type One } from './sessions-support.js';
import { SUBJECTS } from '@verity/contracts';
import { client, closeOperators, createKey, operator, orgWithKey } from './support.js';

after(closeOperators);

type Json = Record<string, unknown>;
interface Doc {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
}

const DOC_ID = 'https://verity.invalid/openapi.json';
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormatsModule.default(ajv);

let doc: Doc;
/** `METHOD /path/{param}` → statuses seen, each valid against the document. */
const seen = new Map<string, Set<number>>();

/** The components with every object closed: an answer may carry no field the document does not name. */
function closed(d: Doc): Doc {
  const close = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(close);
    if (v === null || typeof v !== 'object') return v;
    const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, close(x)])) as Json;
    if (o['properties'] && o['additionalProperties'] === undefined) o['additionalProperties'] = false;
    return o;
  };
  return { ...d, components: { ...d.components, schemas: close(d.components.schemas) as Doc['components']['schemas'] } };
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Checks one answer of `route` (`METHOD /path/{param}`) against the document: a status it lists, `X-Request-Id`,
 * a media type it lists, and for JSON a body valid against the schema of that status; with `code`, the error code.
 */
function conforms(route: string, res: ApiResponse, status: number, code?: string): void {
  const [method, p] = route.split(' ') as [string, string];
  const label = `${route} → ${res.status} ${res.text.slice(0, 300)}`;
  assert.equal(res.status, status, label);
  const op = doc.paths[p]?.[method.toLowerCase()];
  assert.ok(op, `${route} is not in the document`);
  const response = (op['responses'] as Record<string, Json>)[String(status)];
  assert.ok(response, `${route}: ${status} is not a documented answer (${label})`);
  assert.match(res.headers.get('x-request-id') ?? '', /^req_/, `${route}: X-Request-Id`);
  const media = Object.keys((response['content'] as Json | undefined) ?? {});
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (media.length) assert.ok(media.includes(type), `${route} ${status}: ${type} is not one of ${media.join(', ')}`);
  if (type === 'application/json') {
    const ref = `${DOC_ID}#/${pointer('paths', p, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')}`;
    const validate = ajv.getSchema(ref);
    assert.ok(validate, ref);
    assert.ok(validate(res.body), `${label}\n${JSON.stringify(validate.errors, null, 1)}`);
  }
  if (code !== undefined) assert.equal((res.body as { error?: { code?: string } }).error?.code, code, label);
  seen.set(route, (seen.get(route) ?? new Set()).add(status));
}

let full: Client;
let noKey: Client;
let otherRegion: Client;
/** A key with one scope that is not the route's. */
let scoped: { webhooks: Client; idv: Client };
const ids = { applicant: '', template: '', reviewSession: '', dsar: '' };
let jpeg: Buffer;

before(async () => {
  const raw = await client('us')<Doc>('GET', '/v1/openapi.json');
  assert.equal(raw.status, 200, raw.text.slice(0, 300));
  doc = raw.body;
  ajv.addSchema(closed(doc) as unknown as Json, DOC_ID);

  const o = await orgWithKey('us', { tier: 'enterprise' });
  full = client('us', o.key);
  noKey = client('us');
  otherRegion = client('eu', o.key);
  scoped = {
    webhooks: client('us', (await createKey('us', o.org.id, { scopes: ['webhooks:read'] })).key),
    idv: client('us', (await createKey('us', o.org.id, { scopes: ['idv:scan'] })).key),
  };
  jpeg = await sampleImage('jpeg');
  ids.applicant = await newApplicant(full);
  ids.template = await newTemplate(full, { name: 'Contract', checks: ['document', 'face_match'] });
  const s = await createSession(full, { applicant_id: ids.applicant, workflow_template_id: ids.template, expected_outcome: 'review' });
  assert.equal(s.status, 201, s.text);
  ids.reviewSession = s.body.data.id;
  await waitFor(async () => (await full<One>('GET', `/v1/sessions/${ids.reviewSession}`)).body.data?.status === 'manual_review', 10_000);
});

/** A well-formed id that names nothing. */
const unknown = (prefix: string) => `${prefix}_${'Q'.repeat(24)}`;

describe('the document served by the gateway', () => {
  it('is the one of this build, served without a key (a bad one is ignored) and counted against the IP limit', async () => {
    const committed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'apps/gateway/openapi/openapi.json'), 'utf8')) as Doc;
    assert.deepEqual(doc, committed);
    for (const c of [noKey, client('us', 'idv_sk_us_test_not-a-key')]) {
      const res = await c('GET', '/v1/openapi.json');
      conforms('GET /v1/openapi.json', res, 200);
      assert.match(res.headers.get('x-ratelimit-limit') ?? '', /^[0-9]+$/, 'the pre-authentication IP bucket');
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
    }
    const post = await noKey('POST', '/v1/openapi.json', { body: {} });
    assert.equal(post.status, 404);
  });

  it('checks answers closed: a field the document does not name fails (the check is not vacuous)', async () => {
    const me = await full<{ data: Json }>('GET', '/v1/me');
    conforms('GET /v1/me', me, 200);
    assert.throws(() => conforms('GET /v1/me', { ...me, body: { data: { ...me.body.data, undocumented: 1 } } }, 200), /undocumented|additional/);
    assert.throws(() => conforms('GET /v1/me', { ...me, status: 404, body: { error: { code: 'route_not_found' } } } as ApiResponse, 404), /not a documented answer/);
  });

  it('is rendered at /docs and /docs/, each route with its anchor, each error code linking to an anchor of /docs/errors', async () => {
    const page = await noKey('GET', '/docs');
    assert.equal(page.status, 200);
    assert.equal((await noKey('GET', '/docs/')).text, page.text);
    for (const item of Object.values(doc.paths)) for (const op of Object.values(item)) assert.ok(page.text.includes(`id="${op['operationId'] as string}"`), op['operationId'] as string);
    const errors = await noKey('GET', '/docs/errors');
    assert.equal(errors.status, 200);
    const codes = new Set([...page.text.matchAll(/href="\/docs\/errors#([a-z_]+)"/g)].map((m) => m[1]!));
    assert.ok(codes.size > 20);
    for (const code of codes) assert.ok(errors.text.includes(`id="${code}"`), `/docs/errors has no anchor ${code}`);
  });
});

describe('every route answers as the document says', () => {
  it('account: GET /v1/me', async () => {
    conforms('GET /v1/me', await full('GET', '/v1/me'), 200);
    conforms('GET /v1/me', await noKey('GET', '/v1/me'), 401, 'authentication_required');
    conforms('GET /v1/me', await client('us', 'idv_sk_us_test_short')('GET', '/v1/me'), 401, 'invalid_api_key');
    conforms('GET /v1/me', await otherRegion('GET', '/v1/me'), 403, 'region_mismatch');
  });

  it('applicants', async () => {
    conforms('POST /v1/applicants', await full('POST', '/v1/applicants', { body: { family_name: 'Contract', given_names: ['Ann'] } }), 201);
    conforms('POST /v1/applicants', await full('POST', '/v1/applicants', { body: { first_name: 'Ann' } }), 422, 'validation_error');
    conforms('POST /v1/applicants', await full('POST', '/v1/applicants', { rawBody: '{', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    conforms('POST /v1/applicants', await scoped.webhooks('POST', '/v1/applicants', { body: { family_name: 'X' } }), 403, 'insufficient_scope');
    conforms('GET /v1/applicants', await full('GET', '/v1/applicants?limit=2'), 200);
    conforms('GET /v1/applicants', await full('GET', '/v1/applicants?limit=0'), 422, 'validation_error');
    conforms('GET /v1/applicants/{id}', await full('GET', `/v1/applicants/${ids.applicant}`), 200);
    conforms('GET /v1/applicants/{id}', await full('GET', `/v1/applicants/${unknown('app')}`), 404, 'resource_not_found');
  });

  it('workflow templates', async () => {
    const rule = { name: 'many findings', ruleType: 'watchlist_hit', condition: { kind: 'group', op: 'AND', children: [{ kind: 'field', field: 'finding.count', operator: 'gt', value: 2 }] }, action: 'review' };
    conforms('POST /v1/workflow-templates', await full('POST', '/v1/workflow-templates', { body: { name: 'Rules', checks: ['document', 'document_signing'], screening_rules: [rule], signing_document: { title: 'Lease', variables: ['amount', 'currency'] } } }), 201);
    conforms('POST /v1/workflow-templates', await full('POST', '/v1/workflow-templates', { body: { name: 'Rules', screening_rules: [{ ...rule, action: 'decline', ruleType: 'credit_history' }] } }), 422, 'validation_error');
    conforms('POST /v1/workflow-templates', await full('POST', '/v1/workflow-templates', { body: { name: 'Sign', checks: ['document_signing'] } }), 403, 'esign_requirements_not_met');
    conforms('GET /v1/workflow-templates', await full('GET', '/v1/workflow-templates'), 200);
    conforms('GET /v1/workflow-templates/{id}', await full('GET', `/v1/workflow-templates/${ids.template}`), 200);
    conforms('GET /v1/workflow-templates/{id}', await full('GET', `/v1/workflow-templates/${unknown('wft')}`), 404, 'resource_not_found');
    conforms('PATCH /v1/workflow-templates/{id}', await full('PATCH', `/v1/workflow-templates/${ids.template}`, { body: { review_threshold: 0.6 } }), 200);
    conforms('PATCH /v1/workflow-templates/{id}', await full('PATCH', `/v1/workflow-templates/${ids.template}`, { body: { colour: 'red' } }), 422, 'validation_error');
    conforms('PATCH /v1/workflow-templates/{id}', await full('PATCH', `/v1/workflow-templates/${unknown('wft')}`, { body: { name: 'x' } }), 404, 'resource_not_found');
    conforms('PATCH /v1/workflow-templates/{id}', await scoped.webhooks('PATCH', `/v1/workflow-templates/${ids.template}`, { body: { name: 'x' } }), 403, 'insufficient_scope');
  });

  it('sessions and their actions', async () => {
    const body = { applicant_id: ids.applicant, workflow_template_id: ids.template, metadata: { location: ' Berlin ', own: { any: 1 } } };
    conforms('POST /v1/sessions', await full('POST', '/v1/sessions', { body }), 201);
    conforms('POST /v1/sessions', await full('POST', '/v1/sessions', { body: { ...body, metadata: { amount: 100 } } }), 422, 'validation_error');
    conforms('POST /v1/sessions', await full('POST', '/v1/sessions', { body: { ...body, applicant_id: unknown('app') } }), 404, 'resource_not_found');
    conforms('GET /v1/sessions', await full('GET', `/v1/sessions?applicant_id=${ids.applicant}&status=manual_review`), 200);
    conforms('GET /v1/sessions', await full('GET', '/v1/sessions?status=nope'), 422, 'validation_error');
    conforms('GET /v1/sessions/{id}', await full('GET', `/v1/sessions/${ids.reviewSession}`), 200);
    conforms('GET /v1/sessions/{id}', await full('GET', `/v1/sessions/${unknown('ses')}`), 404, 'resource_not_found');
    conforms('GET /v1/sessions/{id}', await scoped.webhooks('GET', `/v1/sessions/${ids.reviewSession}`), 403, 'insufficient_scope');

    const s = ids.reviewSession;
    conforms('POST /v1/sessions/{id}/notes', await full('POST', `/v1/sessions/${s}/notes`, { body: { note: 'checked by phone' } }), 200);
    conforms('POST /v1/sessions/{id}/notes', await full('POST', `/v1/sessions/${s}/notes`, { body: { note: '  ' } }), 422, 'validation_error');
    conforms('POST /v1/sessions/{id}/notes', await full('POST', `/v1/sessions/${unknown('ses')}/notes`, { body: { note: 'x' } }), 404, 'resource_not_found');
    conforms('POST /v1/sessions/{id}/review', await full('POST', `/v1/sessions/${s}/review`, { body: {} }), 409, 'invalid_state_transition');
    conforms('POST /v1/sessions/{id}/decision', await full('POST', `/v1/sessions/${s}/decision`, { body: { outcome: 'maybe' } }), 422, 'validation_error');
    conforms('POST /v1/sessions/{id}/decision', await full('POST', `/v1/sessions/${s}/decision`, { body: { outcome: 'approved', reason: 'documents match' } }), 200);
    conforms('POST /v1/sessions/{id}/decision', await full('POST', `/v1/sessions/${s}/decision`, { body: { outcome: 'approved' } }), 409, 'invalid_state_transition');
    conforms('POST /v1/sessions/{id}/cancel', await full('POST', `/v1/sessions/${s}/cancel`), 409, 'invalid_state_transition');

    // review and cancel from `pending`: live sessions, which wait for their applicant
    const a = await liveSession('us', { checks: ['document'] });
    conforms('POST /v1/sessions/{id}/review', await a.c('POST', `/v1/sessions/${a.session.id}/review`, { body: { reason: 'looks odd' } }), 200);
    conforms('POST /v1/sessions/{id}/cancel', await a.c('POST', `/v1/sessions/${a.session.id}/cancel`, { body: { colour: 'red' } }), 422, 'validation_error');
    conforms('POST /v1/sessions/{id}/cancel', await a.c('POST', `/v1/sessions/${a.session.id}/cancel`), 200);
    conforms('POST /v1/sessions/{id}/cancel', await a.c('POST', `/v1/sessions/${unknown('ses')}/cancel`), 404, 'resource_not_found');
  });

  it('evidence images', async () => {
    const p = `/v1/sessions/${ids.reviewSession}/idv-image`;
    const route = 'GET /v1/sessions/{id}/idv-image/{artifact}';
    conforms(route, await full('GET', `${p}/front`), 200);
    conforms(route, await full('GET', `${p}/back`), 404, 'resource_not_found');
    conforms(route, await full('GET', `/v1/sessions/${unknown('ses')}/idv-image/front`), 404, 'resource_not_found');
    conforms(route, await scoped.webhooks('GET', `${p}/front`), 403, 'insufficient_scope');
    const noFace = await createSession(full, { applicant_id: ids.applicant, workflow_template_id: ids.template, expected_outcome: 'doc_quality' });
    await waitFor(async () => (await full<One>('GET', `/v1/sessions/${noFace.body.data.id}`)).body.data?.status === 'manual_review', 10_000);
    conforms(route, await full('GET', `/v1/sessions/${noFace.body.data.id}/idv-image/portrait`), 404, 'artifact_not_available');
  });

  it('ID scan', async () => {
    const route = 'POST /v1/id-verification';
    const send = (c: Client, parts: Parameters<typeof multipart>[0]) => {
      const m = multipart(parts);
      return c('POST', '/v1/id-verification', { rawBody: m.body, headers: { 'content-type': m.contentType } });
    };
    conforms(route, await send(full, [{ name: 'front', file: jpeg }]), 200);
    conforms(route, await send(full, [{ name: 'front', file: jpeg }, { name: 'expected_outcome', value: 'fail' }]), 422, 'document_unreadable');
    conforms(route, await send(full, [{ name: 'back', file: jpeg }]), 422, 'validation_error');
    conforms(route, await send(full, [{ name: 'front', file: SVG_IMAGE, type: 'image/svg+xml' }]), 415, 'unsupported_file_type');
    conforms(route, await send(scoped.webhooks, [{ name: 'front', file: jpeg }]), 403, 'insufficient_scope');
  });

  it('webhook delivery log', async () => {
    conforms('GET /v1/webhook-events', await full('GET', `/v1/webhook-events?session_id=${ids.reviewSession}`), 200);
    conforms('GET /v1/webhook-events', await full('GET', '/v1/webhook-events?cursor=nope'), 422, 'validation_error');
    conforms('GET /v1/webhook-events', await scoped.idv('GET', '/v1/webhook-events'), 403, 'insufficient_scope');
  });

  it('data subject requests', async () => {
    // the applicant of the review session: its export holds that session's images
    const applicant = ids.applicant;
    const created = await full<{ data: { id: string } }>('POST', '/v1/data_subject_requests', { body: { type: 'access', applicant_id: applicant } });
    conforms('POST /v1/data_subject_requests', created, 202);
    conforms('POST /v1/data_subject_requests', await full('POST', '/v1/data_subject_requests', { body: { type: 'forget', applicant_id: applicant } }), 422, 'validation_error');
    conforms('POST /v1/data_subject_requests', await full('POST', '/v1/data_subject_requests', { body: { type: 'access', applicant_id: unknown('app') } }), 404, 'resource_not_found');
    const id = created.body.data.id;
    const done = await waitFor(async () => {
      const r = await full<{ data: { status: string } }>('GET', `/v1/data_subject_requests/${id}`);
      return r.body.data?.status === 'completed' ? r : undefined;
    }, 20_000);
    conforms('GET /v1/data_subject_requests/{id}', done, 200);
    conforms('GET /v1/data_subject_requests/{id}', await full('GET', `/v1/data_subject_requests/${unknown('dsr')}`), 404, 'resource_not_found');
    conforms('GET /v1/data_subject_requests/{id}', await scoped.idv('GET', `/v1/data_subject_requests/${id}`), 403, 'insufficient_scope');
    const image = 'GET /v1/data_subject_requests/{id}/images/{index}';
    conforms(image, await full('GET', `/v1/data_subject_requests/${id}/images/0`), 200);
    conforms(image, await full('GET', `/v1/data_subject_requests/${id}/images/99`), 404, 'resource_not_found');
    conforms(image, await full('GET', `/v1/data_subject_requests/${unknown('dsr')}/images/0`), 404, 'resource_not_found');
    conforms(image, await scoped.idv('GET', `/v1/data_subject_requests/${id}/images/0`), 403, 'insufficient_scope');
  });

  it('the capture API and the hosted page', async () => {
    const a = await liveSession('us', { checks: ['document'] });
    const cap = client('us', a.secret);
    conforms('GET /v1/capture', await cap('GET', '/v1/capture'), 200);
    conforms('GET /v1/capture', await noKey('GET', '/v1/capture'), 401, 'authentication_required');
    conforms('GET /v1/capture', await client('us', `vcs_${'Q'.repeat(43)}`)('GET', '/v1/capture'), 401, 'invalid_capture_token');
    const put = (artifact: string) => cap('PUT', `/v1/capture/images/${artifact}`, { rawBody: jpeg, headers: { 'content-type': 'image/jpeg' } });
    conforms('PUT /v1/capture/images/{artifact}', await put('front'), 200);
    conforms('PUT /v1/capture/images/{artifact}', await put('portrait'), 404, 'resource_not_found');
    conforms('PUT /v1/capture/images/{artifact}', await cap('PUT', '/v1/capture/images/back', { rawBody: SVG_IMAGE, headers: { 'content-type': 'image/jpeg' } }), 415, 'unsupported_file_type');
    conforms('POST /v1/capture/images/{artifact}/check', await cap('POST', '/v1/capture/images/front/check', { body: { document_type: 'passport' } }), 200);
    conforms('POST /v1/capture/images/{artifact}/check', await cap('POST', '/v1/capture/images/selfie/check'), 404, 'resource_not_found');
    conforms('POST /v1/capture/images/{artifact}/check', await cap('POST', '/v1/capture/images/front/check', { body: { document_type: 'scroll' } }), 422, 'validation_error');
    conforms('POST /v1/capture/submit', await cap('POST', '/v1/capture/submit', { body: { acquisition: 'scanner' } }), 422, 'validation_error');
    conforms('POST /v1/capture/submit', await cap('POST', '/v1/capture/submit', { body: { acquisition: 'camera', signals: { paste_count: 0, form_factor: 'desktop' } } }), 202);
    conforms('GET /v1/capture', await cap('GET', '/v1/capture'), 409, 'invalid_state_transition');

    const live = client('us', (await liveSession('us', { checks: ['document', 'face_match', 'liveness'] })).secret);
    const frame = (index: string, query: string) => live('PUT', `/v1/capture/challenge/frames/${index}${query}`, { rawBody: jpeg, headers: { 'content-type': 'image/jpeg' } });
    conforms('PUT /v1/capture/challenge/frames/{index}', await frame('0', '?offset_ms=0'), 200);
    conforms('PUT /v1/capture/challenge/frames/{index}', await frame('1', ''), 422, 'validation_error');
    conforms('PUT /v1/capture/challenge/frames/{index}', await frame('8', '?offset_ms=900'), 404, 'resource_not_found');

    const b = await liveSession('us', { checks: ['document'] });
    const skip = client('us', b.secret);
    conforms('GET /verify/{secret}', await noKey('GET', `/verify/${b.secret}`), 200);
    conforms('GET /verify/{secret}', await noKey('GET', `/verify/vcs_${'Q'.repeat(43)}`), 404);
    conforms('POST /v1/capture/skip', await skip('POST', '/v1/capture/skip', { body: { step: 'selfie' } }), 422, 'validation_error');
    conforms('POST /v1/capture/skip', await skip('POST', '/v1/capture/skip', { body: { step: 'document_front' } }), 200);
  });

  it('operations and privacy keys, without a key', async () => {
    conforms('GET /health/live', await noKey('GET', '/health/live'), 200);
    conforms('GET /health/ready', await noKey('GET', '/health/ready'), 200);
    conforms('GET /.well-known/erasure-keys.json', await noKey('GET', '/.well-known/erasure-keys.json'), 200);
  });

  it('every key route: 401 without a key, 403 region_mismatch with a key of the other region', async () => {
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const security = op['security'] as Array<Record<string, unknown>>;
        if (!security.length || !('apiKey' in security[0]!)) continue;
        const url = p.replace('{id}', unknown('ses')).replace('{artifact}', 'front');
        const route = `${method.toUpperCase()} ${p}`;
        conforms(route, await noKey(method.toUpperCase(), url, method === 'get' ? {} : { body: {} }), 401, 'authentication_required');
        conforms(route, await otherRegion(method.toUpperCase(), url, method === 'get' ? {} : { body: {} }), 403, 'region_mismatch');
      }
    }
  });

  it('the refusals every route shares: invalid JSON, too large, a reused Idempotency-Key, billing, rate limits', async () => {
    const op = { principal: null, requestId: 'req_e2e_contract' };
    const ops = await operator('us');
    conforms('POST /v1/applicants', await full('POST', '/v1/applicants', { rawBody: '{"family_name":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    conforms('POST /v1/applicants', await full('POST', '/v1/applicants', { body: { family_name: 'x'.repeat(2 * 1024 * 1024) } }), 413, 'request_too_large');
    const key = { 'idempotency-key': `contract-${Date.now()}` };
    conforms('POST /v1/applicants', await full('POST', '/v1/applicants', { body: { family_name: 'Once' }, headers: key }), 201);
    conforms('POST /v1/applicants', await full('POST', '/v1/applicants', { body: { family_name: 'Twice' }, headers: key }), 422, 'idempotency_key_reused');

    // live mode with a locked wallet: 402 on every live route but the account-state reads
    const broke = await orgWithKey('us', { mode: 'live' });
    await ops.call(SUBJECTS.accountsBillingSet, { org_id: broke.org.id, wallet_locked: true }, op);
    conforms('GET /v1/applicants', await client('us', broke.key)('GET', '/v1/applicants'), 402, 'payment_required');
    // a canceled subscription: 403 on every live route but GET /v1/me (test mode never checks)
    const canceled = await orgWithKey('us', { mode: 'live' });
    await ops.call(SUBJECTS.accountsBillingSet, { org_id: canceled.org.id, subscription_status: 'canceled' }, op);
    conforms('GET /v1/applicants', await client('us', canceled.key)('GET', '/v1/applicants'), 403, 'subscription_required');
    // a custom tier of one read a minute: the second is 429
    const limited = await orgWithKey('us');
    await ops.call(SUBJECTS.accountsOrgSetTier, { org_id: limited.org.id, tier: 'custom', limits: { reads: 1 } }, op);
    const reads = client('us', limited.key);
    const first = await reads('GET', '/v1/applicants');
    const second = first.status === 429 ? first : await reads('GET', '/v1/applicants');
    conforms('GET /v1/applicants', second, 429, 'rate_limit_exceeded');
  });

  it('answered every route of the document with its success status', () => {
    const missing: string[] = [];
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const route = `${method.toUpperCase()} ${p}`;
        const success = Object.keys(op['responses'] as Json).find((s) => s.startsWith('2'))!;
        if (!seen.get(route)?.has(Number(success))) missing.push(`${route} ${success}`);
      }
    }
    assert.deepEqual(missing, []);
    // and a refusal of every route but the probes that have none to provoke cheaply
    const refusedOnce = [...seen].filter(([, statuses]) => [...statuses].some((s) => s >= 400)).length;
    assert.ok(refusedOnce >= Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0) - 4, `${refusedOnce} routes refused`);
  });
});
