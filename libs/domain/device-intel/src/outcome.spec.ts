import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BOT_SCORE_REVIEW_BELOW, deviceCheckOutcome, deviceIntel, parseSignals, type DeviceIntel } from './index.js';

const HEADLESS_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/130.0.0.0 Safari/537.36';

function outcomeOf(signals: Record<string, unknown> | undefined, user_agent: string | null = null) {
  return deviceCheckOutcome(deviceIntel({ signals: parseSignals(signals), connection: { start: { ip: '192.0.2.1', user_agent }, submit: null } }));
}

describe('deviceCheckOutcome', () => {
  it('pass for a human-looking session', () => {
    assert.deepEqual(outcomeOf({ webdriver: false, headless: false, step_seconds: { a: 9, b: 14 }, paste_count: 0 }), { outcome: 'pass', reasons: [] });
  });

  it('review on automation: webdriver, the headless flag, a headless user agent', () => {
    // webdriver alone scores 40, under the threshold too.
    assert.deepEqual(outcomeOf({ webdriver: true }), { outcome: 'review', reasons: ['automation', 'bot_score_low'] });
    assert.deepEqual(outcomeOf({ headless: true }), { outcome: 'review', reasons: ['automation'] });
    assert.deepEqual(outcomeOf({ webdriver: false }, HEADLESS_UA), { outcome: 'review', reasons: ['automation'] });
    assert.deepEqual(outcomeOf({ webdriver: true, headless: true }), { outcome: 'review', reasons: ['automation', 'bot_score_low'] });
  });

  it(`review on a bot score under ${BOT_SCORE_REVIEW_BELOW}, not at it`, () => {
    // shortest step under 1 s (-30), all under 5 s (-20): 50, at the threshold.
    assert.deepEqual(outcomeOf({ step_seconds: { a: 0.5, b: 1 } }), { outcome: 'pass', reasons: [] });
    // and one paste (-10): 40.
    assert.deepEqual(outcomeOf({ step_seconds: { a: 0.5, b: 1 }, paste_count: 1 }), { outcome: 'review', reasons: ['bot_score_low'] });
  });

  it('review when no measurement arrived', () => {
    assert.deepEqual(outcomeOf(undefined), { outcome: 'review', reasons: ['collection_absent'] });
    assert.deepEqual(outcomeOf({}), { outcome: 'review', reasons: ['collection_absent'] });
    assert.deepEqual(outcomeOf(undefined, HEADLESS_UA), { outcome: 'review', reasons: ['automation', 'collection_absent'] });
  });

  it('never fail, whatever the evidence', () => {
    const worst = outcomeOf({ webdriver: true, headless: true, paste_count: 99, step_seconds: { a: 0 } }, HEADLESS_UA);
    assert.equal(worst.outcome, 'review');
  });

  it('a result that says nothing of collection is treated as absent', () => {
    const bare: DeviceIntel = { fraud: {}, device: { velocity: {}, behavior: {} } };
    assert.deepEqual(deviceCheckOutcome(bare), { outcome: 'review', reasons: ['collection_absent'] });
  });
});
