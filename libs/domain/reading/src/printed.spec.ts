import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { comparePrinted, datesAgree, labelOf, namesAgree, numbersAgree, phrases, printedDate, printedFields, printedVerdict, spellings, type DocumentRead, type Word } from './index.js';

const TODAY = '2026-11-25';

describe('printed names against machine-readable ones', () => {
  it('transliterates as ICAO allows: MÜLLER is MULLER or MUELLER; spaces, hyphens and apostrophes are dropped', () => {
    assert.deepEqual(spellings('Müller'), ['MULLER', 'MUELLER']);
    assert.equal(namesAgree('MÜLLER', 'MUELLER', false), true);
    assert.equal(namesAgree('MÜLLER', 'MULLER', false), true);
    assert.equal(namesAgree("O'CONNOR-HALE", 'OCONNOR HALE', false), true);
    assert.equal(namesAgree('RAMÍREZ GARCÍA', 'RAMIREZ GARCIA', false), true);
    assert.equal(namesAgree('ØSTERGÅRD', 'OESTERGAARD', false), true);
  });

  it('forgives OCR noise, strictly on a clear disagreement, and says nothing in between', () => {
    assert.equal(namesAgree('ERlKSSON', 'ERIKSSON', false), true); // one misread letter
    assert.equal(namesAgree('LINDQVIST', 'ERIKSSON', false), false);
    assert.equal(namesAgree('ERIKSEN', 'ERIKSSON', false), null); // two changes in eight letters: a blur, or another name
    assert.equal(namesAgree('LEE', 'LI', false), false);
    assert.equal(namesAgree(null, 'ERIKSSON', false), null);
  });

  it('a name the MRZ cut short agrees with its start only when the MRZ may have cut it', () => {
    assert.equal(namesAgree('KONSTANTINIDOU', 'KONSTANTIN', true), true);
    assert.equal(namesAgree('KONSTANTINIDOU', 'KONSTANTIN', false), false);
  });
});

describe('printed dates', () => {
  it('reads the formats documents print; US licences put the month first', () => {
    assert.equal(printedDate('12 AUG 1974', false, TODAY), '1974-08-12');
    assert.equal(printedDate('12 AUG/AOÛT 1974', false, TODAY), '1974-08-12');
    assert.equal(printedDate('12 AUG/AOUT 74', false, TODAY), '1974-08-12');
    assert.equal(printedDate('12.08.1974', false, TODAY), '1974-08-12');
    assert.equal(printedDate('08/12/1974', true, TODAY), '1974-08-12');
    assert.equal(printedDate('08/12/1974', false, TODAY), '1974-12-08');
    assert.equal(printedDate('1974/08/12', true, TODAY), '1974-08-12');
    assert.equal(printedDate('O8/12/1974', true, TODAY), '1974-08-12'); // an O read for a 0 next to digits
    assert.equal(printedDate('12 FOO 1974', false, TODAY), null);
    assert.equal(printedDate('31.02.1974', false, TODAY), null);
  });

  it('agree when equal; one digit apart is not a verdict; more is a different date', () => {
    assert.equal(datesAgree('1974-08-12', '1974-08-12'), true);
    assert.equal(datesAgree('1974-08-13', '1974-08-12'), null);
    assert.equal(datesAgree('1985-01-23', '1974-08-12'), false);
    assert.equal(datesAgree(null, '1974-08-12'), null);
  });
});

describe('printed document numbers', () => {
  it('fold OCR look-alikes; up to two characters apart says nothing; three and more disagree', () => {
    assert.equal(numbersAgree('L01X00T47', 'LO1XOOT47'), true);
    assert.equal(numbersAgree('No. L01X00T47', 'L01X00T47'), true);
    assert.equal(numbersAgree('JYBR4AHXAP', 'JYBR4HXAP'), null);
    assert.equal(numbersAgree('3GWIN2FVS8', '3GW9N2FV8'), null);
    assert.equal(numbersAgree('3GW9N2FV1', '3GW9N7EV8'), false);
    assert.equal(numbersAgree('AB1234567', 'L01X00T47'), false);
  });
});

describe('labels and their values', () => {
  it('knows labels in several languages, numbered or bilingual, with OCR noise in long ones', () => {
    assert.equal(labelOf('Surname / Nom'), 'family_name');
    assert.equal(labelOf('1. Name / Surname'), 'family_name');
    assert.equal(labelOf('1LN'), 'family_name');
    assert.equal(labelOf('Gwen names'), 'given_names');
    assert.equal(labelOf('2. Vornamen / Given names'), 'given_names');
    assert.equal(labelOf('Date Of birth'), 'date_of_birth');
    assert.equal(labelOf('3 DOB'), 'date_of_birth');
    assert.equal(labelOf('4d DL'), 'document_number');
    assert.equal(labelOf('Passport No. / N° du passeport'), 'document_number');
    assert.equal(labelOf('Nationality'), null);
    assert.equal(labelOf('ERIKSSON'), null);
  });

  const w = (text: string, left: number, top: number, height = 14): Word => ({ text, left, top, width: text.length * height * 0.6, height });

  it('groups words into phrases by line and gap, and takes each label’s value below it or to its right', () => {
    const words = [
      w('Surname', 10, 10), w('Date', 300, 10), w('of', 336, 10), w('birth', 356, 10),
      w('VAN', 10, 30, 20), w('DER', 52, 31, 20), w('BERG', 94, 29, 20), w('12', 300, 30, 20), w('AUG', 330, 30, 20), w('1974', 374, 30, 20),
      w('Given', 10, 70), w('names', 54, 70),
      w('PIETER', 10, 90, 20),
      w('DL', 10, 130), w('A1234567', 60, 130),
    ];
    assert.deepEqual(
      phrases(words).map((p) => p.text),
      ['Surname', 'Date of birth', 'VAN DER BERG', '12 AUG 1974', 'Given names', 'PIETER', 'DL', 'A1234567'],
    );
    assert.deepEqual(printedFields(words), { family_name: 'VAN DER BERG', given_names: 'PIETER', date_of_birth: '12 AUG 1974', document_number: 'A1234567' });
  });

  const READ: DocumentRead = {
    document: { type: 'identity_card', format: 'TD1', issuing_country: 'DE', number: 'L01X00T47', expiry_date: '2031-08-31' },
    holder: { family_name: 'MUELLER', given_names: ['JUERGEN', 'KARL'], name_suffix: null, date_of_birth: '1958-02-28', nationality: 'DE', sex: 'M' },
    reasons: [],
  };
  const o = { monthFirst: false, truncated: false, today: TODAY };

  it('compares a side with its read: agreeing, disagreeing, and a field found without its label only when it agrees', () => {
    const same = [w('1. Name / Surname', 10, 10), w('MÜLLER', 10, 30, 20), w('3. Geburtsdatum', 10, 70), w('28.02.1958', 10, 90, 20), w('JÜRGEN KARL', 200, 150, 20)];
    const f = comparePrinted(same, READ, o);
    assert.deepEqual(f, {
      family_name: { printed: 'MÜLLER', agrees: true },
      given_names: { printed: 'JÜRGEN KARL', agrees: true },
      date_of_birth: { printed: '28.02.1958', agrees: true },
      document_number: { printed: null, agrees: null },
    });
    assert.equal(printedVerdict(f), null);

    const other = comparePrinted([w('Surname', 10, 10), w('LINDQVIST', 10, 30, 20), w('MUELLER', 200, 150, 20)], READ, o);
    assert.deepEqual(other.family_name, { printed: 'LINDQVIST', agrees: false });
    assert.equal(printedVerdict(other), 'data_mismatch');
  });

  it('the verdict: any disagreement is data_mismatch; the family name and a date of birth or number must agree to tie', () => {
    const f = (a: boolean | null, b: boolean | null, c: boolean | null, d: boolean | null) => ({
      family_name: { printed: null, agrees: a },
      given_names: { printed: null, agrees: b },
      date_of_birth: { printed: null, agrees: c },
      document_number: { printed: null, agrees: d },
    });
    assert.equal(printedVerdict(f(true, true, true, null)), null);
    assert.equal(printedVerdict(f(true, null, null, true)), null);
    assert.equal(printedVerdict(f(true, true, null, null)), 'printed_data_unreadable');
    assert.equal(printedVerdict(f(null, true, true, true)), 'printed_data_unreadable');
    assert.equal(printedVerdict(f(true, true, false, true)), 'data_mismatch');
    assert.equal(printedVerdict(f(null, null, null, null)), 'printed_data_unreadable');
  });
});
