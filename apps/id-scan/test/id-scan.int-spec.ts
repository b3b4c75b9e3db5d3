import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SUBJECTS, type Principal } from '@verity/contracts';
import { RpcClient, signInternalRequest, STREAMED_BODY } from '@verity/platform';
import { query, refusal, sampleImage, type ServiceApp, type ServiceUnderTest, startServiceUnderTest, testPrincipal } from '@verity/testing';
import { IdScanModule } from '../src/app.module.js';
import { ID_SCAN_SERVICE, idScanEnv } from '../src/config.js';
import { ScanHttp } from '../src/scan/scan.http.js';
import { ScanClient } from './scan-client.js';

const SECRET = randomBytes(32).toString('base64url');
let client: ScanClient;
let jpeg: Buffer;

let db: ServiceUnderTest<unknown>['db'];
let app: ServiceApp;
let rpc: RpcClient;
let svc: ServiceUnderTest<unknown> | undefined;

before(async () => {
  svc = await startServiceUnderTest({
    def: ID_SCAN_SERVICE,
    module: IdScanModule,
    env: idScanEnv,
    region: 'eu',
    // one upload at a time, so that admission can be observed; one reader thread (live scans: live-scan.int-spec)
    vars: { INTERNAL_PORT: '0', INTERNAL_AUTH_SECRET: SECRET, ID_SCAN_MAX_CONCURRENT_UPLOADS: '1', READING_THREADS: '1' },
  });
  ({ db, app, rpc } = svc);
  client = new ScanClient(app.get(ScanHttp).port, SECRET);
  jpeg = await sampleImage('jpeg');
});

after(() => svc?.close());

function principal(mode: 'test' | 'live' = 'test'): Principal {
  return testPrincipal({ mode, region: 'eu', scopes: ['idv:scan'] });
}

const form: ScanClient['form'] = (parts) => client.form(parts);
const scan: ScanClient['scan'] = (headers, body) => client.scan(headers, body);
const signed: ScanClient['signed'] = (p, requestId, deadline) => client.signed(p, requestId, deadline);

async function auditRows(orgId: string) {
  return query<{ outcome: string; request_id: string; mode: string; action: string }>(
    db.url,
    'SELECT action, mode, outcome, request_id FROM id_scan.audit WHERE org_id = $1 ORDER BY seq',
    [orgId],
  );
}

describe('id-scan internal HTTP: POST /scan', () => {
  it('refuses a request without the gateway’s signature, before reading it', async () => {
    const p = principal();
    const forged = signInternalRequest('a-different-secret-of-32-characters!!', { method: 'POST', path: '/scan' }, { principal: p, requestId: 'req_x', deadline: Date.now() + 10_000 }, STREAMED_BODY);
    for (const headers of [{}, forged]) {
      const r = await scan(headers, form([{ name: 'front', file: jpeg }]));
      assert.equal(r.status, 401);
      assert.equal(r.body.error!.code, 'authentication_required');
    }
    assert.deepEqual(await auditRows(p.org_id), []);
  });

  it('test mode: a synthetic result per expected_outcome, one audit entry each, refusals none', async () => {
    const p = principal();
    const ok = await scan(signed(p, 'req_pass'), form([{ name: 'front', file: jpeg }]));
    assert.equal(ok.status, 200);
    assert.equal(ok.body.data!.object, 'id_scan');
    assert.equal(ok.body.data!.mode, 'test');
    assert.equal(ok.body.data!.outcome, 'pass');
    const bad = await scan(signed(p, 'req_bad'), form([{ name: 'front', file: jpeg }, { name: 'expected_outcome', value: 'maybe' }]));
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error!.code, 'validation_error');
    const q = await scan(signed(p, 'req_q'), form([{ name: 'front', file: jpeg }, { name: 'expected_outcome', value: 'doc_quality' }]));
    assert.equal(q.status, 422);
    assert.deepEqual(q.body.error!.details, { mode: 'test' });
    assert.deepEqual(await auditRows(p.org_id), [
      { action: 'kyc.idv.document_scanned', mode: 'test', outcome: 'pass', request_id: 'req_pass' },
      { action: 'kyc.idv.document_scanned', mode: 'test', outcome: 'doc_quality', request_id: 'req_q' },
    ]);
    const listed = await rpc.call(SUBJECTS.idScanAuditList, { org_id: p.org_id, limit: 1 }, { principal: null, requestId: 'req_op' });
    assert.deepEqual(listed.data.map((e) => [e.action, e.outcome, e.session_id, e.artifact]), [['kyc.idv.document_scanned', 'doc_quality', null, null]]);
  });

  it('live mode: the image is validated and read (a picture with no document: 422 document_unreadable with the reason), expected_outcome refused', async () => {
    const p = principal('live');
    const r = await scan(signed(p, 'req_live'), form([{ name: 'front', file: jpeg }]));
    assert.equal(r.status, 422);
    assert.equal(r.body.error!.code, 'document_unreadable');
    assert.deepEqual(r.body.error!.details, { mode: 'live', reason: 'no_machine_readable_data' });
    const e = await scan(signed(p), form([{ name: 'front', file: jpeg }, { name: 'expected_outcome', value: 'pass' }]));
    assert.equal(e.status, 422);
    assert.equal(e.body.error!.code, 'validation_error');
    assert.deepEqual(await auditRows(p.org_id), [{ action: 'kyc.idv.document_scanned', mode: 'live', outcome: 'unreadable', request_id: 'req_live' }]);
  });

  it('admits a bounded number of uploads: while one is being read, another waits, and gives up at its deadline', async () => {
    const p = principal();
    let finish!: () => void;
    const slow = scan(signed(p, 'req_slow'), (write, end) => {
      const body = form([{ name: 'front', file: jpeg }]);
      write(body.subarray(0, 100));
      finish = () => end(body.subarray(100));
    });
    await new Promise((r) => setTimeout(r, 100));
    const t = Date.now();
    const waiting = await scan(signed(p, 'req_wait', Date.now() + 300), form([{ name: 'front', file: jpeg }]));
    assert.equal(waiting.status, 503);
    assert.equal(waiting.body.error!.code, 'service_unavailable');
    assert.ok(Date.now() - t >= 250, 'it waited for a slot until its deadline');
    finish();
    assert.equal((await slow).status, 200);
    assert.deepEqual((await auditRows(p.org_id)).map((r) => r.request_id), ['req_slow']);
  });

  it('the schema stores no image and no extracted field: its one table is the audit trail', async () => {
    const tables = await query<{ table_name: string }>(db.url, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'id_scan' AND table_name <> 'migrations'`);
    assert.deepEqual(tables.map((t) => t.table_name), ['audit']);
    const cols = await query<{ column_name: string }>(db.url, `SELECT column_name FROM information_schema.columns WHERE table_schema = 'id_scan' AND table_name = 'audit' ORDER BY column_name`);
    assert.deepEqual(cols.map((c) => c.column_name), ['action', 'created_at', 'id', 'key_id', 'mode', 'org_id', 'outcome', 'request_id', 'seq']);
  });
});

describe('id-scan.admin.purge-test-data.v1', () => {
  const op = { principal: null, requestId: 'req_op' };
  const rows = (orgId: string) => query<{ id: string; mode: string }>(db.url, 'SELECT id, mode FROM id_scan.audit WHERE org_id = $1 ORDER BY seq', [orgId]);

  it('deletes the organization’s test-mode audit entries, counted; live entries and other organizations stay', async () => {
    const [p, other] = [principal(), principal()];
    for (const [who, id] of [[p, 'req_p1'], [p, 'req_p2'], [other, 'req_o1']] as const) {
      assert.equal((await scan(signed(who, id), form([{ name: 'front', file: jpeg }]))).status, 200);
    }
    // a live entry of the same organization (a live scan's result, as the live test writes it)
    await query(db.url, `INSERT INTO id_scan.audit (id, org_id, mode, action, outcome, request_id) VALUES ('act_livepurge', $1, 'live', 'kyc.idv.document_scanned', 'pass', 'req_live')`, [p.org_id]);
    const before = await rows(p.org_id);
    const otherBefore = await rows(other.org_id);
    assert.deepEqual(before.map((r) => r.mode), ['test', 'test', 'live']);

    // an API key's principal cannot reach it, and nothing is deleted
    const refused = await refusal(rpc.call(SUBJECTS.idScanPurgeTestData, { org_id: p.org_id }, { ...op, principal: p }));
    assert.equal(refused.code, 'internal_error');
    assert.deepEqual(await rows(p.org_id), before);

    assert.deepEqual(await rpc.call(SUBJECTS.idScanPurgeTestData, { org_id: p.org_id }, op), { removed: { audit: 2 } });
    assert.deepEqual(await rows(p.org_id), before.filter((r) => r.mode === 'live'));
    assert.deepEqual(await rows(other.org_id), otherBefore);
    const listed = await rpc.call(SUBJECTS.idScanAuditList, { org_id: p.org_id }, op);
    assert.deepEqual(listed.data.map((e) => [e.id, e.mode]), [['act_livepurge', 'live']]);
    assert.deepEqual(await rpc.call(SUBJECTS.idScanPurgeTestData, { org_id: p.org_id }, op), { removed: { audit: 0 } });
  });

  it('refuses a missing or malformed org_id as a validation error naming it', async () => {
    for (const bad of [undefined, '', 'org_', 'key_AAAAAAAAAAAAAAAAAAAAAAAA', 42]) {
      const e = await refusal(rpc.call(SUBJECTS.idScanPurgeTestData, { org_id: bad as string }, op));
      assert.equal(e.code, 'validation_error', String(bad));
      assert.equal(e.param, 'org_id');
    }
  });
});
