import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ActivityEntry } from '@verity/contracts';
import { catalogueSpecimen } from '@verity/specimens';
import { GIF_SCRIPT_POLYGLOT, padJpeg, photographBlankPage, photographDocument, pixelFloodPng, sampleImage, SVG_IMAGE, truncate, type DocumentPhotos } from '@verity/testing';
import { adminCli, clientIp, closeOperators, createKey, E2E, orgWithKey, rows, type Region } from './support.js';
import { multipart, post, type Part, type Sent } from './id-scan-support.js';

after(closeOperators);

const REGIONS: Region[] = ['us', 'eu'];
const MiB = 1024 * 1024;

let jpeg: Buffer;
let png: Buffer;
let webp: Buffer;
/** A phone photo (12 MP) of a generated passport, and one of a blank card. */
let passport: DocumentPhotos;
let blank: Buffer;
before(async () => {
  [jpeg, png, webp, passport, blank] = await Promise.all([
    sampleImage('jpeg'),
    sampleImage('png'),
    sampleImage('webp'),
    photographDocument(catalogueSpecimen('td3', 2), { rotation: -3, seed: 5 }),
    photographBlankPage({ width: 3000, height: 2250 }),
  ]);
});

function scan(region: Region, key: string, parts: Part[], opts: { declare?: boolean; chunk?: number } = {}): Promise<Sent> {
  const m = multipart(parts);
  return post(`${E2E.url[region]}/v1/id-verification`, { authorization: `Bearer ${key}`, 'content-type': m.contentType, 'x-forwarded-for': clientIp() }, m.body, opts);
}

/** The error envelope, checked like every other one: request id matching the header, doc_url to the code. */
function errorOf(r: Sent): NonNullable<Sent['body']['error']> {
  const e = r.body.error;
  assert.ok(e, `expected an error, got ${r.status} ${r.text.slice(0, 300)}`);
  assert.equal(e.request_id, r.headers['x-request-id']);
  assert.ok(e.doc_url.endsWith(`/errors#${e.code}`));
  return e;
}

function refused(r: Sent, status: number, code: string, param?: string): NonNullable<Sent['body']['error']> {
  assert.equal(r.status, status, r.text.slice(0, 300));
  const e = errorOf(r);
  assert.equal(e.code, code);
  if (param !== undefined) assert.equal(e.param, param);
  // mode is reported on document_unreadable only
  if (code !== 'document_unreadable') assert.equal(e.details?.mode, undefined, `${code} carries no mode`);
  return e;
}

async function audit(region: Region, orgId: string): Promise<ActivityEntry[]> {
  const r = await adminCli(['activity', '--region', region, '--org', orgId, '--limit', '100']);
  assert.equal(r.code, 0, r.stderr);
  return (r.out as { data: ActivityEntry[] }).data;
}

const SPECIMEN = {
  document: { type: 'identity_card', issuing_country: 'NL', number: 'SPECI2014', expiry_date: '2034-03-09' },
  holder: { family_name: 'De Bruijn', given_names: ['Willeke', 'Liselotte'], date_of_birth: '1965-03-10', nationality: 'NL' },
};

for (const region of REGIONS) {
  describe(`POST /v1/id-verification (${region})`, () => {
    let key: string;
    before(async () => {
      key = (await orgWithKey(region, { scopes: ['idv:scan'] })).key;
    });

    it('test mode, pass (also when omitted) and review: 200 with data.object id_scan, data.mode, data.outcome, document and holder', async () => {
      const cases: [string | undefined, string][] = [
        [undefined, 'pass'],
        ['pass', 'pass'],
        ['review', 'review'],
      ];
      for (const [expected, outcome] of cases) {
        const parts: Part[] = [{ name: 'front', file: jpeg }];
        if (expected) parts.push({ name: 'expected_outcome', value: expected });
        const r = await scan(region, key, parts);
        assert.equal(r.status, 200, r.text);
        assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
        assert.deepEqual(r.body, { data: { object: 'id_scan', mode: 'test', outcome, reasons: [], ...SPECIMEN } });
      }
    });

    it('test mode, fail and doc_quality: 422 document_unreadable with details.mode, identical apart from the request id, told apart in the audit trail', async () => {
      const { org, key: k } = await orgWithKey(region, { scopes: ['idv:scan'] });
      const fail = await scan(region, k, [{ name: 'front', file: jpeg }, { name: 'expected_outcome', value: 'fail' }]);
      const quality = await scan(region, k, [{ name: 'expected_outcome', value: 'doc_quality' }, { name: 'front', file: png, type: 'image/png' }]);
      for (const r of [fail, quality]) {
        const e = refused(r, 422, 'document_unreadable');
        assert.deepEqual(e.details, { mode: 'test' });
        assert.equal(e.type, 'invalid_request_error');
      }
      const strip = (r: Sent) => JSON.stringify({ ...r.body, error: { ...r.body.error, request_id: '' } });
      assert.equal(strip(fail), strip(quality), 'the same answer on the wire');
      assert.notEqual(fail.headers['x-request-id'], quality.headers['x-request-id']);
      const entries = await audit(region, org.id);
      assert.deepEqual(
        entries.map((e) => [e.action, e.outcome, e.request_id, e.mode, e.session_id, e.artifact]),
        [
          ['kyc.idv.document_scanned', 'doc_quality', quality.headers['x-request-id'], 'test', null, null],
          ['kyc.idv.document_scanned', 'fail', fail.headers['x-request-id'], 'test', null, null],
        ],
      );
    });

    it('accepted images are JPEG, PNG and WebP told from their bytes, whatever the declared type and file name; back is optional', async () => {
      const cases: Part[][] = [
        [{ name: 'front', file: png, type: 'image/gif', filename: 'scan.pdf' }],
        [{ name: 'front', file: webp, type: 'application/octet-stream', filename: 'noext' }],
        [{ name: 'front', file: jpeg, type: 'text/plain', filename: 'x.txt' }],
        [
          { name: 'front', file: jpeg },
          { name: 'back', file: webp, type: 'image/webp' },
        ],
        [
          { name: 'back', file: png },
          { name: 'front', file: jpeg },
        ],
      ];
      for (const parts of cases) {
        const r = await scan(region, key, parts);
        assert.equal(r.status, 200, `${parts.map((p) => `${p.name}:${p.type}`).join(',')}: ${r.text}`);
      }
    });

    it('422 validation_error: front missing, an unrecognized field, front as text, front twice, an unknown expected_outcome, not multipart', async () => {
      const cases: [Part[], string][] = [
        [[{ name: 'back', file: jpeg }], 'front'],
        [[{ name: 'expected_outcome', value: 'pass' }], 'front'],
        [[{ name: 'front', file: jpeg }, { name: 'selfie', file: jpeg }], 'selfie'],
        [[{ name: 'front', file: jpeg }, { name: 'note', value: 'hello' }], 'note'],
        [[{ name: 'front', value: 'https://example.com/doc.jpg' }], 'front'],
        [[{ name: 'front', file: jpeg }, { name: 'front', file: jpeg }], 'front'],
        [[{ name: 'front', file: jpeg }, { name: 'expected_outcome', value: 'approve' }], 'expected_outcome'],
        [[{ name: 'front', file: jpeg }, { name: 'expected_outcome', value: 'PASS' }], 'expected_outcome'],
      ];
      for (const [parts, param] of cases) {
        const e = refused(await scan(region, key, parts), 422, 'validation_error', param);
        assert.equal((e.details!.issues as { path: string[] }[])[0]!.path[0], param);
      }
      const json = await post(`${E2E.url[region]}/v1/id-verification`, { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, Buffer.from('{"front":"x"}'));
      refused(json, 422, 'validation_error', 'front');
    });

    it('413 file_too_large for one image over 10 MiB; exactly 10 MiB each, 20 MiB in all, is accepted', async () => {
      const exact = padJpeg(jpeg, 10 * MiB);
      const ok = await scan(region, key, [
        { name: 'front', file: exact },
        { name: 'back', file: exact },
      ]);
      assert.equal(ok.status, 200, ok.text);
      const over = padJpeg(jpeg, 10 * MiB + 1);
      refused(await scan(region, key, [{ name: 'front', file: over }]), 413, 'file_too_large', 'front');
      refused(await scan(region, key, [{ name: 'front', file: jpeg }, { name: 'back', file: over }]), 413, 'file_too_large', 'back');
      refused(await scan(region, key, [{ name: 'front', file: over }], { declare: false }), 413, 'file_too_large', 'front');
    });

    it('413 request_too_large for a body over 21 MiB: declared (refused before it is sent) or chunked (refused while it is read)', async () => {
      const url = `${E2E.url[region]}/v1/id-verification`;
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=zz', 'x-forwarded-for': clientIp() };
      const declared = await post(url, headers, { size: 22 * MiB, head: Buffer.alloc(0) }, { declare: true, chunk: 256 * 1024 });
      refused(declared, 413, 'request_too_large');
      assert.ok(declared.sentBeforeAnswer < 8 * MiB, `sent ${declared.sentBeforeAnswer} bytes before the answer`);
      // chunked: no length to judge by; the service counts (a preamble, which multipart parsers skip, of 64 MiB: the
      // socket buffers of the two hops, client → gateway → id-scan, hold several MiB each, so a client far past the
      // 21 MiB limit before the answer is still one refused while it sends)
      const chunked = await post(url, headers, { size: 64 * MiB, head: Buffer.alloc(0) }, { declare: false, chunk: 256 * 1024, delayMs: 2 });
      refused(chunked, 413, 'request_too_large');
      assert.ok(chunked.sentBeforeAnswer < 64 * MiB, `sent ${chunked.sentBeforeAnswer} bytes before the answer`);
    });

    it('415 unsupported_file_type for an image that is not JPEG, PNG or WebP, front or back', async () => {
      const gif = GIF_SCRIPT_POLYGLOT;
      const pdf = Buffer.from('%PDF-1.7\n1 0 obj <</Type /Catalog>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF');
      const heic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic\0\0\0\0mif1heic'), Buffer.alloc(64)]);
      const cases: Part[][] = [
        [{ name: 'front', file: SVG_IMAGE, type: 'image/svg+xml', filename: 'doc.svg' }],
        [{ name: 'front', file: SVG_IMAGE, type: 'image/jpeg', filename: 'doc.jpg' }],
        [{ name: 'front', file: gif, filename: 'passport.jpg' }],
        [{ name: 'front', file: pdf }],
        [{ name: 'front', file: heic }],
        [{ name: 'front', file: Buffer.alloc(0), filename: 'empty.jpg' }],
      ];
      for (const parts of cases) refused(await scan(region, key, parts), 415, 'unsupported_file_type', 'front');
      refused(await scan(region, key, [{ name: 'front', file: jpeg }, { name: 'back', file: gif }]), 415, 'unsupported_file_type', 'back');
    });

    it('422 invalid_image for bytes that do not decode, and for an image over 100 megapixels', async () => {
      const jpegBig = await sampleImage('jpeg', 1200, 800);
      refused(await scan(region, key, [{ name: 'front', file: truncate(jpegBig, 0.5) }]), 422, 'invalid_image', 'front');
      refused(await scan(region, key, [{ name: 'front', file: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xdb]), Buffer.alloc(2000, 0x13)]) }]), 422, 'invalid_image', 'front');
      refused(await scan(region, key, [{ name: 'front', file: pixelFloodPng(10_001, 10_000) }]), 422, 'invalid_image', 'front');
      refused(await scan(region, key, [{ name: 'front', file: jpeg }, { name: 'back', file: truncate(png, 0.5) }]), 422, 'invalid_image', 'back');
    });

    it('live mode: expected_outcome and every other unrecognized field are refused with 422, before anything is read', async () => {
      const { org, key: live } = await orgWithKey(region, { mode: 'live', scopes: ['idv:scan'] });
      for (const value of ['pass', 'fail']) {
        const e = refused(await scan(region, live, [{ name: 'front', file: passport.front }, { name: 'expected_outcome', value }]), 422, 'validation_error', 'expected_outcome');
        assert.match(e.message, /test mode/);
      }
      refused(await scan(region, live, [{ name: 'expected_outcome', value: 'pass' }, { name: 'front', file: passport.front }]), 422, 'validation_error', 'expected_outcome');
      refused(await scan(region, live, [{ name: 'front', file: passport.front }, { name: 'country', value: 'NL' }]), 422, 'validation_error', 'country');
      assert.deepEqual(await audit(region, org.id), [], 'no scan reached a result');
    });

    it('live mode: a phone photo of a passport is read, 200 with the holder and document printed on it', async () => {
      const { key: live } = await orgWithKey(region, { mode: 'live', scopes: ['idv:scan'] });
      const r = await scan(region, live, [{ name: 'front', file: passport.front }]);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
      assert.deepEqual(r.body, { data: { object: 'id_scan', mode: 'live', outcome: 'pass', reasons: [], ...passport.expected } });
      assert.deepEqual(passport.expected.holder, { family_name: 'NGUYEN', given_names: ['THI', 'MINH', 'ANH'], date_of_birth: '1988-07-04', nationality: 'CA' });
    });

    it('live mode: a photo without a document is 422 document_unreadable with details.mode live and the reason', async () => {
      const { key: live } = await orgWithKey(region, { mode: 'live', scopes: ['idv:scan'] });
      const e = refused(await scan(region, live, [{ name: 'front', file: blank }]), 422, 'document_unreadable');
      assert.deepEqual(e.details, { mode: 'live', reason: 'no_machine_readable_data' });
      assert.equal(e.type, 'invalid_request_error');
    });

    it('live mode: an oversized image and a file that is not an image are refused exactly as in test mode', async () => {
      const { org, key: test } = await orgWithKey(region, { scopes: ['idv:scan'] });
      const live = await createKey(region, org.id, { mode: 'live', scopes: ['idv:scan'] });
      const cases: [Part[], number, string][] = [
        [[{ name: 'front', file: padJpeg(passport.front, 10 * MiB + 1) }], 413, 'file_too_large'],
        [[{ name: 'front', file: passport.front }, { name: 'back', file: SVG_IMAGE, type: 'image/svg+xml' }], 415, 'unsupported_file_type'],
        [[{ name: 'front', file: Buffer.from('%PDF-1.7\n%%EOF') }], 415, 'unsupported_file_type'],
      ];
      const strip = (r: Sent) => JSON.stringify({ ...r.body, error: { ...r.body.error, request_id: '' } });
      for (const [parts, status, code] of cases) {
        const inTest = await scan(region, test, parts);
        const inLive = await scan(region, live.key, parts);
        refused(inTest, status, code);
        refused(inLive, status, code);
        assert.equal(strip(inLive), strip(inTest), `${code}: the same answer in both modes`);
      }
      assert.deepEqual(await audit(region, org.id), [], 'refusals write nothing');
    });

    it('live mode stores nothing of a document: the one row written per scan is its audit entry, with no personal data', async () => {
      const { org, key: live } = await orgWithKey(region, { mode: 'live', scopes: ['idv:scan'] });
      // every table of every schema with an organization column, and how many rows of this organization each holds
      const tables = await rows<{ table_schema: string; table_name: string }>(
        region,
        `SELECT table_schema, table_name FROM information_schema.columns
          WHERE column_name = 'org_id' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
      );
      assert.ok(tables.length > 5, 'the services’ tables are found');
      const counts = async () => {
        const out: Record<string, number> = {};
        for (const t of tables) {
          const [c] = await rows<{ n: number }>(region, `SELECT count(*)::int AS n FROM "${t.table_schema}"."${t.table_name}" WHERE org_id = $1`, [org.id]);
          if (c!.n > 0) out[`${t.table_schema}.${t.table_name}`] = c!.n;
        }
        return out;
      };
      const before = await counts();
      const read = await scan(region, live, [{ name: 'front', file: passport.front }]);
      assert.equal(read.status, 200, read.text);
      const unreadable = await scan(region, live, [{ name: 'front', file: blank }]);
      refused(unreadable, 422, 'document_unreadable');
      assert.deepEqual(await counts(), { ...before, 'id_scan.audit': 2 }, 'two audit entries, nothing else');
      const stored = await rows<Record<string, unknown>>(region, 'SELECT * FROM id_scan.audit WHERE org_id = $1 ORDER BY seq', [org.id]);
      assert.deepEqual(
        stored.map((r) => [r.mode, r.outcome, r.request_id]),
        [
          ['live', 'pass', read.headers['x-request-id']],
          ['live', 'unreadable', unreadable.headers['x-request-id']],
        ],
      );
      const text = JSON.stringify(stored);
      const { document: d, holder: h } = passport.expected;
      for (const personal of [h.family_name, h.given_names.join(' '), h.date_of_birth, d.number, d.expiry_date]) assert.ok(!text.includes(personal), `${personal} is not stored`);
    });

    it('a key without idv:scan: 403 insufficient_scope; refusals write nothing to the audit trail, and nothing of an image is stored', async () => {
      const { org, key: k } = await orgWithKey(region, { scopes: ['idv:scan'] });
      const noScope = await createKey(region, org.id, { scopes: ['sessions:read'] });
      const e = refused(await scan(region, noScope.key, [{ name: 'front', file: jpeg }]), 403, 'insufficient_scope');
      assert.deepEqual(e.details, { required_scope: 'idv:scan' });
      refused(await scan(region, k, [{ name: 'front', file: SVG_IMAGE }]), 415, 'unsupported_file_type');
      refused(await scan(region, k, [{ name: 'front', file: truncate(jpeg) }]), 422, 'invalid_image');
      const ok = await scan(region, k, [{ name: 'front', file: jpeg }]);
      assert.equal(ok.status, 200);
      const stored = await rows<Record<string, unknown>>(region, 'SELECT * FROM id_scan.audit WHERE org_id = $1', [org.id]);
      assert.equal(stored.length, 1, 'one result, one entry');
      assert.deepEqual(Object.keys(stored[0]!).sort(), ['action', 'created_at', 'id', 'key_id', 'mode', 'org_id', 'outcome', 'request_id', 'seq']);
      assert.equal(stored[0]!.request_id, ok.headers['x-request-id']);
    });
  });
}
