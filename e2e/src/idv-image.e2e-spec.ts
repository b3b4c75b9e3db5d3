import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { SUBJECTS, type ActivityEntry, type EvidenceArtifact, type Principal } from '@verity/contracts';
import { newId } from '@verity/keys';
import { type ApiResponse, noisyJpeg, testPrincipal } from '@verity/testing';
import { adminCli, client, clientAs, clientIp, closeOperators, createKey, E2E, errorOf, freshWindow, operator, orgWithKey, rateLimitOf, rows, times, type Region } from './support.js';
import { newApplicant, newTemplate, waitStatus, type Client } from './sessions-support.js';

after(closeOperators);

const REGIONS: Region[] = ['us', 'eu'];
const SERVED: EvidenceArtifact[] = ['portrait', 'front', 'selfie'];
const IDENTITY = ['document', 'face_match', 'liveness'];

/** What the gateway attaches for a key: enough for the evidence service, which scopes by organization and mode. */
function principalOf(region: Region, orgId: string, keyId: string, mode: 'test' | 'live' = 'test'): Principal {
  return testPrincipal({ org_id: orgId, key_id: keyId, mode, region, scopes: ['sessions:read', 'sessions:read_report'] });
}

/** Stores bytes for an artifact directly (a capture of the future live flow: a document back, or a large photo). */
async function seedRaw(region: Region, p: Principal, sessionId: string, artifact: 'back' | EvidenceArtifact, bytes: Buffer): Promise<void> {
  const key = randomUUID();
  await rows(region, `INSERT INTO evidence.captures (session_id, org_id, mode, capture_acquisition) VALUES ($1, $2, $3, 'camera') ON CONFLICT DO NOTHING`, [sessionId, p.org_id, p.mode]);
  await rows(region, 'INSERT INTO evidence.blobs (id, byte_size, bytes) VALUES ($1, $2, $3)', [key, bytes.length, bytes]);
  await rows(
    region,
    `INSERT INTO evidence.artifacts (session_id, artifact, content_type, storage_key, byte_size, sha256) VALUES ($1, $2, 'image/jpeg', $3, $4, $5)
     ON CONFLICT (session_id, artifact) DO UPDATE SET storage_key = EXCLUDED.storage_key, byte_size = EXCLUDED.byte_size, sha256 = EXCLUDED.sha256`,
    [sessionId, artifact, key, bytes.length, createHash('sha256').update(bytes).digest('hex')],
  );
}

async function storedBytes(region: Region, sessionId: string, artifact: string): Promise<Buffer> {
  const [r] = await rows<{ bytes: Buffer }>(region, 'SELECT b.bytes FROM evidence.artifacts a JOIN evidence.blobs b ON b.id = a.storage_key WHERE a.session_id = $1 AND a.artifact = $2', [
    sessionId,
    artifact,
  ]);
  return r!.bytes;
}

async function createSession(c: Client, applicantId: string, templateId: string, expected?: string): Promise<string> {
  const res = await c<{ data: { id: string } }>('POST', '/v1/sessions', { body: { applicant_id: applicantId, workflow_template_id: templateId, ...(expected ? { expected_outcome: expected } : {}) } });
  if (res.status !== 201) throw new Error(`session not created: ${res.status} ${res.text}`);
  return res.body.data.id;
}

/** The image endpoint, returning the body as bytes. */
async function getImage(region: Region, key: string, sessionId: string, artifact: string): Promise<{ status: number; headers: Headers; bytes: Buffer; json: ApiResponse }> {
  const res = await fetch(`${E2E.url[region]}/v1/sessions/${sessionId}/idv-image/${artifact}`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': clientIp() } });
  const bytes = Buffer.from(await res.arrayBuffer());
  let body: unknown = null;
  try {
    body = JSON.parse(bytes.toString());
  } catch {
    body = null;
  }
  return { status: res.status, headers: res.headers, bytes, json: { status: res.status, headers: res.headers, body: body as Record<string, unknown>, text: bytes.toString('latin1') } };
}

/** The error envelope without its request id: what must be identical between two refusals. */
/** An error as a client could tell it apart: all but the request id and where its doc_url's host is (each region's gateway serves its own docs). */
function sameness(r: ApiResponse): string {
  const e = errorOf(r);
  return JSON.stringify({ ...e, request_id: '', doc_url: new URL(e.doc_url).hash });
}

async function activity(region: Region, orgId: string, session?: string): Promise<ActivityEntry[]> {
  const r = await adminCli(['activity', '--region', region, '--org', orgId, ...(session ? ['--session', session] : []), '--limit', '100']);
  assert.equal(r.code, 0, `admin activity failed: ${r.stderr}`);
  return (r.out as { data: ActivityEntry[] }).data;
}

/** One organization of a region with the verifications the tests read. */
async function world(region: Region) {
  const { org, key, keyId } = await orgWithKey(region);
  const c = client(region, key);
  const p = principalOf(region, org.id, keyId);
  const applicantId = await newApplicant(c);
  const identityTemplate = await newTemplate(c, { checks: IDENTITY });
  const watchlistTemplate = await newTemplate(c, { checks: ['watchlist'] });
  const full = await createSession(c, applicantId, identityTemplate);
  const docQuality = await createSession(c, applicantId, identityTemplate, 'doc_quality');
  const noIdentity = await createSession(c, applicantId, watchlistTemplate);
  // the test runs store their synthetic images (docs/evidence.md): every artifact for `pass`; no portrait for
  // `doc_quality`; nothing without an identity check
  await Promise.all([full, docQuality, noIdentity].map((id) => waitStatus(c, id)));
  // a stored back of the document: held, never served
  await seedRaw(region, p, full, 'back', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x42, 0x41, 0x43, 0x4b, 0xff, 0xd9]));
  return { region, org, key, keyId, c, p, full, docQuality, noIdentity };
}

for (const region of REGIONS) {
  describe(`GET /v1/sessions/{id}/idv-image/{artifact} (${region})`, () => {
    let w: Awaited<ReturnType<typeof world>>;
    before(async () => {
      w = await world(region);
    });

    it('portrait, front and selfie: 200, Content-Type image/jpeg, Cache-Control no-store, private, the stored JPEG bytes', async () => {
      for (const artifact of SERVED) {
        const r = await getImage(region, w.key, w.full, artifact);
        assert.equal(r.status, 200, `${artifact}: ${r.json.text.slice(0, 200)}`);
        assert.equal(r.headers.get('content-type'), 'image/jpeg');
        assert.equal(r.headers.get('cache-control'), 'no-store, private');
        assert.match(r.headers.get('x-request-id') ?? '', /^req_/);
        assert.equal(r.headers.get('location'), null);
        assert.equal(Number(r.headers.get('content-length')), r.bytes.length);
        assert.deepEqual([...r.bytes.subarray(0, 3)], [0xff, 0xd8, 0xff], 'JPEG start of image');
        assert.deepEqual([...r.bytes.subarray(-2)], [0xff, 0xd9], 'JPEG end of image');
        assert.ok(r.bytes.equals(await storedBytes(region, w.full, artifact)), `${artifact}: the bytes evidence holds`);
        const rl = rateLimitOf(r.json);
        assert.deepEqual([rl.limit, rl.window], [120, 60], 'the sessions:read_image budget');
      }
    });

    it('a large photo streams through whole and byte-exact', async () => {
      const big = await noisyJpeg(1600, 1100, 92);
      assert.ok(big.length > 1024 * 1024, `${big.length} bytes`);
      await seedRaw(region, w.p, w.docQuality, 'selfie', big);
      const r = await getImage(region, w.key, w.docQuality, 'selfie');
      assert.equal(r.status, 200);
      assert.equal(Number(r.headers.get('content-length')), big.length);
      assert.ok(r.bytes.equals(big));
    });

    it('back, or any value that is not a served artifact: 404 resource_not_found without echoing it, even with a back stored', async () => {
      const unknownSession = await getImage(region, w.key, newId('session'), 'front');
      const reference = sameness(unknownSession.json);
      const values = ['back', 'BACK', 'Front', 'passport', 'front.jpg', 'selfie%20', '%3Cscript%3Ealert(1)%3C%5Fscript%3E', 'z'.repeat(300)];
      for (const v of values) {
        const r = await getImage(region, w.key, w.full, v);
        assert.equal(r.status, 404, v);
        assert.equal(errorOf(r.json).code, 'resource_not_found', v);
        assert.equal(sameness(r.json), reference, `${v}: identical to an unknown verification`);
        const decoded = decodeURIComponent(v);
        assert.equal(r.json.text.includes(decoded), false, `${v} echoed`);
        assert.equal(r.json.text.toLowerCase().includes(decoded.toLowerCase()), false, `${v} echoed`);
      }
    });

    it('an id the key cannot see, a malformed id, an unknown id: one identical 404 resource_not_found', async () => {
      const other = await orgWithKey(region);
      const live = await createKey(region, w.org.id, { mode: 'live' });
      const otherRegion: Region = region === 'us' ? 'eu' : 'us';
      const there = await orgWithKey(otherRegion);
      const cases: [string, Promise<Awaited<ReturnType<typeof getImage>>>][] = [
        ['another organization', getImage(region, other.key, w.full, 'front')],
        ['a live key on a test verification', getImage(region, live.key, w.full, 'front')],
        ['the other region', getImage(otherRegion, there.key, w.full, 'front')],
        ['unknown id', getImage(region, w.key, newId('session'), 'portrait')],
        ['malformed id', getImage(region, w.key, 'ses_123', 'front')],
        ['an applicant id', getImage(region, w.key, newId('applicant'), 'front')],
        ['not an id', getImage(region, w.key, '%3Cscript%3Ealert(1)', 'front')],
      ];
      const bodies = new Set<string>();
      for (const [label, pending] of cases) {
        const r = await pending;
        assert.equal(r.status, 404, `${label}: ${r.json.text}`);
        assert.equal(errorOf(r.json).code, 'resource_not_found', label);
        assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8', label);
        assert.equal(r.json.text.includes(w.full), false, `${label}: the id is not echoed`);
        bodies.add(sameness(r.json));
      }
      assert.equal(bodies.size, 1, 'every case looks the same');
      assert.deepEqual(await activity(region, other.org.id), [], 'a refused request writes no entry, for the caller');
    });

    it('an encoded slash in the id or the artifact: 400 invalid_path, decided from the path alone, without echo', async () => {
      // (dot segments are tested with raw requests in apps/gateway/test/edge.int-spec.ts: fetch resolves them itself)
      const cases: [string, string][] = [
        ['..%2F..%2Fetc%2Fpasswd', 'front'],
        [w.full, '..%2Ffront'],
        [newId('session'), 'front%2F..'],
      ];
      for (const [session, artifact] of cases) {
        const r = await getImage(region, w.key, session, artifact);
        assert.equal(r.status, 400, `${session}/${artifact}: ${r.json.text}`);
        assert.equal(errorOf(r.json).code, 'invalid_path');
        assert.equal(/passwd|front|%2F|%2e/i.test(r.json.text), false, `${session}/${artifact} echoed`);
        assert.equal(r.json.text.includes(w.full), false, 'the id is not echoed');
      }
    });

    it('a served artifact with nothing stored: 404 artifact_not_available', async () => {
      const cases: [string, string][] = [
        [w.docQuality, 'portrait'], // no usable face on the document
        [w.noIdentity, 'portrait'], // the workflow never reached an identity step
        [w.noIdentity, 'front'],
        [w.noIdentity, 'selfie'],
      ];
      for (const [session, artifact] of cases) {
        const r = await getImage(region, w.key, session, artifact);
        assert.equal(r.status, 404, `${artifact}: ${r.json.text}`);
        const e = errorOf(r.json);
        assert.equal(e.code, 'artifact_not_available');
        assert.equal(e.type, 'invalid_request_error');
        assert.match(e.message, /idv\.available_images/);
      }
    });

    it('a key without sessions:read_report: 403 insufficient_scope', async () => {
      const k = await createKey(region, w.org.id, { scopes: ['sessions:read'] });
      const r = await getImage(region, k.key, w.full, 'front');
      assert.equal(r.status, 403);
      const e = errorOf(r.json);
      assert.equal(e.code, 'insufficient_scope');
      assert.deepEqual(e.details, { required_scope: 'sessions:read_report' });
    });

    it('the session read lists what evidence holds: portrait, front, selfie in that order, never back; no link of any kind', async () => {
      const opts = { principal: w.p, requestId: 'req_e2e' };
      // asked as sessions asks it for a session read
      const rpc = await clientAs(region, 'sessions');
      const cases: [string, EvidenceArtifact[]][] = [
        [w.full, ['portrait', 'front', 'selfie']],
        [w.docQuality, ['front', 'selfie']],
      ];
      for (const [id, images] of cases) {
        // evidence says a back is held (for the console); the session read never mentions it
        assert.deepEqual(await rpc.call(SUBJECTS.evidenceAvailable, { session_id: id }, opts), { available_images: images, capture_acquisition: 'camera', back_stored: id === w.full });
        const s = await waitStatus(w.c, id, undefined, 15_000);
        assert.deepEqual(s.idv, { capture_acquisition: 'camera', available_images: images }, `session read of ${id}`);
        assert.equal(/https?:|\/v1\//.test(JSON.stringify(s.idv)), false);
      }
      assert.deepEqual(await rpc.call(SUBJECTS.evidenceAvailable, { session_id: w.noIdentity }, opts), { available_images: [], capture_acquisition: null, back_stored: false });
      const none = await waitStatus(w.c, w.noIdentity, undefined, 15_000);
      assert.equal('idv' in none, false, 'no identity check: no idv');
      const list = await w.c<{ data: Record<string, unknown>[] }>('GET', '/v1/sessions');
      assert.ok(list.body.data.length >= 3);
      for (const s of list.body.data) assert.equal('idv' in s, false, 'not on the list');
    });
  });
}

describe('billing checks apply to the image endpoint (live mode)', () => {
  for (const region of REGIONS) {
    it(`${region}: a locked wallet is 402 payment_required, a canceled plan 403 subscription_required; neither writes an entry`, async () => {
      const rpc = await operator(region);
      const op = { principal: null, requestId: 'req_e2e' };
      const locked = await orgWithKey(region, { mode: 'live' });
      const canceled = await orgWithKey(region, { mode: 'live' });
      // set before either key is first used, so no cached principal predates the change
      await rpc.call(SUBJECTS.accountsBillingSet, { org_id: locked.org.id, wallet_locked: true }, op);
      await rpc.call(SUBJECTS.accountsBillingSet, { org_id: canceled.org.id, subscription_status: 'canceled' }, op);
      const a = await getImage(region, locked.key, newId('session'), 'front');
      assert.equal(a.status, 402);
      assert.equal(errorOf(a.json).code, 'payment_required');
      const b = await getImage(region, canceled.key, newId('session'), 'front');
      assert.equal(b.status, 403);
      assert.equal(errorOf(b.json).code, 'subscription_required');
      assert.deepEqual(await activity(region, locked.org.id), []);
      assert.deepEqual(await activity(region, canceled.org.id), []);
    });
  }
});

describe('the activity log of the image endpoint (read with the admin CLI)', () => {
  for (const region of REGIONS) {
    it(`${region}: one entry per request that reaches one of the organization's verifications; none for requests refused earlier`, async () => {
      const w = await world(region);
      const stranger = await orgWithKey(region);
      const noScope = await createKey(region, w.org.id, { scopes: ['sessions:read'] });
      const requests: [string, string, string, number][] = [
        // [key, session, artifact, status]
        [w.key, w.full, 'front', 200],
        [w.key, w.full, 'portrait', 200],
        [w.key, w.docQuality, 'portrait', 404], // artifact_not_available: reaches the verification
        [w.key, w.noIdentity, 'selfie', 404], // the same, for a run without an identity check
        [w.key, w.full, 'back', 404], // unserved type: refused earlier
        [w.key, w.full, 'signature', 404], // unserved type: refused earlier
        [w.key, 'ses_42', 'front', 404], // malformed id: refused earlier
        [w.key, newId('session'), 'front', 404], // not one of the organization's verifications
        [stranger.key, w.full, 'front', 404], // an id that is not the caller's
        [noScope.key, w.full, 'front', 403], // refused at the gateway
      ];
      const answers: Awaited<ReturnType<typeof getImage>>[] = [];
      for (const [key, session, artifact, status] of requests) {
        const r = await getImage(region, key, session, artifact);
        assert.equal(r.status, status, `${artifact} of ${session}: ${r.json.text.slice(0, 200)}`);
        answers.push(r);
      }
      const requestId = (i: number) => answers[i]!.headers.get('x-request-id');

      const entries = await activity(region, w.org.id);
      const expected = [
        { action: 'kyc.idv.evidence_export_failed', session_id: w.noIdentity, artifact: 'selfie', outcome: 'artifact_not_available', request_id: requestId(3) },
        { action: 'kyc.idv.evidence_export_failed', session_id: w.docQuality, artifact: 'portrait', outcome: 'artifact_not_available', request_id: requestId(2) },
        { action: 'kyc.idv.evidence_exported', session_id: w.full, artifact: 'portrait', outcome: 'served', request_id: requestId(1) },
        { action: 'kyc.idv.evidence_exported', session_id: w.full, artifact: 'front', outcome: 'served', request_id: requestId(0) },
      ];
      assert.deepEqual(
        entries.map((e) => ({ action: e.action, session_id: e.session_id, artifact: e.artifact, outcome: e.outcome, request_id: e.request_id })),
        expected,
      );
      for (const e of entries) {
        // the entry's fields and nothing else: no applicant data, no image data
        assert.deepEqual(Object.keys(e).sort(), ['action', 'artifact', 'created_at', 'id', 'key_id', 'mode', 'object', 'org_id', 'outcome', 'request_id', 'session_id']);
        assert.equal(e.object, 'activity');
        assert.equal(e.org_id, w.org.id);
        assert.equal(e.mode, 'test');
        assert.equal(e.key_id, w.keyId);
        assert.match(e.id, /^act_/);
        assert.ok(!JSON.stringify(e).includes('Doe') && !JSON.stringify(e).includes('jane'), 'no applicant data');
      }
      assert.deepEqual(
        (await activity(region, w.org.id, w.full)).map((e) => e.request_id),
        [requestId(1), requestId(0)],
        '--session keeps that verification’s entries',
      );
      assert.deepEqual(await activity(region, stranger.org.id), [], 'the refused caller has no entry either');
      // the other region's log has none of this organization's entries
      const otherRegion: Region = region === 'us' ? 'eu' : 'us';
      assert.deepEqual(await activity(otherRegion, w.org.id), []);
    });
  }
});

describe('rate class sessions:read_image', () => {
  it('120 requests per minute on every tier (enterprise in us, custom with raised limits in eu); the 121st is 429, and writes no entry', async () => {
    await Promise.all(
      (
        [
          ['us', 'enterprise'],
          ['eu', 'custom'],
        ] as const
      ).map(async ([region, tier]) => {
        const { org, key } = await orgWithKey(region, { tier });
        if (tier === 'custom') {
          await (await operator(region)).call(
            SUBJECTS.accountsOrgSetTier,
            { org_id: org.id, tier: 'custom', limits: { reads: 100_000, global: 100_000 } },
            { principal: null, requestId: 'req_e2e' },
          );
        }
        const c = client(region, key);
        const applicantId = await newApplicant(c);
        const session = await createSession(c, applicantId, await newTemplate(c, { checks: IDENTITY }));
        await waitStatus(c, session);
        // every request that reaches the bucket counts, refused ones too: 120 requests for an unserved artifact
        await freshWindow(8);
        const first = await getImage(region, key, session, 'back');
        assert.equal(rateLimitOf(first.json).limit, 120, `${tier}: X-RateLimit-Limit`);
        const rest = await times(119, 8, () => getImage(region, key, session, 'back'));
        assert.ok(rest.every((r) => r.status === 404), `${tier}: within the budget`);
        // the 120th request, whichever of those sent side by side it was, used the last of the budget
        assert.equal(Math.min(...rest.map((r) => rateLimitOf(r.json).remaining)), 0, `${tier}: X-RateLimit-Remaining`);
        const over = await getImage(region, key, session, 'front');
        assert.equal(over.status, 429, `${tier}: ${over.json.text}`);
        const e = errorOf(over.json);
        assert.equal(e.code, 'rate_limit_exceeded');
        assert.equal(e.type, 'rate_limit_error');
        assert.deepEqual({ ...e.details, reset_at: 0 }, { reset_at: 0, limit: 120, window_seconds: 60, route_class: 'sessions:read_image', tier });
        assert.equal(rateLimitOf(over.json).remaining, 0);
        // another class is untouched
        assert.equal((await c('GET', `/v1/sessions/${session}`)).status, 200);
        assert.deepEqual(await activity(region, org.id), [], `${tier}: no request reached the verification with a served artifact`);
      }),
    );
  });
});
