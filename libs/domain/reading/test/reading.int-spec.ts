/**
 * The reader on generated documents and their phone photos, engines and all: what it reads, that a read is one
 * real document read whole, and what it refuses with which reason. One set of engines for the whole file.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { catalogueSpecimen, expectedRead, mrzOnPaper, photograph, renderSpecimen, type PhotoOptions, type Specimen } from '@verity/specimens';
import { closeReaders, documentCheck, readDocument, startReaders, type DocumentOutcome, type DocumentReading, type Readers } from '../src/index.js';

const TODAY = '2026-11-25';
let readers: Readers;

before(async () => {
  readers = await startReaders();
});
after(async () => {
  await closeReaders(readers);
});

const read = (front: Buffer, back: Buffer | null = null): Promise<DocumentReading> => readDocument(readers, { front, back }, TODAY);

async function readClean(s: Specimen): Promise<DocumentOutcome> {
  const r = await renderSpecimen(s);
  return (await read(r.front, r.back)).outcome;
}

/** Both sides of a specimen photographed, the back with the next seed. */
async function photos(s: Specimen, o: PhotoOptions, render: Parameters<typeof renderSpecimen>[1] = {}): Promise<{ front: Buffer; back: Buffer | null }> {
  const r = await renderSpecimen(s, render);
  return { front: await photograph(r.front, o), back: r.back && (await photograph(r.back, { ...o, seed: (o.seed ?? 1) + 1 })) };
}

/** The fields a reader returns, in the shape of expectedRead. */
function fields(o: DocumentOutcome) {
  assert.ok(o.readable, `expected a read, got ${JSON.stringify(o)}`);
  const { document: d, holder: h } = o.read;
  return { type: d.type, number: d.number, expiry_date: d.expiry_date, family_name: h.family_name, given_names: h.given_names, name_suffix: h.name_suffix, date_of_birth: h.date_of_birth, sex: h.sex };
}

/** A read of one real document with nothing against it: its printed names and date of birth agree with its data. */
function assertWhole(o: DocumentOutcome, label = ''): void {
  assert.ok(o.readable, `${label}: ${JSON.stringify(o)}`);
  assert.deepEqual(o.read.reasons, [], `${label}: ${JSON.stringify(o.printed)}`);
  assert.equal(o.printed?.family_name.agrees, true, label);
  assert.ok(o.printed?.date_of_birth.agrees || o.printed?.document_number.agrees, label);
  assert.deepEqual(documentCheck(o), { outcome: 'pass', reasons: [], score: null }, label);
}

function specimen(kind: Specimen['document']['kind'], i: number, change: Partial<Specimen['document']> = {}, holder: Partial<Specimen['holder']> = {}): Specimen {
  const s = catalogueSpecimen(kind, i, TODAY);
  return { holder: { ...s.holder, ...holder }, document: { ...s.document, ...change } };
}

describe('reading generated documents', () => {
  it('a TD3 passport: every field from its MRZ, the printed zone agreeing, the portrait zone cut out', async () => {
    const s = specimen('td3', 1, { issuer: 'GBR' }, { familyName: 'Van Der Berg', givenNames: ['Pieter', 'Jan'], nationality: 'BEL' });
    const r = await renderSpecimen(s);
    const { outcome: o, portraitZone } = await read(r.front);
    assert.deepEqual(fields(o), expectedRead(s));
    assertWhole(o);
    assert.ok(o.readable);
    assert.equal(o.source, 'mrz');
    assert.deepEqual([o.read.document.format, o.read.document.issuing_country, o.read.holder.nationality], ['TD3', 'GB', 'BE']);
    assert.deepEqual(o.printed, {
      family_name: { printed: 'VAN DER BERG', agrees: true },
      given_names: { printed: 'PIETER JAN', agrees: true },
      date_of_birth: { printed: o.printed?.date_of_birth.printed, agrees: true },
      document_number: o.printed?.document_number,
    });
    assert.notEqual(o.printed?.document_number.agrees, false);
    // the portrait zone: the left of the page, as a JPEG about a third of the page wide
    const meta = await sharp(portraitZone!).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.ok(meta.width > 500 && meta.width < 650 && meta.height > 600, `${meta.width}×${meta.height}`);
  });

  it('a German TD1 card: MRZ on the back (MUELLER), the front printed MÜLLER with numbered labels and dotted dates', async () => {
    const s = specimen('td1', 2, { issuer: 'D' }, { familyName: 'Müller', givenNames: ['Jürgen', 'Karl'], nationality: 'D' });
    const o = await readClean(s);
    assert.deepEqual(fields(o), expectedRead(s));
    assert.ok(o.readable);
    assert.deepEqual([o.side, o.read.document.format, o.read.holder.family_name, o.read.holder.given_names.join(' ')], ['back', 'TD1', 'MUELLER', 'JUERGEN KARL']);
    assertWhole(o);
    assert.match(o.printed?.family_name.printed ?? '', /^M(Ü|U)LLER$/);
  });

  it('a French passport with bilingual labels and dates, and a mononym; a TD2 card', async () => {
    const fr = await readClean(specimen('td3', 3, { issuer: 'FRA' }, { familyName: 'Sukarno', givenNames: [] }));
    assertWhole(fr, 'FRA');
    assert.equal(fr.readable && fr.printed?.given_names.agrees, true);
    const s = specimen('td2', 3, { issuer: 'ROU' });
    const o = await readClean(s);
    assert.deepEqual(fields(o), expectedRead(s));
    assertWhole(o, 'TD2');
  });

  it('a name the MRZ cuts short still agrees with the printed one', async () => {
    const s = specimen('td1', 5, { issuer: 'ESP' }, { familyName: 'Papadopoulou Konstantinidou', givenNames: ['Alexandra', 'Evangelia'] });
    const o = await readClean(s);
    assert.ok(o.readable);
    assert.equal(o.read.holder.family_name, 'PAPADOPOULOU KONSTANTINIDOU');
    assert.ok(o.read.holder.given_names.join('<').length < 'ALEXANDRA<EVANGELIA'.length, 'the MRZ truncated the given names');
    assertWhole(o);
  });

  it('US and Canadian driving licences: the PDF417 barcode on the back, the front with its own date order', async () => {
    for (const [issuer, country] of [['NY', 'US'], ['BC', 'CA']] as const) {
      const s = specimen('aamva', 4, { issuer }, { nameSuffix: 'III' });
      const o = await readClean(s);
      assert.deepEqual(fields(o), expectedRead(s));
      assert.ok(o.readable);
      assert.deepEqual([o.source, o.side, o.read.document.issuing_country, o.read.holder.nationality], ['pdf417', 'back', country, null]);
      assertWhole(o, issuer);
    }
  });

  it('a phone photo: 12 MP, turned 17°, seen at a slant both ways, blurred, under uneven light, stored with EXIF orientation 6', async () => {
    const s = specimen('td3', 5);
    const r = await renderSpecimen(s);
    const photo = await photograph(r.front, { rotation: -17, perspective: 0.05, tilt: 0.05, blur: 1.2, light: 0.45, quality: 70, exifOrientation: 6, seed: 9 });
    const meta = await sharp(photo).metadata();
    assert.deepEqual([meta.width, meta.height, meta.orientation], [3000, 4000, 6]);
    const { outcome, portraitZone } = await read(photo);
    assert.deepEqual(fields(outcome), expectedRead(s));
    assertWhole(outcome);
    assert.ok(portraitZone);
  });

  it('a TD1 card photographed at an angle on both sides; a photo taken upside down', async () => {
    const s = specimen('td1', 6);
    const p = await photos(s, { rotation: 8, perspective: 0.06, tilt: 0.05, light: 0.4, width: 3000, height: 2250, seed: 21 });
    const card = (await read(p.front, p.back)).outcome;
    assert.deepEqual(fields(card), expectedRead(s));
    assertWhole(card, 'TD1');
    const t = specimen('td3', 6, { issuer: 'NLD' });
    const photo = await photograph((await renderSpecimen(t)).front, { rotation: 183, seed: 4, width: 2400, height: 1800 });
    const upside = (await read(photo)).outcome;
    assert.deepEqual(fields(upside), expectedRead(t));
    assertWhole(upside, 'upside down');
  });
});

describe('one real document, read whole: attacks', () => {
  it('an MRZ printed alone on A4 paper at its real size, a face beside it, photographed on a desk: document_not_found, no portrait', async () => {
    const s = specimen('td3', 7);
    const photo = await photograph(await mrzOnPaper(s, { size: 'real', face: 'collins' }), { coverage: 0.92, rotation: 3, seed: 31 });
    const { outcome, portraitZone } = await read(photo);
    assert.ok(outcome.readable, 'the zone itself is read');
    assert.deepEqual(fields(outcome), expectedRead(s));
    assert.deepEqual(outcome.read.reasons, ['document_not_found']);
    assert.equal(outcome.printed, null);
    assert.equal(portraitZone, null);
    assert.deepEqual(documentCheck(outcome), { outcome: 'fail', reasons: ['document_not_found'], score: null });
  });

  it('the same MRZ stretched across the page at its foot, where a passport has it: document_not_found (nothing printed above it)', async () => {
    const s = specimen('td3', 8);
    const photo = await photograph(await mrzOnPaper(s, { size: 'fill', face: 'hopper' }), { coverage: 0.85, rotation: -4, seed: 32 });
    const { outcome, portraitZone } = await read(photo);
    assert.ok(outcome.readable);
    assert.deepEqual(outcome.read.reasons, ['document_not_found']);
    assert.equal(portraitZone, null);
    assert.equal(documentCheck(outcome).outcome, 'fail');
  });

  it('a TD1 front of one person with the back of another: data_mismatch, never a pass', async () => {
    const a = specimen('td1', 1);
    const b = specimen('td1', 2);
    assert.notEqual(a.holder.familyName, b.holder.familyName);
    const [fa, fb] = await Promise.all([photos(a, { width: 3000, height: 2250, seed: 41 }), photos(b, { width: 3000, height: 2250, seed: 43 })]);
    const { outcome } = await read(fa.front, fb.back);
    assert.ok(outcome.readable);
    assert.equal(outcome.read.holder.family_name, expectedRead(b).family_name, 'the data is the back’s');
    assert.equal(outcome.read.reasons[0], 'data_mismatch');
    assert.equal(outcome.printed?.family_name.agrees, false);
    assert.equal(outcome.printed?.family_name.printed, a.holder.familyName.toUpperCase());
    assert.deepEqual(documentCheck(outcome), { outcome: 'review', reasons: ['data_mismatch'], score: null });
  });

  it('a licence front of one person with the barcode of another: data_mismatch', async () => {
    const a = specimen('aamva', 1, { issuer: 'CA' });
    const b = specimen('aamva', 2, { issuer: 'CA' });
    const [ra, rb] = await Promise.all([renderSpecimen(a), renderSpecimen(b)]);
    const { outcome } = await read(ra.front, rb.back);
    assert.ok(outcome.readable);
    assert.equal(outcome.read.reasons[0], 'data_mismatch');
    assert.notEqual(documentCheck(outcome).outcome, 'pass');
  });

  it('a passport page whose printed name is not its MRZ’s: data_mismatch; the MRZ’s data is what is read', async () => {
    const s = specimen('td3', 9, { issuer: 'NLD' });
    const p = await photos(s, { rotation: 5, seed: 51, width: 3000, height: 2250 }, { visual: { familyName: 'Lindqvist' } });
    const { outcome } = await read(p.front);
    assert.deepEqual(fields(outcome), expectedRead(s));
    assert.ok(outcome.readable);
    assert.deepEqual(outcome.printed?.family_name, { printed: 'LINDQVIST', agrees: false });
    assert.deepEqual(documentCheck(outcome), { outcome: 'review', reasons: ['data_mismatch'], score: null });
  });

  it('a front whose date of birth alone was changed: data_mismatch', async () => {
    const s = specimen('td1', 3);
    const r = await renderSpecimen(s, { visual: { dateOfBirth: '1985-01-23' } });
    const { outcome } = await read(r.front, r.back);
    assert.ok(outcome.readable);
    assert.equal(outcome.printed?.date_of_birth.agrees, false);
    assert.equal(outcome.read.reasons[0], 'data_mismatch');
  });

  it('a card’s back alone, or with a blank card as its front: nothing ties its data to a portrait', async () => {
    const s = specimen('td1', 4);
    const r = await renderSpecimen(s);
    const alone = (await read(r.back!)).outcome;
    assert.ok(alone.readable);
    assert.equal(alone.read.reasons[0], 'printed_data_unreadable');
    assert.equal(documentCheck(alone).outcome, 'review');
    const blank = await sharp({ create: { width: 1027, height: 648, channels: 3, background: '#eaf0f8' } }).png().toBuffer();
    const withBlank = (await read(await photograph(blank, { seed: 61, width: 2400, height: 1800 }), r.back)).outcome;
    assert.ok(withBlank.readable);
    assert.equal(withBlank.read.reasons[0], 'document_not_found');
  });
});

describe('what a reader refuses, and the reasons it gives', () => {
  it('a check digit printed wrong: check_digit_mismatch, never a read', async () => {
    const s = specimen('td3', 7);
    const r = await renderSpecimen(s, { mrz: ([l1, l2]) => [l1, l2.slice(0, 19) + String((Number(l2[19]) + 1) % 10) + l2.slice(20)] });
    assert.deepEqual((await read(r.front)).outcome, { readable: false, reason: 'check_digit_mismatch' });
  });

  it('an expired document is read, with expired', async () => {
    const o = await readClean(specimen('td3', 8, { issueDate: '2014-05-01', expiryDate: '2024-05-01' }));
    assert.ok(o.readable);
    assert.deepEqual(o.read.reasons, ['expired']);
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

  it('a photo with no machine-readable data: unreadable', async () => {
    const r = await renderSpecimen(specimen('aamva', 11));
    assert.deepEqual((await read(r.front)).outcome, { readable: false, reason: 'unreadable' });
  });
});
