/**
 * The document's schema of session metadata against the validator the sessions service runs (libs/domain/metadata): what
 * the validator accepts, the schema accepts; what the schema refuses, the validator refuses; and where only the
 * validator refuses, it is for a rule the document leaves to its text (whole-object rules, calendar, ISO 4217, size).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RESERVED_METADATA_KEYS, validateSessionMetadata } from '@verity/metadata';
import { sessionMetadataInput } from './sessions.js';
import { componentValidator } from './test-support.js';

const validate = componentValidator('SessionMetadataInput');

/** Mostly a valid value, sometimes one of the wrong ones. */
const mostly = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) => fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: bad });

const datetime = mostly(
  fc.oneof(
    fc.constantFrom('2026-03-14T09:30:00+01:00', '2026-03-14T09:30Z', '2028-02-29T10:00:00Z', '2026-03-14T09:30:00.123456789-12:00'),
    fc.date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  ),
  fc.constantFrom('2026-02-29T10:00:00Z', '2026-13-01T00:00:00Z', '2026-03-14T09:30:00+15:00', '2026-03-14T09:30:00-00:00', '2026-03-14', '2026-03-14T09:30:00', '2026-03-14 09:30:00Z', '2026-03-14T09:30:00+0100', '', null, 5),
);
const amount = mostly(fc.integer({ min: 0, max: 999_999_999_999 }), fc.constantFrom(-1, 1_000_000_000_000, 1.5, '100', null));
const currency = mostly(fc.constantFrom('USD', 'eur', 'JPY'), fc.constantFrom('XXY', 'ABC', 'US', 'USDD', '', null, 840));
const location = mostly(
  fc.oneof(
    fc.string({ unit: fc.constantFrom('a', 'B', ' ', '\u00a0', 'é', '\u{1F3E0}'), minLength: 1, maxLength: 12 }),
    fc.tuple(fc.constantFrom('', ' ', '  '), fc.integer({ min: 495, max: 505 }), fc.constantFrom('', ' ')).map(([a, n, b]) => `${a}${'\u{1F3E0}'.repeat(n)}${b}`),
  ),
  fc.oneof(fc.string({ unit: fc.constantFrom('a', ' ', '<', '\n', '\u202e', '\u2028', '\t', '\u0000', '\ud800'), maxLength: 6 }), fc.constantFrom(null, 7, ['x'])),
);
const metadata = fc.record(
  {
    start_datetime: datetime,
    end_datetime: datetime,
    amount,
    currency,
    location,
    reserved: fc.constantFrom(...RESERVED_METADATA_KEYS),
    custom_key: fc.anything({ maxDepth: 2 }),
  },
  { requiredKeys: [] },
).map(({ reserved, ...m }) => (reserved !== undefined && m.custom_key === undefined ? { ...m, [reserved]: 'x' } : m));

/** Issues of rules the schema does not express: checked as code and described in the document's text. */
function onlyCodeRules(issues: Array<{ code: string; path: (string | number)[] }>): boolean {
  return issues.every((i) => i.code === 'custom' || i.code === 'invalid_value' || (i.code === 'invalid_format' && String(i.path[1]).endsWith('datetime')) || (i.code === 'too_big' && i.path.length === 1));
}

describe('session metadata: the document and the sessions service agree', () => {
  it('accepted by the service ⇒ valid by the schema; refused by the schema ⇒ refused by the service, with a rule the text names', () => {
    const seen = { accepted: 0, onlyByCode: 0 };
    fc.assert(
      fc.property(metadata, (m) => {
        const service = validateSessionMetadata(m);
        const schema = validate(m);
        if (service.ok) seen.accepted++;
        if (schema && !service.ok) seen.onlyByCode++;
        if (service.ok) assert.ok(schema, `schema refuses what the service accepts: ${JSON.stringify(m)} ${JSON.stringify(validate.errors)}`);
        if (!schema) assert.ok(!service.ok, `service accepts what the schema refuses: ${JSON.stringify(m)}`);
        if (schema && !service.ok) assert.ok(onlyCodeRules(service.issues), `a shape rule missing from the schema: ${JSON.stringify(service.issues)}`);
      }),
      { numRuns: 2000, seed: 17 },
    );
    assert.ok(seen.accepted > 100 && seen.onlyByCode > 20, JSON.stringify(seen));
  });

  it('the zod schema parses what its JSON Schema accepts', () => {
    for (const m of [{ location: '  Berlin  ' }, { amount: 100, currency: 'EUR' }, { start_datetime: '2026-03-14T09:30:00+01:00', other: { any: [1] } }]) {
      assert.ok(validate(m));
      assert.ok(sessionMetadataInput.safeParse(m).success, JSON.stringify(m));
    }
    for (const m of [{ location: ' ' }, { location: 'a<b' }, { amount: '1' }, { currency: null }]) {
      assert.ok(!validate(m));
      assert.ok(!sessionMetadataInput.safeParse(m).success, JSON.stringify(m));
    }
  });
});
