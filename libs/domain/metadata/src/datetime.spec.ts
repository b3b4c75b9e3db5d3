import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseOffsetDatetime } from './index.js';
import { compareInstants, formatDatetimeForDocument, isCalendarDay, parseDatetimeDetailed, type ParsedDatetime } from './datetime.js';

function parsed(s: string): ParsedDatetime {
  const r = parseDatetimeDetailed(s);
  assert.ok(r.ok, `${s} should parse`);
  return r.value;
}

describe('parseOffsetDatetime: accepted forms', () => {
  const cases: [string, number][] = [
    ['2026-03-14T09:30:00Z', 0],
    ['2026-03-14T09:30:00+00:00', 0],
    ['2026-03-14T09:30:00+01:00', 60],
    ['2026-03-14T09:30:00-05:30', -330],
    ['2026-03-14T09:30:00+05:45', 345],
    ['2026-03-14T09:30:00+14:00', 840],
    ['2026-03-14T09:30:00-12:00', -720],
    ['2026-03-14T09:30Z', 0],
    ['2026-03-14T09:30:00.1Z', 0],
    ['2026-03-14T09:30:00.123Z', 0],
    ['2026-03-14T09:30:00.123456789+02:00', 120],
  ];
  for (const [s, offset] of cases) {
    it(`accepts ${s}`, () => {
      const r = parseOffsetDatetime(s);
      assert.ok(r !== null);
      assert.equal(r.offsetMinutes, offset);
      // Cross-check the instant with the ECMAScript parser (milliseconds).
      const ecma = s.replace(/(\.\d{3})\d+/, '$1');
      assert.equal(r.instantMs, Date.parse(ecma));
    });
  }

  it('the same instant in different offsets has the same instantMs', () => {
    const a = parseOffsetDatetime('2026-01-01T00:00:00+02:00');
    const b = parseOffsetDatetime('2025-12-31T22:00:00Z');
    const c = parseOffsetDatetime('2025-12-31T12:00:00-10:00');
    assert.ok(a && b && c);
    assert.equal(a.instantMs, b.instantMs);
    assert.equal(b.instantMs, c.instantMs);
    assert.notEqual(a.offsetMinutes, b.offsetMinutes);
  });

  it('handles years far from the epoch without the Date two-digit-year trap', () => {
    assert.equal(parseOffsetDatetime('0001-01-01T00:00:00Z')?.instantMs, Date.parse('0001-01-01T00:00:00Z'));
    assert.equal(parseOffsetDatetime('0050-06-15T12:00:00Z')?.instantMs, Date.parse('0050-06-15T12:00:00Z'));
    assert.equal(parseOffsetDatetime('9999-12-31T23:59:59.999Z')?.instantMs, Date.parse('9999-12-31T23:59:59.999Z'));
    assert.equal(parseOffsetDatetime('1969-12-31T23:59:59Z')?.instantMs, -1000);
  });

  it('drops fraction digits beyond the millisecond in instantMs', () => {
    assert.equal(parseOffsetDatetime('1970-01-01T00:00:00.0019Z')?.instantMs, 1);
  });
});

describe('parseOffsetDatetime: calendar', () => {
  it('Feb 29 exists in a leap year only', () => {
    assert.notEqual(parseOffsetDatetime('2024-02-29T10:00:00Z'), null);
    assert.equal(parseOffsetDatetime('2026-02-29T10:00:00Z'), null);
    assert.notEqual(parseOffsetDatetime('2000-02-29T10:00:00Z'), null, '2000 is a leap year (divisible by 400)');
    assert.equal(parseOffsetDatetime('1900-02-29T10:00:00Z'), null, '1900 is not (divisible by 100)');
    assert.equal(parseOffsetDatetime('2100-02-29T10:00:00Z'), null);
  });

  it('refuses days that do not exist', () => {
    for (const s of [
      '2026-02-30T10:00:00Z',
      '2026-04-31T10:00:00Z',
      '2026-06-31T10:00:00Z',
      '2026-09-31T10:00:00Z',
      '2026-11-31T10:00:00Z',
      '2026-01-32T10:00:00Z',
      '2026-01-00T10:00:00Z',
      '2026-00-10T10:00:00Z',
      '2026-13-10T10:00:00Z',
    ]) {
      assert.equal(parseOffsetDatetime(s), null, s);
    }
    assert.notEqual(parseOffsetDatetime('2026-01-31T10:00:00Z'), null);
    assert.notEqual(parseOffsetDatetime('2026-12-31T10:00:00Z'), null);
    assert.notEqual(parseOffsetDatetime('2026-04-30T10:00:00Z'), null);
  });

  it('refuses out-of-range clock fields', () => {
    assert.notEqual(parseOffsetDatetime('2026-03-14T23:59:59Z'), null);
    assert.notEqual(parseOffsetDatetime('2026-03-14T00:00:00Z'), null);
    for (const s of ['2026-03-14T24:00:00Z', '2026-03-14T25:00:00Z', '2026-03-14T12:60:00Z', '2026-03-14T12:00:60Z']) {
      assert.equal(parseOffsetDatetime(s), null, s);
    }
  });

  it('refuses offsets outside -12:00..+14:00, bad offset minutes and -00:00', () => {
    for (const s of [
      '2026-03-14T09:30:00+14:01',
      '2026-03-14T09:30:00+15:00',
      '2026-03-14T09:30:00-12:01',
      '2026-03-14T09:30:00-13:00',
      '2026-03-14T09:30:00+01:60',
      '2026-03-14T09:30:00+99:00',
      '2026-03-14T09:30:00-00:00',
    ]) {
      assert.equal(parseOffsetDatetime(s), null, s);
    }
  });
});

describe('parseOffsetDatetime: refused forms', () => {
  const refused = [
    '2026-03-14', // date alone
    '2026-03-14T09:30:00', // no offset
    '2026-03-14T09:30', // no offset
    '2026-03-14T09:30:00.123', // no offset
    '2026-03-14T09:30:00+0100', // ±hhmm
    '2026-03-14T09:30:00+01', // ±hh
    '2026-03-14 09:30:00Z', // space separator
    '2026-03-14t09:30:00Z', // lower-case t
    '2026-03-14T09:30:00z', // lower-case z
    '20260314T093000Z', // basic format
    '2026-03-14T09:30:00,5Z', // comma fraction
    '2026-03-14T09:30:00.Z', // empty fraction
    '2026-03-14T09:30:00.1234567890Z', // 10 fraction digits
    '2026-03-14T09:30.5Z', // fraction without seconds
    '2026-03-14T9:30:00Z', // one-digit hour
    '+002026-03-14T09:30:00Z', // expanded year
    '2026-03-14T09:30:00\u221201:00', // Unicode minus sign
    '2026-03-14T09:30:00+01:00 ', // trailing space
    ' 2026-03-14T09:30:00+01:00', // leading space
    '2026-03-14T09:30:00+01:00\n',
    '\u0662\u0660\u0662\u0666-03-14T09:30:00Z', // non-ASCII digits
    '',
  ];
  for (const s of refused) {
    it(`refuses ${JSON.stringify(s)}`, () => {
      assert.equal(parseOffsetDatetime(s), null);
    });
  }

  it('returns null for a non-string at runtime instead of throwing', () => {
    assert.equal(parseOffsetDatetime(123 as unknown as string), null);
    assert.equal(parseOffsetDatetime(null as unknown as string), null);
  });

  it('gives a specific reason for a date alone, a missing offset and ±hhmm', () => {
    const a = parseDatetimeDetailed('2026-03-14');
    const b = parseDatetimeDetailed('2026-03-14T09:30:00');
    const c = parseDatetimeDetailed('2026-03-14T09:30:00+0100');
    const d = parseDatetimeDetailed('2026-02-30T09:30:00Z');
    assert.ok(!a.ok && a.reason.includes('date alone'));
    assert.ok(!b.ok && b.reason.includes('without offset'));
    assert.ok(!c.ok && c.reason.includes('colon'));
    assert.ok(!d.ok && d.reason.includes('day 30 does not exist in 2026-02'));
  });
});

describe('compareInstants', () => {
  it('compares across offsets and below the millisecond', () => {
    assert.equal(compareInstants(parsed('2026-01-01T00:00:00+02:00'), parsed('2025-12-31T22:00:00Z')), 0);
    assert.ok(compareInstants(parsed('2026-01-01T01:00:00+02:00'), parsed('2025-12-31T22:00:00Z')) > 0);
    assert.ok(compareInstants(parsed('2025-12-31T23:30:00+02:00'), parsed('2025-12-31T22:00:00Z')) < 0);
    assert.ok(compareInstants(parsed('2026-01-01T00:00:00.0000001Z'), parsed('2026-01-01T00:00:00.0000002Z')) < 0);
    assert.ok(compareInstants(parsed('2026-01-01T00:00:00.0000002Z'), parsed('2026-01-01T00:00:00.0000001Z')) > 0);
    assert.equal(compareInstants(parsed('2026-01-01T00:00:00.5Z'), parsed('2026-01-01T00:00:00.500000000Z')), 0);
  });
});

describe('formatDatetimeForDocument', () => {
  const cases: [string, string][] = [
    ['2026-03-14T09:30:00+01:00', '2026-03-14 09:30 (UTC+01:00)'],
    ['2026-03-14T09:30+01:00', '2026-03-14 09:30 (UTC+01:00)'],
    ['2026-03-14T09:30:00Z', '2026-03-14 09:30 (UTC+00:00)'],
    ['2026-03-14T09:30:00+00:00', '2026-03-14 09:30 (UTC+00:00)'],
    ['2026-03-14T09:30:00-05:30', '2026-03-14 09:30 (UTC-05:30)'],
    ['2026-03-14T23:59:59+14:00', '2026-03-14 23:59:59 (UTC+14:00)'],
    ['2026-03-14T09:30:00.250-12:00', '2026-03-14 09:30:00.25 (UTC-12:00)'],
    ['2026-03-14T09:30:00.000Z', '2026-03-14 09:30 (UTC+00:00)'],
    ['2026-03-14T00:00:00+01:00', '2026-03-14 (UTC+01:00)'],
    ['2026-03-14T00:00+01:00', '2026-03-14 (UTC+01:00)'],
    ['2026-03-14T00:00:00.000Z', '2026-03-14 (UTC+00:00)'],
    ['2026-03-14T00:00:00.001Z', '2026-03-14 00:00:00.001 (UTC+00:00)'],
    ['2026-03-14T00:01:00Z', '2026-03-14 00:01 (UTC+00:00)'],
    ['2026-03-14T00:00:01Z', '2026-03-14 00:00:01 (UTC+00:00)'],
  ];
  for (const [s, printed] of cases) {
    it(`${s} prints ${printed}`, () => {
      assert.equal(formatDatetimeForDocument(parsed(s)), printed);
    });
  }
});

describe('isCalendarDay', () => {
  it('takes a day of the calendar as YYYY-MM-DD, and nothing else', () => {
    for (const d of ['2026-03-14', '2024-02-29', '2000-02-29', '0001-01-01', '9999-12-31']) assert.equal(isCalendarDay(d), true, d);
    for (const d of ['2026-02-29', '1900-02-29', '2026-02-30', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '0000-01-01', '2026-1-01', '20260101', '2026-01-01T00:00:00Z', '', 20260101, null, undefined]) {
      assert.equal(isCalendarDay(d), false, String(d));
    }
  });
});
