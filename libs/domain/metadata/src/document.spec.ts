import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DOCUMENT_VARIABLES,
  esignMissingMessage,
  missingSigningKeys,
  renderDocumentVariable,
  type DocumentVariable,
} from './index.js';
import { formatMinorUnits, minorUnitsOf } from './currency.js';

describe('DOCUMENT_VARIABLES', () => {
  it('maps the five keys to their variable names, in document order', () => {
    assert.deepEqual(DOCUMENT_VARIABLES, {
      start_datetime: 'Start date and time',
      end_datetime: 'End date and time',
      amount: 'Transaction amount',
      currency: 'Currency',
      location: 'Location',
    });
    assert.deepEqual(Object.keys(DOCUMENT_VARIABLES), ['start_datetime', 'end_datetime', 'amount', 'currency', 'location']);
    assert.ok(Object.isFrozen(DOCUMENT_VARIABLES));
  });
});

describe('missingSigningKeys', () => {
  const all = Object.keys(DOCUMENT_VARIABLES) as DocumentVariable[];

  it('is empty when every placed key is sent', () => {
    assert.deepEqual(missingSigningKeys(['amount', 'currency'], { amount: 1, currency: 'USD', other: 1 }), []);
    assert.deepEqual(missingSigningKeys([], {}), []);
  });

  it('lists every placed key not sent, once, in document order', () => {
    assert.deepEqual(missingSigningKeys(['location', 'start_datetime', 'location'], {}), ['start_datetime', 'location']);
    assert.deepEqual(missingSigningKeys(all, { currency: 'USD' }), [
      'start_datetime',
      'end_datetime',
      'amount',
      'location',
    ]);
  });

  it('only placed keys are required', () => {
    assert.deepEqual(missingSigningKeys(['currency'], {}), ['currency']);
    assert.deepEqual(missingSigningKeys(['currency'], { currency: 'JPY' }), []);
  });

  it('a key present with undefined counts as missing; inherited properties do not count', () => {
    assert.deepEqual(missingSigningKeys(['location'], { location: undefined }), ['location']);
    const proto = { location: 'Paris' };
    assert.deepEqual(missingSigningKeys(['location'], Object.create(proto) as Record<string, unknown>), ['location']);
  });

  it('ignores names outside the five', () => {
    assert.deepEqual(missingSigningKeys(['nope' as DocumentVariable, 'amount'], {}), ['amount']);
  });
});

describe('esignMissingMessage', () => {
  it('names every missing variable and its key', () => {
    const msg = esignMissingMessage(['amount', 'start_datetime', 'location']);
    assert.equal(
      msg,
      'The signing document of the workflow needs session metadata that was not supplied: ' +
        'Start date and time (metadata.start_datetime), Transaction amount (metadata.amount), ' +
        'Location (metadata.location). Create the session with these metadata keys.',
    );
  });

  it('each of the five, alone', () => {
    for (const [key, name] of Object.entries(DOCUMENT_VARIABLES)) {
      const msg = esignMissingMessage([key as DocumentVariable]);
      assert.ok(msg.includes(`${name} (metadata.${key})`), msg);
      assert.ok(msg.endsWith('Create the session with this metadata key.'));
    }
  });

  it('with nothing missing, a generic message', () => {
    assert.equal(esignMissingMessage([]), 'The signing document of the workflow needs session metadata that was not supplied.');
  });
});

describe('renderDocumentVariable: datetimes (rules 1-2)', () => {
  it('prints date, time and the sent offset as (UTC+hh:mm)', () => {
    const md = { start_datetime: '2026-03-14T09:30:00+01:00', end_datetime: '2026-03-14T18:45:00-05:30' };
    assert.equal(renderDocumentVariable('start_datetime', md), '2026-03-14 09:30 (UTC+01:00)');
    assert.equal(renderDocumentVariable('end_datetime', md), '2026-03-14 18:45 (UTC-05:30)');
  });

  it('Z prints (UTC+00:00)', () => {
    assert.equal(renderDocumentVariable('start_datetime', { start_datetime: '2026-03-14T09:30:00Z' }), '2026-03-14 09:30 (UTC+00:00)');
  });

  it('widest offsets', () => {
    assert.equal(renderDocumentVariable('start_datetime', { start_datetime: '2026-03-14T09:30:00+14:00' }), '2026-03-14 09:30 (UTC+14:00)');
    assert.equal(renderDocumentVariable('start_datetime', { start_datetime: '2026-03-14T09:30:00-12:00' }), '2026-03-14 09:30 (UTC-12:00)');
  });

  it('midnight in its own offset prints the date alone; the same instant in Z prints a clock', () => {
    const local = '2026-01-01T00:00:00+02:00';
    const utc = '2025-12-31T22:00:00Z';
    assert.equal(renderDocumentVariable('start_datetime', { start_datetime: local }), '2026-01-01 (UTC+02:00)');
    assert.equal(renderDocumentVariable('start_datetime', { start_datetime: utc }), '2025-12-31 22:00 (UTC+00:00)');
    assert.equal(renderDocumentVariable('end_datetime', { end_datetime: '2026-01-01T00:00:00Z' }), '2026-01-01 (UTC+00:00)');
    assert.equal(renderDocumentVariable('end_datetime', { end_datetime: '2026-01-01T00:00:00-12:00' }), '2026-01-01 (UTC-12:00)');
  });

  it('prints seconds and fraction only when not zero', () => {
    assert.equal(renderDocumentVariable('start_datetime', { start_datetime: '2026-03-14T09:30:15+01:00' }), '2026-03-14 09:30:15 (UTC+01:00)');
    assert.equal(
      renderDocumentVariable('start_datetime', { start_datetime: '2026-03-14T09:30:00.500+01:00' }),
      '2026-03-14 09:30:00.5 (UTC+01:00)',
    );
    assert.equal(renderDocumentVariable('start_datetime', { start_datetime: '2026-03-14T09:30:00.000+01:00' }), '2026-03-14 09:30 (UTC+01:00)');
  });
});

describe('renderDocumentVariable: amount (rule 1)', () => {
  const cases: [number, string, string][] = [
    [123456, 'USD', '1234.56 USD'],
    [5, 'USD', '0.05 USD'],
    [50, 'EUR', '0.50 EUR'],
    [0, 'USD', '0.00 USD'],
    [999_999_999_999, 'USD', '9999999999.99 USD'],
    [123456, 'JPY', '123456 JPY'],
    [0, 'JPY', '0 JPY'],
    [999_999_999_999, 'JPY', '999999999999 JPY'],
    [1234567, 'BHD', '1234.567 BHD'],
    [1, 'KWD', '0.001 KWD'],
    [12345, 'CLF', '1.2345 CLF'],
    [123456, 'usd', '1234.56 usd'],
    [100, 'eUr', '1.00 eUr'],
  ];
  for (const [amount, currency, printed] of cases) {
    it(`${amount} ${currency} prints ${printed}`, () => {
      assert.equal(renderDocumentVariable('amount', { amount, currency }), printed);
    });
  }

  it('-0 prints as zero', () => {
    assert.equal(renderDocumentVariable('amount', { amount: -0, currency: 'USD' }), '0.00 USD');
  });

  it('a major-unit value prints 100 times too small for a two-decimal currency (rule 1)', () => {
    assert.equal(renderDocumentVariable('amount', { amount: 100, currency: 'USD' }), '1.00 USD');
  });
});

describe('renderDocumentVariable: currency and location', () => {
  it('currency prints as sent', () => {
    assert.equal(renderDocumentVariable('currency', { currency: 'usd' }), 'usd');
    assert.equal(renderDocumentVariable('currency', { currency: 'GBP' }), 'GBP');
  });

  it('location prints trimmed, whether or not the stored value was trimmed', () => {
    assert.equal(renderDocumentVariable('location', { location: 'Paris' }), 'Paris');
    assert.equal(renderDocumentVariable('location', { location: '  Paris, France  ' }), 'Paris, France');
  });
});

describe('renderDocumentVariable: refuses what it cannot print faithfully', () => {
  const bad: [DocumentVariable, Record<string, unknown>][] = [
    ['start_datetime', {}],
    ['start_datetime', { start_datetime: '2026-03-14' }],
    ['end_datetime', { end_datetime: null }],
    ['amount', { amount: 100 }],
    ['amount', { amount: 100, currency: 'ZZZ' }],
    ['amount', { amount: 1.5, currency: 'USD' }],
    ['amount', { amount: '100', currency: 'USD' }],
    ['currency', { currency: 'ZZZ' }],
    ['location', { location: '<b>' }],
    ['location', { location: '' }],
    ['nope' as DocumentVariable, { nope: 'x' }],
  ];
  for (const [key, md] of bad) {
    it(`${key} of ${JSON.stringify(md)} throws a TypeError`, () => {
      assert.throws(() => renderDocumentVariable(key, md), TypeError);
    });
  }
});

describe('currency table (currency-codes)', () => {
  it('gives ISO 4217 minor units, case-insensitively', () => {
    assert.equal(minorUnitsOf('JPY'), 0);
    assert.equal(minorUnitsOf('USD'), 2);
    assert.equal(minorUnitsOf('usd'), 2);
    assert.equal(minorUnitsOf('BHD'), 3);
    assert.equal(minorUnitsOf('CLF'), 4);
    assert.equal(minorUnitsOf('ZZZ'), undefined);
    assert.equal(minorUnitsOf('US'), undefined);
  });

  it('formats minor units without float error', () => {
    assert.equal(formatMinorUnits(999_999_999_999, 2), '9999999999.99');
    assert.equal(formatMinorUnits(1, 4), '0.0001');
    assert.equal(formatMinorUnits(10, 2), '0.10');
    assert.equal(formatMinorUnits(7, 0), '7');
  });
});
