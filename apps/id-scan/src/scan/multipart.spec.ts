import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { multipart, refusal, type Part } from '@verity/testing';
import { readUpload, type UploadLimits, type UploadPolicy } from './multipart.js';

const BOUNDARY = 'xYzBoundary42';
const CT = `multipart/form-data; boundary=${BOUNDARY}`;
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 7)]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(60, 3)]);
const TEST: UploadPolicy = { files: ['front', 'back'], fields: ['expected_outcome'] };
const LIVE: UploadPolicy = { files: ['front', 'back'], fields: [], refusedFieldMessage: (n) => (n === 'expected_outcome' ? 'test mode only' : undefined) };
const LIMITS: UploadLimits = { fileBytes: 1024, bodyBytes: 4096, fieldBytes: 64 };

/** A body with this file's boundary; `close: false` leaves it unfinished. */
function form(parts: Part[], opts: { preamble?: Buffer; close?: boolean } = {}): Buffer {
  return multipart(parts, { ...opts, boundary: BOUNDARY }).body;
}

/** A body delivered in `chunk`-byte pieces, each on its own turn of the event loop as from a socket, that records how much of it was taken. */
function source(body: Buffer, chunk = 64) {
  const s = { taken: 0, stream: null as unknown as Readable };
  s.stream = Readable.from(
    (async function* () {
      for (let i = 0; i < body.length; i += chunk) {
        await new Promise((r) => setImmediate(r));
        const piece = body.subarray(i, i + chunk);
        s.taken += piece.length;
        yield piece;
      }
    })(),
    { objectMode: false, highWaterMark: 1 },
  );
  return s;
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('readUpload', () => {
  it('reads front, back and expected_outcome; formats from the bytes, not the declared type or name', async () => {
    const s = source(form([{ name: 'front', file: PNG, type: 'image/jpeg', filename: 'front.jpg' }, { name: 'back', file: JPEG, type: 'text/plain', filename: 'x.txt' }, { name: 'expected_outcome', value: 'review' }]));
    const u = await readUpload(s.stream, CT, TEST, LIMITS);
    assert.equal(u.files.get('front')!.format, 'png');
    assert.deepEqual(u.files.get('front')!.bytes, PNG);
    assert.equal(u.files.get('back')!.format, 'jpeg');
    assert.deepEqual(u.files.get('back')!.bytes, JPEG);
    assert.equal(u.fields.get('expected_outcome'), 'review');
  });

  it('an empty file part with an empty file name is not sent; an empty named file is not an image', async () => {
    const u = await readUpload(source(form([{ name: 'front', file: JPEG }, { name: 'back', file: Buffer.alloc(0), filename: '' }])).stream, CT, TEST, LIMITS);
    assert.deepEqual([...u.files.keys()], ['front']);
    const e = await refusal(readUpload(source(form([{ name: 'front', file: Buffer.alloc(0), filename: 'a.jpg' }])).stream, CT, TEST, LIMITS));
    assert.equal(e.code, 'unsupported_file_type');
  });

  it('refuses an unrecognized field at once and stops reading', async () => {
    const body = form([{ name: 'colour', value: 'blue' }, { name: 'front', file: Buffer.concat([JPEG, Buffer.alloc(900)]) }]);
    const s = source(body, 32);
    const e = await refusal(readUpload(s.stream, CT, TEST, LIMITS));
    assert.equal(e.code, 'validation_error');
    assert.equal(e.param, 'colour');
    assert.deepEqual((e.details!.issues as { path: string[] }[])[0]!.path, ['colour']);
    await settle();
    assert.ok(s.taken < body.length / 2, `read ${s.taken} of ${body.length}`);
  });

  it('live mode: expected_outcome is an unrecognized field, with a message saying why', async () => {
    const e = await refusal(readUpload(source(form([{ name: 'front', file: JPEG }, { name: 'expected_outcome', value: 'pass' }])).stream, CT, LIVE, LIMITS));
    assert.equal(e.code, 'validation_error');
    assert.equal(e.param, 'expected_outcome');
    assert.equal(e.message, 'test mode only');
  });

  it('refuses a repeated part, an image sent as text and text sent as a file', async () => {
    const cases: [Part[], string][] = [
      [[{ name: 'front', file: JPEG }, { name: 'front', file: JPEG }], 'front'],
      [[{ name: 'front', value: 'not a file' }], 'front'],
      [[{ name: 'front', file: JPEG }, { name: 'expected_outcome', file: JPEG }], 'expected_outcome'],
      [[{ name: 'expected_outcome', value: 'pass' }, { name: 'expected_outcome', value: 'fail' }], 'expected_outcome'],
    ];
    for (const [parts, param] of cases) {
      const e = await refusal(readUpload(source(form(parts)).stream, CT, TEST, LIMITS));
      assert.equal(e.code, 'validation_error', JSON.stringify(parts.map((p) => p.name)));
      assert.equal(e.param, param);
    }
  });

  it('an image over the per-image limit is 413 file_too_large, found while reading', async () => {
    const big = Buffer.concat([JPEG, Buffer.alloc(LIMITS.fileBytes)]);
    const body = form([{ name: 'front', file: big }, { name: 'back', file: Buffer.concat([JPEG, Buffer.alloc(2000)]) }]);
    const s = source(body, 128);
    const e = await refusal(readUpload(s.stream, CT, TEST, { ...LIMITS, bodyBytes: 1 << 20 }));
    assert.equal(e.code, 'file_too_large');
    assert.equal(e.param, 'front');
    await settle();
    assert.ok(s.taken < LIMITS.fileBytes + 512, `read ${s.taken}`);
  });

  it('an image at exactly the limit is accepted', async () => {
    const exact = Buffer.concat([JPEG, Buffer.alloc(LIMITS.fileBytes - JPEG.length)]);
    const u = await readUpload(source(form([{ name: 'front', file: exact }])).stream, CT, TEST, { ...LIMITS, bodyBytes: 1 << 20 });
    assert.equal(u.files.get('front')!.bytes.length, LIMITS.fileBytes);
  });

  it('a body over the total limit is 413 request_too_large, framing and preamble counted', async () => {
    const s = source(form([{ name: 'front', file: JPEG }], { preamble: Buffer.alloc(LIMITS.bodyBytes, 0x41) }));
    const e = await refusal(readUpload(s.stream, CT, TEST, LIMITS));
    assert.equal(e.code, 'request_too_large');
  });

  it('an image that is not JPEG, PNG or WebP is 415 as soon as its first bytes arrive', async () => {
    const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script>${' '.repeat(900)}</svg>`);
    const body = form([{ name: 'front', file: svg, type: 'image/jpeg', filename: 'passport.jpg' }]);
    const s = source(body, 32);
    const e = await refusal(readUpload(s.stream, CT, TEST, LIMITS));
    assert.equal(e.code, 'unsupported_file_type');
    assert.equal(e.param, 'front');
    await settle();
    assert.ok(s.taken < body.length / 2, `read ${s.taken} of ${body.length}`);
  });

  it('a thousand tiny parts: refused at the second one, the rest never read', async () => {
    const parts = Array.from({ length: 1000 }, () => ({ name: 'front', file: JPEG.subarray(0, 12) }));
    const body = form(parts);
    const s = source(body, 256);
    const e = await refusal(readUpload(s.stream, CT, TEST, { ...LIMITS, bodyBytes: 1 << 20 }));
    assert.equal(e.code, 'validation_error');
    await settle();
    assert.ok(s.taken < 2048, `read ${s.taken} of ${body.length}`);
  });

  it('a body that ends before the closing boundary is malformed; a non-multipart body is refused', async () => {
    const e = await refusal(readUpload(source(form([{ name: 'front', file: JPEG }], { close: false })).stream, CT, TEST, LIMITS));
    assert.equal(e.code, 'validation_error');
    for (const ct of [undefined, 'application/json', 'multipart/form-data', 'image/jpeg']) {
      const r = await refusal(readUpload(source(Buffer.from('{}')).stream, ct, TEST, LIMITS));
      assert.equal(r.code, 'validation_error', String(ct));
    }
  });

  it('an expected_outcome value longer than the field limit is refused', async () => {
    const e = await refusal(readUpload(source(form([{ name: 'front', file: JPEG }, { name: 'expected_outcome', value: 'p'.repeat(100) }])).stream, CT, TEST, LIMITS));
    assert.equal(e.code, 'validation_error');
    assert.equal(e.param, 'expected_outcome');
  });

  it('a body that stalls past the deadline is refused with 503', async () => {
    const stalled = new Readable({ read() {} });
    stalled.push(form([{ name: 'front', file: JPEG }], { close: false }));
    const e = await refusal(readUpload(stalled, CT, TEST, { ...LIMITS, deadline: Date.now() + 100 }));
    assert.equal(e.code, 'service_unavailable');
  });
});
