/**
 * The live ID scan: phone photos of generated documents read by the service's document reader, answered as a
 * client sees them; and the reader's admission (busy: 503).
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Principal } from '@verity/contracts';
import { catalogueSpecimen, mrzOnPaper, photograph, type Specimen } from '@verity/specimens';
import { photographBlankPage, photographDocument, query, startServiceUnderTest, testPrincipal, type DocumentPhotos, type ServiceUnderTest } from '@verity/testing';
import { IdScanModule } from '../src/app.module.js';
import { ID_SCAN_SERVICE, idScanEnv } from '../src/config.js';
import { ScanHttp } from '../src/scan/scan.http.js';
import { ScanClient, type Answer } from './scan-client.js';

const SECRET = randomBytes(32).toString('base64url');

async function start(vars: Record<string, string>): Promise<{ svc: ServiceUnderTest<unknown>; client: ScanClient }> {
  const svc = await startServiceUnderTest({ def: ID_SCAN_SERVICE, module: IdScanModule, env: idScanEnv, region: 'us', vars: { INTERNAL_PORT: '0', INTERNAL_AUTH_SECRET: SECRET, ...vars } });
  return { svc, client: new ScanClient(svc.app.get(ScanHttp).port, SECRET) };
}

const live = (): Principal => testPrincipal({ mode: 'live', region: 'us', scopes: ['idv:scan'] });

function audit(svc: ServiceUnderTest<unknown>, orgId: string) {
  return query<{ mode: string; outcome: string; request_id: string }>(svc.db.url, 'SELECT mode, outcome, request_id FROM id_scan.audit WHERE org_id = $1 ORDER BY seq', [orgId]);
}

function sides(photos: Pick<DocumentPhotos, 'front' | 'back'>) {
  return [{ name: 'front', file: photos.front }, ...(photos.back ? [{ name: 'back', file: photos.back }] : [])];
}

/** A passport that expired years ago, built by hand (the catalogue's are all valid). */
const EXPIRED: Specimen = {
  holder: { familyName: 'Lindqvist', givenNames: ['Karin'], dateOfBirth: '1961-02-14', sex: 'F', nationality: 'SWE', person: 'hopper' },
  document: { kind: 'td3', issuer: 'NLD', number: 'NX7Y2K4M1', issueDate: '2009-06-01', expiryDate: '2019-06-01' },
};

describe('live scan: documents read', () => {
  let svc: ServiceUnderTest<unknown>;
  let client: ScanClient;
  before(async () => {
    ({ svc, client } = await start({}));
  });
  after(() => svc?.close());

  const scan = (p: Principal, photos: Pick<DocumentPhotos, 'front' | 'back'>, requestId?: string) => client.scan(client.signed(p, requestId), client.form(sides(photos)));

  it('a passport photographed by a phone (12 MP): 200 pass with the holder and document its MRZ encodes; one audit entry', async () => {
    const photos = await photographDocument(catalogueSpecimen('td3', 2), { rotation: 4, seed: 7 });
    const p = live();
    const r = await scan(p, photos, 'req_passport');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, { object: 'id_scan', mode: 'live', outcome: 'pass', reasons: [], ...photos.expected });
    assert.deepEqual(await audit(svc, p.org_id), [{ mode: 'live', outcome: 'pass', request_id: 'req_passport' }]);
  });

  it('a TD1 identity card (front and back, the MRZ on the back) and an AAMVA driving licence (PDF417 on the back): 200 pass', async () => {
    for (const s of [catalogueSpecimen('td1', 0), catalogueSpecimen('aamva', 0)]) {
      const photos = await photographDocument(s, { width: 3000, height: 2250, seed: 11 });
      const r = await scan(live(), photos);
      assert.equal(r.status, 200, `${s.document.kind}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(r.body.data, { object: 'id_scan', mode: 'live', outcome: 'pass', reasons: [], ...photos.expected }, s.document.kind);
    }
  });

  it('an expired document: 200 review with the reason document_expired, and its fields', async () => {
    const photos = await photographDocument(EXPIRED, { width: 3000, height: 2250 });
    const p = live();
    const r = await scan(p, photos, 'req_expired');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, { object: 'id_scan', mode: 'live', outcome: 'review', reasons: ['document_expired'], ...photos.expected });
    assert.equal((photos.expected.document as { expiry_date: string }).expiry_date, '2019-06-01');
    assert.deepEqual(await audit(svc, p.org_id), [{ mode: 'live', outcome: 'review', request_id: 'req_expired' }]);
  });

  it('a photo of a blank page: 422 document_unreadable with details { mode: live, reason: no_machine_readable_data }; audited as unreadable', async () => {
    const p = live();
    const r = await scan(p, { front: await photographBlankPage({ width: 3000, height: 2250 }), back: null }, 'req_blank');
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.error!.code, 'document_unreadable');
    assert.deepEqual(r.body.error!.details, { mode: 'live', reason: 'no_machine_readable_data' });
    assert.deepEqual(await audit(svc, p.org_id), [{ mode: 'live', outcome: 'unreadable', request_id: 'req_blank' }]);
  });

  it('an MRZ printed alone on paper: 200 review with document_not_found, and the fields it encodes', async () => {
    const s = catalogueSpecimen('td3', 4);
    const front = await photograph(await mrzOnPaper(s, { size: 'real' }), { coverage: 0.92, seed: 13 });
    const expected = await photographDocument(s, { width: 1000, height: 750 });
    const p = live();
    const r = await scan(p, { front, back: null }, 'req_paper');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, { object: 'id_scan', mode: 'live', outcome: 'review', reasons: ['document_not_found'], ...expected.expected });
    assert.deepEqual(await audit(svc, p.org_id), [{ mode: 'live', outcome: 'review', request_id: 'req_paper' }]);
  });

  it('expected_outcome is still refused in live mode (422), before anything is read', async () => {
    const photos = await photographDocument(catalogueSpecimen('td3', 2), { width: 2000, height: 1500 });
    const p = live();
    const r = await client.scan(client.signed(p), client.form([{ name: 'front', file: photos.front }, { name: 'expected_outcome', value: 'pass' }]));
    assert.equal(r.status, 422);
    assert.equal(r.body.error!.code, 'validation_error');
    assert.deepEqual(await audit(svc, p.org_id), []);
  });
});

describe('live scan: a busy reader refuses at once (one thread, no waiting room)', () => {
  let svc: ServiceUnderTest<unknown>;
  let client: ScanClient;
  before(async () => {
    ({ svc, client } = await start({ READING_THREADS: '1', READING_MAX_WAITING: '0' }));
  });
  after(() => svc?.close());

  it('several scans at once: one is read at a time, the rest answered 503 service_unavailable, the reader busy; refusals write nothing', async (t: TestContext) => {
    const photos = await photographDocument(catalogueSpecimen('td3', 2), { width: 2000, height: 1500 });
    const p = live();
    const body = client.form(sides(photos));
    const answers: Answer[] = await Promise.all(Array.from({ length: 6 }, () => client.scan(client.signed(p), body)));
    const read = answers.filter((a) => a.status === 200);
    const busy = answers.filter((a) => a.status === 503);
    assert.equal(read.length + busy.length, answers.length, answers.map((a) => a.status).join(','));
    t.diagnostic(`${read.length} read, ${busy.length} refused`);
    assert.ok(read.length >= 1, 'the first is read');
    assert.ok(busy.length >= 1, 'the others find the reader busy');
    for (const a of read) assert.deepEqual(a.body.data, { object: 'id_scan', mode: 'live', outcome: 'pass', reasons: [], ...photos.expected });
    for (const a of busy) {
      assert.equal(a.body.error!.code, 'service_unavailable');
      assert.equal(a.body.error!.message, 'The document reader is busy; retry in a few seconds.');
    }
    assert.equal((await audit(svc, p.org_id)).length, read.length, 'one audit entry per scan read');
    // the reader is free again
    assert.equal((await client.scan(client.signed(p), body)).status, 200);
  });
});
