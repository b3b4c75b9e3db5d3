import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { catalogueSpecimen, expectedRead, photograph, renderSpecimen, type Specimen } from '@verity/specimens';
import { MrzOcr, readDocument, type DocumentOutcome } from './index.js';

const TODAY = '2026-11-25';
let ocr: MrzOcr;

before(async () => {
  ocr = await MrzOcr.start();
});
after(async () => {
  await ocr.close();
});

async function readClean(s: Specimen): Promise<DocumentOutcome> {
  const r = await renderSpecimen(s);
  return (await readDocument(ocr, { front: r.front, back: r.back }, TODAY)).outcome;
}

/** The fields a reader returns, in the shape of expectedRead. */
function fields(o: DocumentOutcome) {
  assert.ok(o.readable, `expected a read, got ${JSON.stringify(o)}`);
  const { document: d, holder: h } = o.read;
  return { type: d.type, number: d.number, expiry_date: d.expiry_date, family_name: h.family_name, given_names: h.given_names, name_suffix: h.name_suffix, date_of_birth: h.date_of_birth, sex: h.sex };
}

function specimen(kind: Specimen['document']['kind'], i: number, change: Partial<Specimen['document']> = {}, holder: Partial<Specimen['holder']> = {}): Specimen {
  const s = catalogueSpecimen(kind, i, TODAY);
  return { holder: { ...s.holder, ...holder }, document: { ...s.document, ...change } };
}

describe('reading generated documents', () => {
  it('a TD3 passport: every field, from its MRZ', async () => {
    const s = specimen('td3', 1, { issuer: 'NLD' }, { familyName: 'Van Der Berg', givenNames: ['Pieter', 'Jan'], nationality: 'BEL' });
    const o = await readClean(s);
    assert.deepEqual(fields(o), expectedRead(s));
    assert.ok(o.readable);
    assert.equal(o.source, 'mrz');
    assert.equal(o.read.document.format, 'TD3');
    assert.equal(o.read.document.issuing_country, 'NL');
    assert.equal(o.read.holder.nationality, 'BE');
    assert.deepEqual(o.read.holder.given_names, ['PIETER', 'JAN']);
    assert.equal(o.read.holder.family_name, 'VAN DER BERG');
  });

  it('a TD1 card: the MRZ on its back', async () => {
    const s = specimen('td1', 2, { issuer: 'D' }, { familyName: 'Sukarno', givenNames: [], nationality: 'D' });
    const o = await readClean(s);
    assert.deepEqual(fields(o), expectedRead(s));
    assert.ok(o.readable);
    assert.deepEqual([o.side, o.read.document.format, o.read.document.issuing_country, o.read.holder.nationality], ['back', 'TD1', 'DE', 'DE']);
    assert.deepEqual(o.read.holder.given_names, []);
  });

  it('a TD2 card', async () => {
    const s = specimen('td2', 3, { issuer: 'ROU' });
    const o = await readClean(s);
    assert.deepEqual(fields(o), expectedRead(s));
    assert.ok(o.readable);
    assert.deepEqual([o.read.document.format, o.read.document.issuing_country], ['TD2', 'RO']);
  });

  it('US and Canadian driving licences: the PDF417 barcode on the back', async () => {
    for (const [issuer, country] of [['NY', 'US'], ['BC', 'CA']] as const) {
      const s = specimen('aamva', 4, { issuer }, { nameSuffix: 'III' });
      const o = await readClean(s);
      assert.deepEqual(fields(o), expectedRead(s));
      assert.ok(o.readable);
      assert.deepEqual([o.source, o.side, o.read.document.issuing_country, o.read.holder.nationality], ['pdf417', 'back', country, null]);
    }
  });

  it('a phone photo: 12 MP, turned 17° in the frame, blurred, under uneven light, stored with EXIF orientation 6', async () => {
    const s = specimen('td3', 5);
    const r = await renderSpecimen(s);
    const photo = await photograph(r.front, { rotation: -17, perspective: 0.04, blur: 1.2, light: 0.4, quality: 70, exifOrientation: 6, seed: 9 });
    const meta = await sharp(photo).metadata();
    assert.deepEqual([meta.width, meta.height, meta.orientation], [3000, 4000, 6]);
    const { outcome } = await readDocument(ocr, { front: photo, back: null }, TODAY);
    assert.deepEqual(fields(outcome), expectedRead(s));
  });

  it('a photo taken upside down', async () => {
    const s = specimen('td3', 6);
    const r = await renderSpecimen(s);
    const photo = await photograph(r.front, { rotation: 183, seed: 4, width: 2400, height: 1800 });
    assert.deepEqual(fields((await readDocument(ocr, { front: photo, back: null }, TODAY)).outcome), expectedRead(s));
  });
});

describe('what a reader refuses, and the reasons it gives', () => {
  it('a check digit printed wrong: check_digit_mismatch, never a read', async () => {
    const s = specimen('td3', 7);
    const r = await renderSpecimen(s, { mrz: ([l1, l2]) => [l1, l2.slice(0, 19) + String((Number(l2[19]) + 1) % 10) + l2.slice(20)] });
    assert.deepEqual((await readDocument(ocr, { front: r.front, back: null }, TODAY)).outcome, { readable: false, reason: 'check_digit_mismatch' });
  });

  it('an expired document is read, with document_expired', async () => {
    const o = await readClean(specimen('td3', 8, { issueDate: '2014-05-01', expiryDate: '2024-05-01' }));
    assert.ok(o.readable);
    assert.deepEqual(o.read.reasons, ['document_expired']);
    assert.equal(o.read.document.expiry_date, '2024-05-01');
  });

  it('an issuing state that is no country (ICAO’s specimen state UTO) is read, with unknown_issuing_state', async () => {
    const o = await readClean(specimen('td3', 9, { issuer: 'UTO' }));
    assert.ok(o.readable);
    assert.equal(o.read.document.issuing_country, null);
    assert.deepEqual(o.read.reasons, ['unknown_issuing_state']);
  });

  it('a visa is an unsupported document', async () => {
    const o = await readClean(specimen('td3', 10, { documentCode: 'V' }));
    assert.deepEqual(o, { readable: false, reason: 'unsupported_document' });
  });

  it('a photo with no machine-readable data: no_machine_readable_data', async () => {
    const r = await renderSpecimen(specimen('aamva', 11));
    assert.deepEqual((await readDocument(ocr, { front: r.front, back: null }, TODAY)).outcome, { readable: false, reason: 'no_machine_readable_data' });
  });
});
