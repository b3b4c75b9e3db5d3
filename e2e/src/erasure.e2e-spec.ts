/**
 * Erasure leaves nothing (docs/privacy.md), on a stack of this file's own:
 * - a person is an applicant in test mode and in live mode of one organization; the live applicant goes through
 *   the capture flow (a photographed passport in the person's name, a selfie), both have sessions with metadata,
 *   notes, invitations and evidence, and an access request holds an export of them. Both are erased; afterwards
 *   no text, JSON or bytea column of any table of the region's database holds any of the person's values (nor a
 *   slice of any of the person's stored images), every read from the outside shows the erasure, and another
 *   applicant of the same organization is untouched, down to its stored rows;
 * - every service is SIGKILLed once while an erasure is under way; each erasure still completes and leaves
 *   nothing;
 * - an access export with more images than the stack's `DSAR_INLINE_IMAGES` (2 here) inlines exactly that many and
 *   serves every image, inlined or not, at its entry's `url`, to the request's owner only.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { SUBJECTS, type DataSubjectRequest, type ErasureCertificatePayload } from '@verity/contracts';
import { catalogueSpecimen, selfie } from '@verity/specimens';
import { SERVICES, type ServiceName } from '@verity/stack';
import { api, photographDocument, query, waitFor, type ApiResponse } from '@verity/testing';
import { startOwnStack, type OwnStack } from './own-stack.js';

const op = { principal: null, requestId: 'req_e2e_erasure' };
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const letters = (n: number) => Array.from({ length: n }, () => String.fromCharCode(65 + randomInt(26))).join('');

/** The values of one person: every one must be gone from the database after its erasure. */
function newPerson() {
  const tag = randomBytes(4).toString('hex');
  // letters only: the passport's machine-readable zone prints names in capitals A to Z
  const family = `Quill${letters(8)}`;
  const given = `Zephy${letters(8)}`;
  return {
    family,
    given,
    email: `zephy.${tag}@canary.example`,
    phone: `+1415555${String(randomInt(1000, 9999))}`,
    dob: `19${randomInt(40, 79)}-0${randomInt(1, 9)}-1${randomInt(0, 9)}`,
    street: `${tag} Canary Lane`,
    city: `Quillton${tag}`,
    postal: `Q${tag.slice(0, 5).toUpperCase()}`,
    externalId: `crm-${tag}`,
    meta: `meta-${tag}-value`,
    note: `Called ${given} on ${tag}`,
    reason: `Declined after a call with ${family}`,
  };
}
type Person = ReturnType<typeof newPerson>;

/** The strings searched for: each value as stored, and the forms other services may hold it in. */
function needlesOf(p: Person, extra: string[] = []): string[] {
  return [p.family, p.given, p.email, p.email.split('@')[0]!, p.phone, p.dob, p.street, p.city, p.postal, p.externalId, p.meta, p.note, p.reason, ...extra];
}

function applicantBody(p: Person) {
  return {
    family_name: p.family,
    given_names: [p.given],
    email: p.email,
    phone: p.phone,
    date_of_birth: p.dob,
    address: { line1: p.street, city: p.city, postal_code: p.postal, country: 'NL' },
    external_id: p.externalId,
  };
}

/** The stack's `DSAR_INLINE_IMAGES`: fewer than a test session's three images. */
const INLINE = 2;

describe('erasure', () => {
  let own: OwnStack;

  before(async () => {
    own = await startOwnStack('erasure', {
      env: { LOG_LEVEL: 'error', RPC_TIMEOUT_MS: '2000', RATE_LIMIT_IP_PER_MINUTE: '100000' },
      // id-scan keeps nothing about anyone: an erasure never calls it
      replicas: { 'id-scan': 0 },
      serviceEnv: { sessions: { JOBS_POLL_MS: '200', CAPTURE_SECRET_KEY: randomBytes(32).toString('base64') }, gateway: { DSAR_INLINE_IMAGES: String(INLINE) } },
    });
  });

  after(async () => {
    await own?.close();
  });

  const base = () => own.stack.baseUrl('us');
  const call = <T = { data: { id: string } }>(key: string, method: string, p: string, body?: unknown): Promise<ApiResponse<T>> => api<T>(base(), method, p, { key, body });
  function ok<T>(r: ApiResponse<T>, status = 200): T {
    assert.equal(r.status, status, `${r.status} ${r.text}`);
    return r.body;
  }

  /** An enterprise organization with a test and a live key (wallet filled for live creates). */
  async function organization(name: string) {
    const org = await own.ops.call(SUBJECTS.accountsOrgCreate, { name, tier: 'enterprise' }, op);
    await own.ops.call(SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: 1_000_000 }, op);
    const scopes = ['applicants:read', 'applicants:write', 'workflows:write', 'sessions:read', 'sessions:write', 'sessions:read_report', 'dsar:write'];
    const key = async (mode: 'test' | 'live') => (await own.ops.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode, type: 'sk', scopes }, op)).key;
    return { org, test: await key('test'), live: await key('live') };
  }

  /** A test-mode applicant of `p` with a session run to its end, a note and a review decision. */
  async function testApplicant(key: string, p: Person) {
    const a = ok(await call(key, 'POST', '/v1/applicants', applicantBody(p)), 201).data.id;
    const t = ok(await call(key, 'POST', '/v1/workflow-templates', { name: 'erasure', checks: ['document', 'face_match', 'liveness'] }), 201).data.id;
    const s = ok(await call(key, 'POST', '/v1/sessions', { applicant_id: a, workflow_template_id: t, expected_outcome: 'review', metadata: { customer_ref: p.meta } }), 201).data.id;
    await waitFor(async () => ((await read(key, s)).status === 'manual_review' ? true : undefined), 20_000);
    ok(await call(key, 'POST', `/v1/sessions/${s}/notes`, { note: p.note }));
    ok(await call(key, 'POST', `/v1/sessions/${s}/decision`, { outcome: 'declined', reason: p.reason }));
    return { applicantId: a, sessionIds: [s] };
  }

  async function read(key: string, sessionId: string) {
    return ok(await call<{ data: { status: string; metadata: Record<string, unknown>; idv?: { available_images: string[] } } & Record<string, unknown> }>(key, 'GET', `/v1/sessions/${sessionId}`)).data;
  }

  /** A live applicant of `p` whose session went through the capture flow with a passport in `p`'s name. */
  async function liveApplicant(key: string, p: Person) {
    const a = ok(await call(key, 'POST', '/v1/applicants', applicantBody(p)), 201).data.id;
    const t = ok(await call(key, 'POST', '/v1/workflow-templates', { name: 'erasure', checks: ['document', 'face_match', 'liveness'] }), 201).data.id;
    const created = ok(await call<{ data: { id: string; client_secret: string } }>(key, 'POST', '/v1/sessions', { applicant_id: a, workflow_template_id: t, metadata: { customer_ref: p.meta } }), 201).data;
    const s = catalogueSpecimen('td3', 3);
    const specimen = {
      holder: { ...s.holder, familyName: p.family.toUpperCase(), givenNames: [p.given.toUpperCase()], dateOfBirth: p.dob, person: 'collins' as const },
      document: { ...s.document, issuer: 'NLD' },
    };
    const photos = await photographDocument(specimen, { width: 2400, height: 1800, rotation: 3, seed: 7 });
    const capture = (method: string, path: string, opts: { body?: unknown; rawBody?: Uint8Array; headers?: Record<string, string> } = {}) =>
      api(base(), method, path, { key: created.client_secret, ...opts });
    for (const [artifact, bytes] of [['front', photos.front], ['selfie', await selfie('collins')]] as const) {
      ok(await capture('PUT', `/v1/capture/images/${artifact}`, { rawBody: bytes, headers: { 'content-type': 'image/jpeg' } }));
    }
    ok(await capture('POST', '/v1/capture/submit', { body: { acquisition: 'camera' } }), 202);
    await waitFor(async () => (['completed', 'manual_review', 'errored'].includes((await read(key, created.id)).status) ? true : undefined), 90_000, 250);
    ok(await call(key, 'POST', `/v1/sessions/${created.id}/notes`, { note: p.note }));
    return { applicantId: a, sessionIds: [created.id], documentNumber: s.document.number };
  }

  async function dsar(key: string, type: 'access' | 'erasure', applicantId: string): Promise<DataSubjectRequest> {
    return ok(await call<{ data: DataSubjectRequest }>(key, 'POST', '/v1/data_subject_requests', { type, applicant_id: applicantId }), 202).data;
  }

  async function completed(key: string, id: string, ms = 120_000): Promise<DataSubjectRequest> {
    return waitFor(async () => {
      const r = await call<{ data: DataSubjectRequest }>(key, 'GET', `/v1/data_subject_requests/${id}`);
      return r.status === 200 && r.body.data.status === 'completed' ? r.body.data : undefined;
    }, ms, 200);
  }

  /** Every table (schema-qualified) holding a row whose text form contains one of `needles`, with the count. */
  async function search(needles: string[]): Promise<string[]> {
    const tables = await query<{ t: string }>(
      own.db.url,
      `SELECT format('%I.%I', table_schema, table_name) AS t FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema', 'public')`,
    );
    assert.ok(tables.length > 10, 'the schemas are there');
    const found: string[] = [];
    for (const { t } of tables) {
      // a row's text form holds every column: text, arrays, json and jsonb as written, dates, and bytea as hex
      const [r] = await query<{ n: number }>(own.db.url, `SELECT count(*)::int AS n FROM ${t} x WHERE x::text ILIKE ANY($1)`, [needles.map((n) => `%${n}%`)]);
      if (r!.n > 0) found.push(`${t}: ${r!.n}`);
    }
    return found;
  }

  /** 48 bytes from the middle of each image the API serves for the sessions, as the hex a bytea prints as. */
  async function imageSlices(key: string, sessionIds: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const id of sessionIds) {
      for (const artifact of (await read(key, id)).idv?.available_images ?? []) {
        const r = await fetch(`${base()}/v1/sessions/${id}/idv-image/${artifact}`, { headers: { authorization: `Bearer ${key}` } });
        assert.equal(r.status, 200);
        const bytes = Buffer.from(await r.arrayBuffer());
        const mid = Math.floor(bytes.length / 2);
        out.push(bytes.subarray(mid, mid + 48).toString('hex'));
      }
    }
    return out;
  }

  async function verifyCertificate(request: DataSubjectRequest): Promise<ErasureCertificatePayload> {
    const jwks = ok(await api<{ keys: [] }>(base(), 'GET', '/.well-known/erasure-keys.json'));
    const { payload } = await jwtVerify(request.certificate!, createLocalJWKSet(jwks as never), { algorithms: ['EdDSA'] });
    return payload as unknown as ErasureCertificatePayload;
  }

  it('erases a person in both modes from every table, and leaves another applicant as it was', async () => {
    const { org, test, live } = await organization('erasure');
    const person = newPerson();
    const other = newPerson();

    const liveRun = await liveApplicant(live, person);
    const testRun = await testApplicant(test, person);
    const otherTest = await testApplicant(test, other);
    const otherLive = ok(await call(live, 'POST', '/v1/applicants', applicantBody(other)), 201).data.id;
    // the live images are the person's own photographs; a test run's are the same synthetic specimen for everyone
    // (the other applicant's too), so they are checked by their rows instead
    const slices = await imageSlices(live, liveRun.sessionIds);
    assert.ok(slices.length >= 2, `images are stored (${slices.length})`);
    assert.ok((await imageSlices(test, testRun.sessionIds)).length >= 2, 'the test run stored images');
    const needles = needlesOf(person, [liveRun.documentNumber, ...slices]);

    // an access request first: its export holds the person, and is part of what the erasure must remove
    const access = await completed(live, (await dsar(live, 'access', liveRun.applicantId)).id);
    const exported = JSON.stringify(access.export);
    for (const v of [person.family, person.email, person.meta, person.note]) assert.ok(exported.includes(v), `the export holds ${v}`);
    assert.ok(!exported.includes(other.family) && !exported.includes(otherLive), 'the export holds nothing of the other applicant');
    assert.ok((access.export?.evidence ?? []).some((e) => typeof e.data_base64 === 'string' && e.data_base64.length > 1000), 'the export inlines the images');
    const imageUrl = access.export!.evidence[0]!.url!;
    assert.equal((await fetch(`${base()}${imageUrl}`, { headers: { authorization: `Bearer ${live}` } })).status, 200);

    // the search finds the person where it is stored before the erasure (it looks for the right strings)
    const before = await search(needles);
    for (const t of ['applicants.applicants', 'applicants.data_subject_requests', 'sessions.sessions', 'evidence.blobs']) {
      assert.ok(before.some((f) => f.startsWith(`${t}:`)), `before the erasure, ${t} holds the person (found: ${before.join(', ')})`);
    }
    const otherRowsBefore = await rowsOf(org.id, otherTest.applicantId, otherTest.sessionIds);
    const otherReadBefore = ok(await call(test, 'GET', `/v1/sessions/${otherTest.sessionIds[0]}`));

    const erasures = [await dsar(live, 'erasure', liveRun.applicantId), await dsar(test, 'erasure', testRun.applicantId)];
    const done = [await completed(live, erasures[0]!.id), await completed(test, erasures[1]!.id)];

    assert.deepEqual(await search(needles), [], 'no table holds any value of the person');
    assert.deepEqual(await storedImages([...liveRun.sessionIds, ...testRun.sessionIds]), [], 'no image of the person is stored');

    // from the outside
    for (const [key, run] of [[live, liveRun], [test, testRun]] as const) {
      const a = ok(await call<{ data: Record<string, unknown> }>(key, 'GET', `/v1/applicants/${run.applicantId}`)).data;
      assert.equal(a.id, run.applicantId);
      assert.equal(a.erased, true);
      for (const f of ['family_name', 'given_names', 'email', 'phone', 'date_of_birth', 'address', 'external_id']) assert.equal(a[f], null, f);
      for (const id of run.sessionIds) {
        const s = await read(key, id);
        assert.deepEqual(s.metadata, {});
        assert.equal(s.erased, true);
        assert.deepEqual(s.idv?.available_images ?? [], []);
        const img = await call<{ error: { code: string } }>(key, 'GET', `/v1/sessions/${id}/idv-image/front`);
        assert.equal(img.status, 404, img.text);
        assert.equal(img.body.error.code, 'artifact_not_available');
      }
    }
    const accessAfter = ok(await call<{ data: DataSubjectRequest }>(live, 'GET', `/v1/data_subject_requests/${access.id}`)).data;
    assert.equal(accessAfter.export, null, 'the earlier export went with the erasure');
    const imageAfter = await call<{ error: { code: string } }>(live, 'GET', imageUrl);
    assert.equal(imageAfter.status, 404, imageAfter.text);
    assert.equal(imageAfter.body.error.code, 'resource_not_found', 'its images went with it');

    // the certificates
    for (const [i, d] of done.entries()) {
      const payload = await verifyCertificate(d);
      assert.equal(payload.jti, d.id);
      assert.equal(payload.sub, [liveRun, testRun][i]!.applicantId);
      assert.equal(payload.region, 'us');
      assert.ok(payload.erased.sessions && payload.erased.evidence, `every service holding data reports: ${JSON.stringify(payload.erased)}`);
    }

    // the other applicant, in both modes, is as it was
    assert.deepEqual(await rowsOf(org.id, otherTest.applicantId, otherTest.sessionIds), otherRowsBefore);
    assert.deepEqual(ok(await call(test, 'GET', `/v1/sessions/${otherTest.sessionIds[0]}`)), otherReadBefore);
    const otherLiveRead = ok(await call<{ data: Record<string, unknown> }>(live, 'GET', `/v1/applicants/${otherLive}`)).data;
    assert.equal(otherLiveRead.family_name, other.family);
    assert.equal(otherLiveRead.erased, false);
    assert.ok((await search(needlesOf(other))).some((f) => f.startsWith('applicants.applicants:')), 'the other applicant is still stored');

    // erasing again is harmless: it completes, and the person stays erased
    const again = await completed(live, (await dsar(live, 'erasure', liveRun.applicantId)).id);
    await verifyCertificate(again);
    assert.deepEqual(await search(needles), []);
  });

  it('an access export inlines DSAR_INLINE_IMAGES images and serves each of them at its url, to its owner only', async () => {
    const { org, test, live } = await organization('exports');
    const run = await testApplicant(test, newPerson());
    const request = await completed(test, (await dsar(test, 'access', run.applicantId)).id);
    const exported = request.export!;
    // a test session stores three images: portrait, front, selfie
    assert.deepEqual([exported.evidence_total, exported.evidence_inlined, exported.evidence.length], [3, INLINE, 3]);
    const served: Buffer[] = [];
    for (const [i, e] of exported.evidence.entries()) {
      assert.equal(e.url, `/v1/data_subject_requests/${request.id}/images/${i}`);
      const res = await fetch(`${base()}${e.url}`, { headers: { authorization: `Bearer ${test}` } });
      assert.equal(res.status, 200, e.url);
      assert.equal(res.headers.get('content-type'), 'image/jpeg');
      assert.equal(res.headers.get('cache-control'), 'no-store, private');
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.equal(sha256(bytes), e.sha256, `${e.url} serves the stored image`);
      assert.equal(bytes.length, e.byte_size);
      if (i < INLINE) assert.ok(Buffer.from(e.data_base64!, 'base64').equals(bytes), `entry ${i} inlines the same bytes`);
      else assert.equal(e.data_base64, null, `entry ${i} is past the cap`);
      served.push(bytes);
    }
    assert.equal(new Set(served.map(sha256)).size, 3, 'three different images');

    // no such entry for the caller: another organization, the other mode, an index out of range or not a number,
    // an unknown request, an erasure
    const other = await organization('exports-other');
    const erasure = await dsar(test, 'erasure', ok(await call(test, 'POST', '/v1/applicants', { family_name: 'Nobody' }), 201).data.id);
    const refusals: Array<[string, string]> = [
      [other.test, `/v1/data_subject_requests/${request.id}/images/0`],
      [live, `/v1/data_subject_requests/${request.id}/images/0`],
      [test, `/v1/data_subject_requests/${request.id}/images/3`],
      [test, `/v1/data_subject_requests/${request.id}/images/01`],
      [test, `/v1/data_subject_requests/${request.id}/images/-1`],
      [test, `/v1/data_subject_requests/${request.id}/images/front`],
      [test, `/v1/data_subject_requests/dsr_${'Q'.repeat(24)}/images/0`],
      [test, `/v1/data_subject_requests/${erasure.id}/images/0`],
    ];
    for (const [key, path] of refusals) {
      const r = await call<{ error: { code: string; type: string; request_id: string } }>(key, 'GET', path);
      assert.equal(r.status, 404, `${path}: ${r.text}`);
      assert.equal(r.body.error.code, 'resource_not_found', path);
      assert.equal(r.body.error.type, 'invalid_request_error', path);
      assert.equal(r.body.error.request_id, r.headers.get('x-request-id'), path);
      assert.ok(!r.text.includes(run.applicantId), `${path} tells nothing of the request`);
    }
    // the read's scope: a key without dsar:write
    const noScope = (await own.ops.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes: ['sessions:read_report'] }, op)).key;
    const forbidden = await call<{ error: { code: string; details?: Record<string, unknown> } }>(noScope, 'GET', exported.evidence[0]!.url!);
    assert.equal(forbidden.status, 403, forbidden.text);
    assert.equal(forbidden.body.error.code, 'insufficient_scope');
    assert.deepEqual(forbidden.body.error.details, { required_scope: 'dsar:write' });
  });

  /** The stored images (served artifacts, `back` and capture uploads) of the sessions, with their blobs. */
  async function storedImages(sessionIds: string[]): Promise<string[]> {
    const found = await query<{ x: string }>(
      own.db.url,
      `SELECT 'artifact ' || a.artifact AS x FROM evidence.artifacts a WHERE a.session_id = ANY($1)
       UNION ALL SELECT 'upload ' || u.artifact FROM evidence.uploads u WHERE u.session_id = ANY($1)`,
      [sessionIds],
    );
    return found.map((r) => r.x);
  }

  /** Every stored row of an applicant and its sessions, in every table that names them. */
  async function rowsOf(orgId: string, applicantId: string, sessionIds: string[]): Promise<string[]> {
    const [r] = await query<{ rows: string[] }>(
      own.db.url,
      `SELECT array_agg(x ORDER BY x) AS rows FROM (
         SELECT a::text AS x FROM applicants.applicants a WHERE a.org_id = $1 AND a.id = $2
         UNION ALL SELECT s::text FROM sessions.sessions s WHERE s.id = ANY($3)
         UNION ALL SELECT e::text FROM sessions.email_log e WHERE e.session_id = ANY($3)
         UNION ALL SELECT a::text FROM evidence.artifacts a WHERE a.session_id = ANY($3)
         UNION ALL SELECT b::text FROM evidence.blobs b JOIN evidence.artifacts a ON a.storage_key = b.id WHERE a.session_id = ANY($3)) q`,
      [orgId, applicantId, sessionIds],
    );
    return r!.rows;
  }

  it('completes every erasure while each service in turn is SIGKILLed during it', async () => {
    const { test } = await organization('erasure-faults');
    const services: ServiceName[] = ['gateway', ...SERVICES];
    for (const service of services) {
      const person = newPerson();
      const run = await testApplicant(test, person);
      const needles = needlesOf(person);
      assert.ok((await imageSlices(test, run.sessionIds)).length >= 2, 'the test run stored images');
      // a service the erasure has to reach (sessions, evidence) is already down when the runner gets to it and
      // comes back while the request waits; any other (the gateway and the runner itself included) dies just
      // after the request is accepted
      let request: DataSubjectRequest;
      if (service === 'sessions' || service === 'evidence') {
        await own.stack.stopService('us', service, 'SIGKILL');
        request = await dsar(test, 'erasure', run.applicantId);
        await new Promise((r) => setTimeout(r, 1500));
        const [row] = await query<{ status: string }>(own.db.url, 'SELECT status FROM applicants.data_subject_requests WHERE id = $1', [request.id]);
        assert.equal(row?.status, 'pending', `the erasure waits for ${service}`);
      } else {
        request = await dsar(test, 'erasure', run.applicantId);
        await own.stack.stopService('us', service, 'SIGKILL');
      }
      own.stack.startService('us', service);
      await own.stack.waitReady('us', 60_000);
      const done = await completed(test, request.id);
      await verifyCertificate(done);
      assert.deepEqual(await search(needles), [], `after ${service} was killed, no table holds the person`);
      assert.deepEqual(await storedImages(run.sessionIds), [], `after ${service} was killed, no image of the person is stored`);
    }
  });
});
