import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { td1, td2, td3 } from '@verity/specimens';
import { countryOfIcao, fitLines, mrzDate, parseMrz, type MrzParse } from './index.js';

const TODAY = '2026-11-25';
const HOLDER = { familyName: 'De Bruijn', givenNames: ['Willeke', 'Liselotte'], nationality: 'NLD', dateOfBirth: '1965-03-10', sex: 'F' as const };
const PASSPORT = td3({ ...HOLDER, documentCode: 'P', issuingState: 'NLD', number: 'SPECI2014', expiryDate: '2034-03-09' });

function read(p: MrzParse) {
  assert.ok(p.ok, `expected a read, got ${JSON.stringify(p)}`);
  return p.read;
}

describe('MRZ lines to fields', () => {
  it('reads every TD3 field and splits the names as the applicant model wants them', () => {
    const r = read(parseMrz(PASSPORT, TODAY));
    assert.deepEqual(r.document, { type: 'passport', format: 'TD3', issuing_country: 'NL', number: 'SPECI2014', expiry_date: '2034-03-09' });
    assert.deepEqual(r.holder, { family_name: 'DE BRUIJN', given_names: ['WILLEKE', 'LISELOTTE'], name_suffix: null, date_of_birth: '1965-03-10', nationality: 'NL', sex: 'F' });
    assert.deepEqual(r.reasons, []);
  });

  it('reads TD1 and TD2 cards; a mononym is a family name with no given names', () => {
    const mononym = { ...HOLDER, familyName: 'Sukarno', givenNames: [], sex: 'X' as const, nationality: 'IDN', dateOfBirth: '2001-06-06' };
    const card = read(parseMrz(td1({ ...mononym, documentCode: 'ID', issuingState: 'D', number: 'L01X00T47', expiryDate: '2031-08-31' }), TODAY));
    assert.deepEqual(card.document, { type: 'identity_card', format: 'TD1', issuing_country: 'DE', number: 'L01X00T47', expiry_date: '2031-08-31' });
    assert.deepEqual(card.holder, { family_name: 'SUKARNO', given_names: [], name_suffix: null, date_of_birth: '2001-06-06', nationality: 'ID', sex: 'X' });
    const older = read(parseMrz(td2({ ...HOLDER, documentCode: 'I', issuingState: 'ROU', number: 'AB1234567', expiryDate: '2028-01-31' }), TODAY));
    assert.equal(older.document.format, 'TD2');
    assert.equal(older.document.issuing_country, 'RO');
    assert.deepEqual(older.holder.given_names, ['WILLEKE', 'LISELOTTE']);
  });

  it('a wrong check digit is check_digit_mismatch, never a read', () => {
    const tampered = [PASSPORT[0], PASSPORT[1].slice(0, 9) + '0' + PASSPORT[1].slice(10)];
    assert.notEqual(tampered[1], PASSPORT[1]);
    assert.deepEqual(parseMrz(tampered, TODAY), { ok: false, why: 'check_digit_mismatch', lines: tampered });
    // a date changed under its check digit
    const birth = [PASSPORT[0], PASSPORT[1].slice(0, 13) + '650311' + PASSPORT[1].slice(19)];
    assert.equal((parseMrz(birth, TODAY) as { why: string }).why, 'check_digit_mismatch');
  });

  it('names have no check digit, so a name field out of shape is refused (a stray letter in the fillers)', () => {
    const stray = [PASSPORT[0].slice(0, 40) + 'K<<<', PASSPORT[1]];
    assert.equal((parseMrz(stray, TODAY) as { why: string }).why, 'check_digit_mismatch');
  });

  it('an expired document, an unknown issuing state and an unknown nationality are read with their reasons', () => {
    const expired = read(parseMrz(td3({ ...HOLDER, documentCode: 'P', issuingState: 'NLD', number: 'SPECI2014', expiryDate: '2026-11-24' }), TODAY));
    assert.deepEqual(expired.reasons, ['expired']);
    const utopia = read(parseMrz(td3({ ...HOLDER, nationality: 'XXA', documentCode: 'P', issuingState: 'UTO', number: 'L898902C3', expiryDate: '2030-04-15' }), TODAY));
    assert.equal(utopia.document.issuing_country, null);
    assert.equal(utopia.holder.nationality, null);
    assert.deepEqual(utopia.reasons, ['unknown_issuing_state', 'unknown_nationality']);
  });

  it('a visa is an unsupported document', () => {
    const visa = td2({ ...HOLDER, documentCode: 'V', issuingState: 'NLD', number: 'VISA12345', expiryDate: '2030-01-01' });
    assert.equal((parseMrz(visa, TODAY) as { why: string }).why, 'unsupported_document');
  });
});

describe('look-alikes in the document number', () => {
  const withNumber = (number: string) => td3({ ...HOLDER, documentCode: 'P', issuingState: 'NLD', number, expiryDate: '2034-03-09' });

  it('a 0 read as O, or a 5 read as S, is put right by the check digits', () => {
    const printed = withNumber('X50D00T47');
    const misread = [printed[0], 'XSOD0OT47' + printed[1].slice(9)];
    assert.equal(read(parseMrz(misread, TODAY)).document.number, 'X50D00T47');
  });

  it('a letter O the check digit asks for is found', () => {
    const printed = withNumber('AO1234567');
    assert.equal(read(parseMrz(printed, TODAY)).document.number, 'AO1234567');
  });

  it('when two spellings hold the check digits the zone stays unread', () => {
    // a letter O and a digit 0 at places of the same weight (7): swapping them keeps every check digit
    const printed = withNumber('OAB0C1234');
    assert.equal((parseMrz(printed, TODAY) as { why: string }).why, 'check_digit_mismatch');
  });
});

describe('fitting OCR lines to a layout', () => {
  it('mends a filler run that gained or lost a chevron, and ignores short junk lines', () => {
    const [l1, l2] = PASSPORT;
    const fits = fitLines(['SPECIMEN', l1.replace('<<<<<<<<<<<', '<<<<<<<<<<<<'), l2.replace('<<<<<<<<<<<<<<', '<<<<<<<<<<<<<')]);
    assert.deepEqual(fits, [[l1, l2]]);
  });
});

describe('dates and countries', () => {
  it('puts a birth date in the past and an expiry within fifty years', () => {
    assert.equal(mrzDate('261126', 'birth', TODAY), '1926-11-26');
    assert.equal(mrzDate('261125', 'birth', TODAY), '2026-11-25');
    assert.equal(mrzDate('991231', 'expiry', TODAY), '1999-12-31');
    assert.equal(mrzDate('760101', 'expiry', TODAY), '2076-01-01');
    assert.equal(mrzDate('230230', 'birth', TODAY), null);
  });

  it('maps ICAO codes to ISO 3166 alpha-2, with ICAO’s own codes', () => {
    assert.equal(countryOfIcao('NLD'), 'NL');
    assert.equal(countryOfIcao('D<<'), 'DE');
    assert.equal(countryOfIcao('GBD'), 'GB');
    assert.equal(countryOfIcao('UTO'), null);
    assert.equal(countryOfIcao('XXA'), null);
  });
});
