import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aamvaPayload, checkDigit, mrzName, td1, td2, td3 } from './index.js';

const ERIKSSON = {
  issuingState: 'UTO',
  familyName: 'Eriksson',
  givenNames: ['Anna', 'María'],
  nationality: 'UTO',
  dateOfBirth: '1974-08-12',
  sex: 'F' as const,
};

describe('MRZ composition (ICAO 9303 part 3 to 5)', () => {
  it('check digits weigh 7, 3, 1 with < as 0 and letters from 10', () => {
    assert.equal(checkDigit('L898902C3'), '6');
    assert.equal(checkDigit('740812'), '2');
    assert.equal(checkDigit('120415'), '9');
    assert.equal(checkDigit('ZE184226B<<<<<'), '1');
    assert.equal(checkDigit('<<<<'), '0');
  });

  it('reproduces the TD3 specimen of ICAO 9303 part 4 exactly', () => {
    const lines = td3({ ...ERIKSSON, documentCode: 'P', number: 'L898902C3', expiryDate: '2012-04-15', optionalData: 'ZE184226B' });
    assert.deepEqual(lines, ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10']);
  });

  it('reproduces the TD1 specimen of ICAO 9303 part 5 exactly', () => {
    const lines = td1({ ...ERIKSSON, documentCode: 'I', number: 'D23145890', expiryDate: '2012-04-15', optionalData: '' });
    assert.deepEqual(lines, ['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<']);
  });

  it('reproduces the TD2 specimen of ICAO 9303 part 6 exactly', () => {
    const lines = td2({ ...ERIKSSON, documentCode: 'I', number: 'D23145890', expiryDate: '2012-04-15' });
    assert.deepEqual(lines, ['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D231458907UTO7408122F1204159<<<<<<<6']);
  });

  it('folds names: several words in one primary identifier, a mononym alone, truncation to the field', () => {
    assert.equal(mrzName('De Bruijn', ['Willeke'], 20), 'DE<BRUIJN<<WILLEKE<<');
    assert.equal(mrzName("O'Connor-Hale", [], 20), 'OCONNOR<HALE<<<<<<<<');
    assert.equal(mrzName('Sukarno', [], 10), 'SUKARNO<<<');
    assert.equal(mrzName('Wolfeschlegelsteinhausen', ['Hubert', 'Blaine'], 30), 'WOLFESCHLEGELSTEINHAUSEN<<HUBE');
  });
});

describe('AAMVA barcode text', () => {
  it('has a header whose designators point at each subfile, and the DL elements', () => {
    const text = aamvaPayload({
      jurisdiction: 'CA',
      familyName: 'Ramírez García',
      givenNames: ['José', 'Luis', 'Miguel'],
      nameSuffix: 'Jr',
      dateOfBirth: '1990-11-30',
      sex: 'M',
      number: 'D1234567',
      issueDate: '2024-01-02',
      expiryDate: '2032-11-30',
    });
    assert.ok(text.startsWith('@\n\x1e\rANSI 636014100002'));
    const designators = text.slice(21, 41);
    const [dlOffset, dlLength] = [Number(designators.slice(2, 6)), Number(designators.slice(6, 10))];
    assert.equal(designators.slice(0, 2), 'DL');
    const dl = text.slice(dlOffset, dlOffset + dlLength);
    assert.ok(dl.startsWith('DLDCAC\n') && dl.endsWith('\r'));
    for (const e of ['DCSRAMIREZ GARCIA', 'DACJOSE', 'DADLUIS,MIGUEL', 'DCUJR', 'DBB11301990', 'DBA11302032', 'DAQD1234567', 'DCGUSA', 'DBC1']) {
      assert.ok(dl.includes(`\n${e}\n`) || dl.includes(`\n${e}\r`), e);
    }
  });
});
