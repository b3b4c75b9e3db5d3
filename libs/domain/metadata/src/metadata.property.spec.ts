import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DOCUMENT_VARIABLES,
  RESERVED_METADATA_KEYS,
  parseOffsetDatetime,
  renderDocumentVariable,
  validateSessionMetadata,
  type DocumentVariable,
  type MetadataValidation,
} from './index.js';
import { compareInstants, daysInMonth, parseDatetimeDetailed } from './datetime.js';
import currencyCodes from 'currency-codes';

const FIVE = Object.keys(DOCUMENT_VARIABLES) as DocumentVariable[];
const NAMED = new Set<string>([...FIVE, ...RESERVED_METADATA_KEYS]);
const NUM_RUNS = 500;

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** A valid datetime string (with varied precision and offsets). */
const datetimeArb: fc.Arbitrary<string> = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    dayFrac: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.option(fc.integer({ min: 0, max: 59 })),
    fraction: fc.option(fc.stringMatching(/^\d{1,9}$/)),
    offset: fc.oneof(fc.constant<number | null>(null), fc.integer({ min: -12 * 60, max: 14 * 60 })),
    plusZero: fc.boolean(),
  })
  .map(({ year, month, dayFrac, hour, minute, second, fraction, offset, plusZero }) => {
    const day = 1 + Math.floor(dayFrac * daysInMonth(year, month));
    let s = `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}`;
    if (second !== null) s += `:${pad(second)}${fraction !== null ? `.${fraction}` : ''}`;
    if (offset === null || (offset === 0 && !plusZero)) return `${s}Z`;
    const abs = Math.abs(offset);
    return `${s}${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  });

const LOCATION_CHARS = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ...' ,.-/#&\'"()!?:;@+*%',
  'é',
  'ü',
  'ß',
  'ø',
  'Ж',
  'ב',
  'ع',
  '東',
  '京',
  '\u{1F3E0}',
  '\u00A0',
  '\u3000',
  '\uFF1C',
];

const locationArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.string({ unit: fc.constantFrom(' ', '\u00A0', '\u3000'), maxLength: 5 }),
    fc.string({ unit: fc.constantFrom(...LOCATION_CHARS), minLength: 1, maxLength: 520 }),
    fc.string({ unit: fc.constantFrom(' ', '\u00A0', '\u3000'), maxLength: 5 }),
  )
  .map(([a, b, c]) => `${a}${b}${c}`)
  .filter((s) => {
    const t = s.trim();
    return t !== '' && [...t].length <= 500;
  });

const currencyArb: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...currencyCodes.codes()), fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }))
  .map(([code, lower]) => [...code].map((ch, i) => (lower[i] ? ch.toLowerCase() : ch)).join(''));

/** Keys other than the five and the reserved seven, with any JSON value. */
const otherKeysArb = fc.dictionary(
  fc.string().filter((k) => !NAMED.has(k)),
  fc.jsonValue(),
  { maxKeys: 6 },
);

const validMetadataArb = fc
  .record(
    {
      start_datetime: datetimeArb,
      end_datetime: datetimeArb,
      amount: fc.integer({ min: 0, max: 999_999_999_999 }),
      currency: currencyArb,
      location: locationArb,
    },
    { requiredKeys: [] },
  )
  .chain((five) => otherKeysArb.map((others) => ({ ...others, ...five })))
  .map((md) => {
    const out: Record<string, unknown> = { ...md };
    if (out['amount'] !== undefined && out['currency'] === undefined) out['currency'] = 'USD';
    const s = typeof out['start_datetime'] === 'string' ? parseDatetimeDetailed(out['start_datetime']) : null;
    const e = typeof out['end_datetime'] === 'string' ? parseDatetimeDetailed(out['end_datetime']) : null;
    if (s?.ok && e?.ok && compareInstants(e.value, s.value) < 0) {
      [out['start_datetime'], out['end_datetime']] = [out['end_datetime'], out['start_datetime']];
    }
    return out;
  });

function wellFormed(r: MetadataValidation): void {
  if (r.ok) {
    assert.equal(typeof r.value, 'object');
  } else {
    assert.ok(r.issues.length > 0);
    for (const issue of r.issues) {
      assert.equal(issue.path[0], 'metadata');
      assert.ok(issue.path.length <= 2);
      assert.ok(['invalid_type', 'too_small', 'too_big', 'invalid_format', 'invalid_value', 'custom'].includes(issue.code));
      assert.ok(typeof issue.message === 'string' && issue.message.length > 0);
    }
  }
}

describe('properties', () => {
  it('validation never throws on arbitrary JSON and answers well-formed results', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        wellFormed(validateSessionMetadata(v));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('validation never throws on objects of the five, reserved and other keys with any JSON values', () => {
    const key = fc.oneof(fc.constantFrom(...FIVE, ...RESERVED_METADATA_KEYS), fc.string());
    const value = fc.oneof(fc.jsonValue(), datetimeArb, fc.string(), fc.double(), fc.integer());
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 10 }), (md) => {
        const r = validateSessionMetadata(md);
        wellFormed(r);
        if (r.ok) {
          const expected: Record<string, unknown> = { ...md };
          if (typeof md['location'] === 'string') expected['location'] = md['location'].trim();
          assert.deepEqual(r.value, expected);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('a valid object is accepted and round-trips unchanged except the trimmed location', () => {
    fc.assert(
      fc.property(validMetadataArb, (md) => {
        const snapshot = structuredClone(md);
        const r = validateSessionMetadata(md);
        assert.ok(r.ok, JSON.stringify(r));
        const expected: Record<string, unknown> = { ...snapshot };
        if (typeof snapshot['location'] === 'string') expected['location'] = snapshot['location'].trim();
        assert.deepEqual(r.value, expected);
        assert.deepEqual(md, snapshot, 'input not mutated');
        // Validating the stored value again is stable.
        const again = validateSessionMetadata(r.value);
        assert.ok(again.ok);
        assert.deepEqual(again.value, r.value);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('every variable present in a valid object renders without throwing', () => {
    fc.assert(
      fc.property(validMetadataArb, (md) => {
        const r = validateSessionMetadata(md);
        assert.ok(r.ok);
        for (const key of FIVE) {
          if (r.value[key] === undefined) continue;
          const printed = renderDocumentVariable(key, r.value);
          assert.ok(printed.length > 0);
          if (key === 'start_datetime' || key === 'end_datetime') {
            assert.match(printed, /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2}(\.\d+)?)?)? \(UTC[+-]\d{2}:\d{2}\)$/);
          }
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('parseOffsetDatetime agrees with Date.parse on the instant', () => {
    fc.assert(
      fc.property(datetimeArb, (s) => {
        const r = parseOffsetDatetime(s);
        assert.ok(r !== null, s);
        assert.equal(r.instantMs, Date.parse(s.replace(/(\.\d{3})\d+/, '$1')), s);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('rendering depends on the sent offset: the same instant prints its own local date and label', () => {
    fc.assert(
      fc.property(datetimeArb, (s) => {
        const printed = renderDocumentVariable('start_datetime', { start_datetime: s });
        assert.ok(printed.startsWith(s.slice(0, 10)), `${s} → ${printed}`);
        const offset = s.endsWith('Z') ? '+00:00' : s.slice(-6);
        assert.ok(printed.endsWith(`(UTC${offset})`), `${s} → ${printed}`);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
