import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError, type Issue } from '@verity/errors';
import { parseSignals, SIGNAL_LIMITS } from './index.js';

/** The issues of the validation error `fn` throws. */
function refusal(fn: () => unknown): Issue[] {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof DomainError, 'a DomainError');
    assert.equal(e.code, 'validation_error');
    assert.equal(e.param, 'signals');
    return (e.details as { issues: Issue[] }).issues;
  }
  assert.fail('expected a validation error');
}

function refused(signals: unknown, path: (string | number)[], code: string): void {
  const issues = refusal(() => parseSignals(signals));
  assert.deepEqual(
    issues.map((i) => [i.path, i.code]),
    [[path, code]],
  );
}

describe('parseSignals: accepted', () => {
  it('undefined is absent', () => {
    assert.deepEqual(parseSignals(undefined), { absent: true });
  });

  it('an empty object is absent: no measurement arrived', () => {
    assert.deepEqual(parseSignals({}), { absent: true });
  });

  it('only unknown keys is absent too, and unknown keys are ignored', () => {
    assert.deepEqual(parseSignals({ battery: 'low', canvas_hash: 12 }), { absent: true });
    assert.deepEqual(parseSignals({ battery: 'low', paste_count: 0 }), { absent: false, pasteCount: 0 });
  });

  it('every known key', () => {
    const s = parseSignals({
      paste_count: 2,
      step_seconds: { consent: 3.5, document_front: 12, document_back: 0 },
      webdriver: false,
      headless: false,
      touch_points: 5,
      form_factor: 'mobile',
      time_zone: 'Europe/Paris',
    });
    assert.equal(s.absent, false);
    assert.equal(s.pasteCount, 2);
    assert.deepEqual({ ...s.stepSeconds }, { consent: 3.5, document_front: 12, document_back: 0 });
    assert.equal(s.webdriver, false);
    assert.equal(s.headless, false);
    assert.equal(s.touchPoints, 5);
    assert.equal(s.formFactor, 'mobile');
    assert.equal(s.timeZone, 'Europe/Paris');
  });

  it('a time zone is stored as Intl resolves it (canonical case)', () => {
    assert.equal(parseSignals({ time_zone: 'europe/paris' }).timeZone, 'Europe/Paris');
    assert.equal(parseSignals({ time_zone: 'UTC' }).timeZone, 'UTC');
  });

  it('step names are caller text: __proto__ is an ordinary own key', () => {
    const s = parseSignals(JSON.parse('{"step_seconds":{"__proto__":4,"constructor":2}}'));
    assert.equal(Object.getPrototypeOf(s.stepSeconds), null);
    assert.deepEqual(Object.keys(s.stepSeconds!), ['__proto__', 'constructor']);
    assert.equal(s.stepSeconds!['__proto__'], 4);
  });

  it('an empty step_seconds object is measured but holds no step', () => {
    const s = parseSignals({ step_seconds: {} });
    assert.equal(s.absent, false);
    assert.deepEqual(Object.keys(s.stepSeconds!), []);
  });

  it('exactly 20 steps and 64-character strings are accepted', () => {
    const steps = Object.fromEntries(Array.from({ length: SIGNAL_LIMITS.maxSteps }, (_, i) => [`s${i}`.padEnd(64, 'x'), i]));
    assert.equal(Object.keys(parseSignals({ step_seconds: steps }).stepSeconds!).length, 20);
  });
});

describe('parseSignals: refused, with path and code', () => {
  it('signals that is not an object', () => {
    for (const v of [null, 'x', 3, true, [], [1]]) refused(v, ['signals'], 'invalid_type');
  });

  it('paste_count: wrong type, negative, fractional, NaN, infinite', () => {
    refused({ paste_count: '2' }, ['signals', 'paste_count'], 'invalid_type');
    refused({ paste_count: null }, ['signals', 'paste_count'], 'invalid_type');
    refused({ paste_count: -1 }, ['signals', 'paste_count'], 'too_small');
    refused({ paste_count: 1.5 }, ['signals', 'paste_count'], 'invalid_type');
    refused({ paste_count: NaN }, ['signals', 'paste_count'], 'invalid_type');
    refused({ paste_count: Infinity }, ['signals', 'paste_count'], 'invalid_type');
    refused({ paste_count: 2 ** 60 }, ['signals', 'paste_count'], 'too_big');
  });

  it('touch_points: wrong type, negative', () => {
    refused({ touch_points: '5' }, ['signals', 'touch_points'], 'invalid_type');
    refused({ touch_points: -2 }, ['signals', 'touch_points'], 'too_small');
  });

  it('webdriver and headless must be booleans', () => {
    refused({ webdriver: 'false' }, ['signals', 'webdriver'], 'invalid_type');
    refused({ headless: 0 }, ['signals', 'headless'], 'invalid_type');
  });

  it('form_factor: wrong type, unknown value', () => {
    refused({ form_factor: 1 }, ['signals', 'form_factor'], 'invalid_type');
    refused({ form_factor: 'watch' }, ['signals', 'form_factor'], 'invalid_value');
    refused({ form_factor: 'Mobile' }, ['signals', 'form_factor'], 'invalid_value');
  });

  it('time_zone: wrong type, empty, unknown to Intl, too long, an offset', () => {
    refused({ time_zone: 60 }, ['signals', 'time_zone'], 'invalid_type');
    refused({ time_zone: '' }, ['signals', 'time_zone'], 'too_small');
    refused({ time_zone: 'Mars/Olympus_Mons' }, ['signals', 'time_zone'], 'invalid_value');
    refused({ time_zone: '+01:00' }, ['signals', 'time_zone'], 'invalid_value');
    refused({ time_zone: 'Europe/' + 'x'.repeat(64) }, ['signals', 'time_zone'], 'too_big');
  });

  it('step_seconds: not an object, too many steps, bad values, bad names', () => {
    refused({ step_seconds: [1, 2] }, ['signals', 'step_seconds'], 'invalid_type');
    refused({ step_seconds: 12 }, ['signals', 'step_seconds'], 'invalid_type');
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`s${i}`, 1]));
    refused({ step_seconds: tooMany }, ['signals', 'step_seconds'], 'too_big');
    refused({ step_seconds: { selfie: -0.5 } }, ['signals', 'step_seconds', 'selfie'], 'too_small');
    refused({ step_seconds: { selfie: '3' } }, ['signals', 'step_seconds', 'selfie'], 'invalid_type');
    refused({ step_seconds: { selfie: NaN } }, ['signals', 'step_seconds', 'selfie'], 'invalid_type');
    refused({ step_seconds: { selfie: Infinity } }, ['signals', 'step_seconds', 'selfie'], 'invalid_type');
    refused({ step_seconds: { '': 1 } }, ['signals', 'step_seconds', ''], 'too_small');
    // A name over 64 characters is named by its position, not echoed.
    refused({ step_seconds: { ok: 1, ['x'.repeat(65)]: 1 } }, ['signals', 'step_seconds', 1], 'too_big');
  });

  it('every problem is reported at once, in key order', () => {
    const issues = refusal(() => parseSignals({ paste_count: -1, webdriver: 'yes', form_factor: 'tv', unknown: 1 }));
    assert.deepEqual(
      issues.map((i) => i.path),
      [
        ['signals', 'paste_count'],
        ['signals', 'webdriver'],
        ['signals', 'form_factor'],
      ],
    );
  });

  it('messages never carry the value sent', () => {
    const secret = 'Secret/Zone_Value';
    const issues = refusal(() => parseSignals({ time_zone: secret, form_factor: secret }));
    for (const i of issues) assert.ok(!i.message.includes(secret), i.message);
  });
});
