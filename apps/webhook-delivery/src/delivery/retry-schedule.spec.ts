import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { retryDelay } from '@verity/platform';
import { DEFAULT_RETRY_SCHEDULE, maxAttempts, parseRetrySchedule } from './retry-schedule.js';

describe('WEBHOOK_RETRY_SCHEDULE', () => {
  it('the default is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts in all', () => {
    const s = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE);
    assert.deepEqual(s.delaysMs, [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    assert.equal(maxAttempts(s), 8);
  });
  it('accepts compressed schedules, every unit and spaces around entries', () => {
    assert.deepEqual(parseRetrySchedule('1s,1s,1s').delaysMs, [1000, 1000, 1000]);
    assert.deepEqual(parseRetrySchedule(' 250ms , 2m,1h, 1d ').delaysMs, [250, 120_000, 3_600_000, 86_400_000]);
    assert.deepEqual(parseRetrySchedule('').delaysMs, []);
    assert.equal(maxAttempts({ delaysMs: [] }), 1);
  });
  it('refuses anything else, naming the entry', () => {
    for (const bad of ['5', '5x', '1.5s', '-1s', '0s', '5s,,5s', '8d', 's', '5 s', '1s;2s', Array(21).fill('1s').join(',')]) {
      assert.throws(() => parseRetrySchedule(bad), /entry|retries/, bad);
    }
  });
  it('gives the delay after each failed attempt of a round, and none after the last', () => {
    const s = parseRetrySchedule('1s,2s');
    assert.equal(retryDelay(s, 1), 1000);
    assert.equal(retryDelay(s, 2), 2000);
    assert.equal(retryDelay(s, 3), null);
    assert.equal(retryDelay(parseRetrySchedule(''), 1), null);
  });
});
