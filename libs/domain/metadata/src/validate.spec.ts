import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RESERVED_METADATA_KEYS, validateSessionMetadata, type MetadataIssue } from './index.js';

function issuesOf(input: unknown): MetadataIssue[] {
  const r = validateSessionMetadata(input);
  assert.equal(r.ok, false, `expected refusal of ${JSON.stringify(input)}`);
  return r.ok ? [] : r.issues;
}

function valueOf(input: unknown): Record<string, unknown> {
  const r = validateSessionMetadata(input);
  assert.ok(r.ok, `expected acceptance of ${JSON.stringify(input)}: ${r.ok ? '' : JSON.stringify(r.issues)}`);
  return r.value;
}

/** The only issue, with its code and path. */
function single(input: unknown): MetadataIssue {
  const issues = issuesOf(input);
  assert.equal(issues.length, 1, JSON.stringify(issues));
  return issues[0]!;
}

function assertIssue(input: unknown, code: string, path: (string | number)[]): MetadataIssue {
  const issue = single(input);
  assert.equal(issue.code, code, issue.message);
  assert.deepEqual(issue.path, path);
  assert.ok(issue.message.length > 0);
  return issue;
}

const LEFT = '2026-03-14T09:30:00+01:00';

describe('metadata object', () => {
  it('undefined is valid and yields {}', () => {
    assert.deepEqual(valueOf(undefined), {});
  });

  it('an empty object is valid', () => {
    assert.deepEqual(valueOf({}), {});
  });

  for (const bad of [null, [], [1], 'x', '', 0, 1, true, false]) {
    it(`refuses ${JSON.stringify(bad)} with path [metadata]`, () => {
      assertIssue(bad, 'invalid_type', ['metadata']);
    });
  }

  it('refuses non-plain objects', () => {
    assertIssue(new Date(0), 'invalid_type', ['metadata']);
    assertIssue(new Map(), 'invalid_type', ['metadata']);
    class Custom {
      amount = 1;
    }
    assertIssue(new Custom(), 'invalid_type', ['metadata']);
  });

  it('accepts a null-prototype object', () => {
    const o = Object.create(null) as Record<string, unknown>;
    o['order'] = 'A-1';
    assert.deepEqual(valueOf(o), { order: 'A-1' });
  });

  it('keeps other keys verbatim, never interpreted, and does not mutate the input', () => {
    const input = {
      order_id: 'A-1',
      nested: { amount: 'not checked', location: '<b>' },
      list: [1, 'two', null],
      nothing: null,
      empty: '',
      Amount: 'x',
      NOTES: 'not reserved (case-sensitive)',
      __proto__x: 1,
      location: '  Paris  ',
    };
    const snapshot = structuredClone(input);
    const value = valueOf(input);
    assert.deepEqual(value, { ...snapshot, location: 'Paris' });
    assert.deepEqual(input, snapshot);
    assert.notEqual(value, input);
  });

  it('keeps an own __proto__ key from JSON.parse as a plain key', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const value = valueOf(input);
    assert.deepEqual(Object.keys(value), ['__proto__', 'a']);
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('treats a key whose value is undefined as not sent', () => {
    assert.ok(validateSessionMetadata({ amount: undefined }).ok);
    assert.ok(validateSessionMetadata({ location: undefined }).ok);
  });
});

describe('reserved keys', () => {
  it('are the seven of the specification', () => {
    assert.deepEqual(
      [...RESERVED_METADATA_KEYS].sort(),
      [
        '__requested_checks',
        'cancellationReason',
        'erroredReason',
        'manualReviewReason',
        'notes',
        'operatorNotes',
        'referenceDetails',
      ],
    );
    assert.ok(Object.isFrozen(RESERVED_METADATA_KEYS));
  });

  for (const key of RESERVED_METADATA_KEYS) {
    it(`refuses ${key} with path [metadata, ${key}] and names it`, () => {
      const issue = assertIssue({ [key]: 'x' }, 'custom', ['metadata', key]);
      assert.ok(issue.message.includes(key));
      // Whatever the value, even null or an empty array.
      assertIssue({ [key]: null }, 'custom', ['metadata', key]);
      assertIssue({ [key]: [] }, 'custom', ['metadata', key]);
    });
  }

  it('refuses all reserved keys of a metadata object read back, one issue each', () => {
    const readBack = {
      order: 'A-1',
      cancellationReason: 'duplicate',
      manualReviewReason: 'check',
      erroredReason: 'stalled',
      operatorNotes: [{ note: 'hi', created_at: '2026-01-01T00:00:00Z' }],
    };
    const issues = issuesOf(readBack);
    assert.deepEqual(
      issues.map((i) => i.path),
      [
        ['metadata', 'cancellationReason'],
        ['metadata', 'manualReviewReason'],
        ['metadata', 'erroredReason'],
        ['metadata', 'operatorNotes'],
      ],
    );
    assert.ok(issues.every((i) => i.code === 'custom'));
  });

  it('is case-sensitive', () => {
    assert.ok(validateSessionMetadata({ Notes: 'x', OPERATORNOTES: 'y', requested_checks: 1 }).ok);
  });
});

describe('start_datetime / end_datetime', () => {
  for (const key of ['start_datetime', 'end_datetime'] as const) {
    it(`${key}: accepts an offset datetime, stored unchanged`, () => {
      for (const v of [LEFT, '2026-03-14T09:30:00Z', '2026-03-14T09:30:00.123-05:30', '2026-03-14T09:30+14:00']) {
        assert.deepEqual(valueOf({ [key]: v }), { [key]: v });
      }
    });

    it(`${key}: refuses a date alone, no offset, calendar errors with invalid_format`, () => {
      for (const v of [
        '2026-03-14',
        '2026-03-14T09:30:00',
        '2026-02-30T09:30:00Z',
        '2026-02-29T09:30:00Z',
        '2026-03-14T24:00:00Z',
        '2026-03-14T09:30:00+0100',
        '2026-03-14T09:30:00+14:30',
        'tomorrow',
      ]) {
        assertIssue({ [key]: v }, 'invalid_format', ['metadata', key]);
      }
    });

    it(`${key}: "" is too_small, null and other types are invalid_type`, () => {
      assertIssue({ [key]: '' }, 'too_small', ['metadata', key]);
      for (const v of [null, 0, 1767225600000, true, [], {}, [LEFT]]) {
        assertIssue({ [key]: v }, 'invalid_type', ['metadata', key]);
      }
    });
  }

  it('accepts Feb 29 in a leap year', () => {
    assert.ok(validateSessionMetadata({ start_datetime: '2028-02-29T10:00:00+01:00' }).ok);
  });

  it('end equal to start is accepted, also as the same instant in another offset', () => {
    assert.ok(validateSessionMetadata({ start_datetime: LEFT, end_datetime: LEFT }).ok);
    assert.ok(
      validateSessionMetadata({ start_datetime: '2026-01-01T00:00:00+02:00', end_datetime: '2025-12-31T22:00:00Z' }).ok,
    );
  });

  it('end before start is refused at [metadata, end_datetime] with custom, compared as instants', () => {
    // Lexically later, but one hour earlier as an instant.
    assertIssue(
      { start_datetime: '2026-03-14T09:00:00Z', end_datetime: '2026-03-14T09:30:00+01:00' },
      'custom',
      ['metadata', 'end_datetime'],
    );
    // Lexically earlier, but later as an instant: accepted.
    assert.ok(
      validateSessionMetadata({ start_datetime: '2026-03-14T09:00:00+01:00', end_datetime: '2026-03-14T08:30:00Z' }).ok,
    );
    // Below the millisecond.
    assertIssue(
      { start_datetime: '2026-03-14T09:00:00.0000002Z', end_datetime: '2026-03-14T09:00:00.0000001Z' },
      'custom',
      ['metadata', 'end_datetime'],
    );
    // Across the widest offsets: +14:00 vs -12:00 is 26 hours apart on the clock.
    assertIssue(
      { start_datetime: '2026-03-14T10:00:00-12:00', end_datetime: '2026-03-15T11:59:59+14:00' },
      'custom',
      ['metadata', 'end_datetime'],
    );
    assert.ok(
      validateSessionMetadata({ start_datetime: '2026-03-14T10:00:00-12:00', end_datetime: '2026-03-15T12:00:00+14:00' }).ok,
    );
  });

  it('end alone or start alone is accepted', () => {
    assert.ok(validateSessionMetadata({ end_datetime: LEFT }).ok);
    assert.ok(validateSessionMetadata({ start_datetime: LEFT }).ok);
  });

  it('no order issue when either datetime is itself invalid', () => {
    const issues = issuesOf({ start_datetime: '2026-03-14T09:00:00Z', end_datetime: '2026-02-30T00:00:00Z' });
    assert.deepEqual(
      issues.map((i) => [i.code, i.path]),
      [['invalid_format', ['metadata', 'end_datetime']]],
    );
  });
});

describe('amount', () => {
  for (const v of [0, 1, 100, 123456, 999_999_999_999]) {
    it(`accepts ${v} with currency`, () => {
      assert.deepEqual(valueOf({ amount: v, currency: 'USD' }), { amount: v, currency: 'USD' });
    });
  }

  it('accepts -0 (JSON "-0") as zero, stored unchanged', () => {
    const value = valueOf(JSON.parse('{"amount": -0, "currency": "USD"}'));
    assert.ok(Object.is(value['amount'], -0));
  });

  it('accepts an integer written with an exponent in JSON (1e3 is 1000)', () => {
    assert.deepEqual(valueOf(JSON.parse('{"amount": 1e3, "currency": "JPY"}')), { amount: 1000, currency: 'JPY' });
  });

  it('refuses 1e12 and larger with too_big', () => {
    assertIssue({ amount: 1e12, currency: 'USD' }, 'too_big', ['metadata', 'amount']);
    assertIssue({ amount: 1_000_000_000_000, currency: 'USD' }, 'too_big', ['metadata', 'amount']);
    assertIssue({ amount: Number.MAX_SAFE_INTEGER + 2, currency: 'USD' }, 'too_big', ['metadata', 'amount']);
    assertIssue({ amount: 1e300, currency: 'USD' }, 'too_big', ['metadata', 'amount']);
  });

  it('refuses -1 with too_small', () => {
    assertIssue({ amount: -1, currency: 'USD' }, 'too_small', ['metadata', 'amount']);
  });

  it('refuses 1.5 and other non-integers with invalid_type', () => {
    for (const v of [1.5, 0.1, 999_999_999_998.5, -0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assertIssue({ amount: v, currency: 'USD' }, 'invalid_type', ['metadata', 'amount']);
    }
  });

  it('refuses a string ("100"), null, booleans, arrays, objects with invalid_type', () => {
    for (const v of ['100', '', null, true, [100], { value: 100 }]) {
      assertIssue({ amount: v, currency: 'USD' }, 'invalid_type', ['metadata', 'amount']);
    }
  });

  it('requires currency: [metadata, currency], custom', () => {
    const issue = assertIssue({ amount: 100 }, 'custom', ['metadata', 'currency']);
    assert.ok(issue.message.includes('currency') && issue.message.includes('amount'));
    assertIssue({ amount: 100, currency: undefined }, 'custom', ['metadata', 'currency']);
  });

  it('an invalid amount without currency reports both issues', () => {
    const issues = issuesOf({ amount: '100' });
    assert.deepEqual(
      issues.map((i) => [i.code, i.path]),
      [
        ['invalid_type', ['metadata', 'amount']],
        ['custom', ['metadata', 'currency']],
      ],
    );
  });

  it('a currency that is sent but invalid is a shape issue, not "currency required"', () => {
    assert.deepEqual(
      issuesOf({ amount: 100, currency: null }).map((i) => [i.code, i.path]),
      [['invalid_type', ['metadata', 'currency']]],
    );
    assert.deepEqual(
      issuesOf({ amount: 100, currency: 'ZZZ' }).map((i) => [i.code, i.path]),
      [['invalid_value', ['metadata', 'currency']]],
    );
  });
});

describe('currency', () => {
  for (const v of ['USD', 'EUR', 'JPY', 'BHD', 'CLF', 'usd', 'Usd', 'eUr']) {
    it(`accepts ${v} alone, case kept as sent`, () => {
      assert.deepEqual(valueOf({ currency: v }), { currency: v });
    });
  }

  it('refuses a three-letter code that is not ISO 4217 with invalid_value', () => {
    for (const v of ['ZZZ', 'zzz', 'ABC', 'XYZ']) assertIssue({ currency: v }, 'invalid_value', ['metadata', 'currency']);
  });

  it('refuses a code that is not three ASCII letters with invalid_format', () => {
    for (const v of ['US', 'USDD', 'US1', '840', ' USD', 'USD ', 'U$D', '\u0555SD', 'ÜSD']) {
      assertIssue({ currency: v }, 'invalid_format', ['metadata', 'currency']);
    }
  });

  it('"" is too_small; null, numbers and others are invalid_type', () => {
    assertIssue({ currency: '' }, 'too_small', ['metadata', 'currency']);
    for (const v of [null, 840, true, ['USD'], { code: 'USD' }]) {
      assertIssue({ currency: v }, 'invalid_type', ['metadata', 'currency']);
    }
  });
});

describe('location', () => {
  it('is trimmed of leading and trailing spaces, inner spaces kept', () => {
    assert.deepEqual(valueOf({ location: '  12 Rue  de Rivoli, Paris  ' }), { location: '12 Rue  de Rivoli, Paris' });
    assert.deepEqual(valueOf({ location: '\u00A0\u3000Tokyo\u2003' }), { location: 'Tokyo' });
    assert.deepEqual(valueOf({ location: 'Paris' }), { location: 'Paris' });
  });

  it('counts at most 500 characters after trimming', () => {
    const five = 'a'.repeat(500);
    assert.deepEqual(valueOf({ location: `   ${five}   ` }), { location: five });
    assert.deepEqual(valueOf({ location: five }), { location: five });
    assertIssue({ location: `   ${five}b   ` }, 'too_big', ['metadata', 'location']);
    assertIssue({ location: 'a'.repeat(501) }, 'too_big', ['metadata', 'location']);
  });

  it('counts code points, not UTF-16 units', () => {
    const emoji = '\u{1F3E0}'; // two UTF-16 units
    assert.ok(validateSessionMetadata({ location: emoji.repeat(500) }).ok);
    assertIssue({ location: emoji.repeat(501) }, 'too_big', ['metadata', 'location']);
    assert.ok(validateSessionMetadata({ location: 'Zürich, São Paulo, 東京, Київ, القاهرة' }).ok);
  });

  it('"" and only spaces are too_small; null and non-strings invalid_type', () => {
    assertIssue({ location: '' }, 'too_small', ['metadata', 'location']);
    assertIssue({ location: '    ' }, 'too_small', ['metadata', 'location']);
    for (const v of [null, 1, true, ['Paris'], { city: 'Paris' }]) {
      assertIssue({ location: v }, 'invalid_type', ['metadata', 'location']);
    }
  });

  const controls: number[] = [
    ...Array.from({ length: 0x20 }, (_, i) => i),
    0x7f,
    ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i),
  ];
  it(`refuses each of the ${controls.length} C0, DEL and C1 control characters, also at the edges`, () => {
    for (const cp of controls) {
      const ch = String.fromCodePoint(cp);
      const label = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
      for (const v of [`Par${ch}is`, `Paris${ch}`, `${ch}Paris`]) {
        const issue = single({ location: v });
        assert.equal(issue.code, 'invalid_format', label);
        assert.deepEqual(issue.path, ['metadata', 'location'], label);
        assert.ok(issue.message.includes('control characters'), label);
      }
    }
  });

  const bidi = [0x200e, 0x200f, 0x061c, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
  for (const cp of bidi) {
    const label = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    it(`refuses the bidirectional mark ${label}`, () => {
      const ch = String.fromCodePoint(cp);
      for (const v of [`Paris${ch}`, `${ch}Paris`, `Pa${ch}ris`]) {
        const issue = assertIssue({ location: v }, 'invalid_format', ['metadata', 'location']);
        assert.ok(issue.message.includes('bidirectional'));
      }
    });
  }

  it('accepts characters next to the bidi ranges (U+200D, U+2029 excepted, U+2070)', () => {
    for (const cp of [0x200d, 0x2065, 0x206a, 0x2070, 0x061b, 0x061d, 0x00a0]) {
      assert.ok(validateSessionMetadata({ location: `Pa${String.fromCodePoint(cp)}ris` }).ok, cp.toString(16));
    }
  });

  it('refuses angle brackets', () => {
    for (const v of ['<Paris', 'Paris>', '<script>alert(1)</script>', 'a < b']) {
      const issue = assertIssue({ location: v }, 'invalid_format', ['metadata', 'location']);
      assert.ok(issue.message.includes('angle brackets'));
    }
    assert.ok(validateSessionMetadata({ location: '\uFF1CParis\uFF1E & «Lyon»' }).ok, 'look-alikes are not refused');
  });

  it('refuses line and paragraph separators and lone surrogates', () => {
    assertIssue({ location: 'Paris\u2028Lyon' }, 'invalid_format', ['metadata', 'location']);
    assertIssue({ location: 'Paris\u2029' }, 'invalid_format', ['metadata', 'location']);
    assertIssue({ location: 'Paris\uD800' }, 'invalid_format', ['metadata', 'location']);
    assertIssue({ location: '\uDC00Paris' }, 'invalid_format', ['metadata', 'location']);
    assert.ok(validateSessionMetadata({ location: 'Paris \uD83C\uDFE0' }).ok, 'a paired surrogate is fine');
  });

  it('reports one issue per refused class, plus length', () => {
    const issues = issuesOf({ location: `<${'a'.repeat(600)}\u202E\u0007>` });
    assert.deepEqual(
      issues.map((i) => i.code),
      ['too_big', 'invalid_format', 'invalid_format', 'invalid_format'],
    );
    assert.ok(issues.every((i) => i.path.join('.') === 'metadata.location'));
  });
});

describe('several issues at once', () => {
  it('reports every issue, not the first only, in a stable order', () => {
    const issues = issuesOf({
      notes: 'x',
      __requested_checks: ['document'],
      start_datetime: '2026-03-14T10:00:00Z',
      end_datetime: '2026-03-14',
      amount: 1.5,
      location: '<Paris>',
      order: 'kept',
    });
    assert.deepEqual(
      issues.map((i) => [i.code, i.path]),
      [
        ['custom', ['metadata', 'notes']],
        ['custom', ['metadata', '__requested_checks']],
        ['invalid_format', ['metadata', 'end_datetime']],
        ['invalid_type', ['metadata', 'amount']],
        ['invalid_format', ['metadata', 'location']],
        ['custom', ['metadata', 'currency']],
      ],
    );
  });

  it('reports the three whole-object rules together', () => {
    const issues = issuesOf({
      referenceDetails: {},
      amount: 5,
      start_datetime: '2026-03-14T10:00:00Z',
      end_datetime: '2026-03-14T09:00:00Z',
    });
    assert.deepEqual(
      issues.map((i) => [i.code, i.path]),
      [
        ['custom', ['metadata', 'referenceDetails']],
        ['custom', ['metadata', 'currency']],
        ['custom', ['metadata', 'end_datetime']],
      ],
    );
  });

  it('"" and null for each of the five fail shape validation', () => {
    const issues = issuesOf({ start_datetime: '', end_datetime: null, amount: null, currency: '', location: '' });
    assert.deepEqual(
      issues.map((i) => [i.code, i.path[1]]),
      [
        ['too_small', 'start_datetime'],
        ['invalid_type', 'end_datetime'],
        ['invalid_type', 'amount'],
        ['too_small', 'currency'],
        ['too_small', 'location'],
      ],
    );
    const nulls = issuesOf({ start_datetime: null, end_datetime: '', amount: '', currency: null, location: null });
    assert.equal(nulls.length, 5);
    assert.ok(nulls.every((i) => i.path[0] === 'metadata' && i.path.length === 2));
  });

  it('a fully valid object with the five keys round-trips, location trimmed', () => {
    const input = {
      start_datetime: '2026-01-01T00:00:00+02:00',
      end_datetime: '2026-01-03T11:00:00+02:00',
      amount: 123456,
      currency: 'eur',
      location: ' 1 Main St, Springfield ',
      booking: { id: 7 },
    };
    assert.deepEqual(valueOf(input), { ...input, location: '1 Main St, Springfield' });
  });
});

describe('metadata size', () => {
  it('at most 16 KiB as JSON in UTF-8: one byte over is too_big on metadata, whatever the keys hold', () => {
    const pad = (n: number) => ({ k: 'x'.repeat(n - '{"k":""}'.length) });
    assert.deepEqual(valueOf(pad(16 * 1024)), pad(16 * 1024));
    assert.deepEqual(issuesOf(pad(16 * 1024 + 1)), [
      { code: 'too_big', message: 'metadata must be at most 16384 bytes as JSON (UTF-8); it is 16385.', path: ['metadata'] },
    ]);
    // measured in UTF-8: 9000 two-byte characters are 18000 bytes
    assert.equal(issuesOf({ k: 'é'.repeat(9000) })[0]!.code, 'too_big');
  });
});
