import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { THRESHOLD_NAMES } from '@verity/api-schema';
import { DEFAULT_THRESHOLDS } from '@verity/reading';

describe('template thresholds', () => {
  it('a workflow template may override exactly the thresholds the reader has (docs/screening.md)', () => {
    assert.deepEqual([...THRESHOLD_NAMES].sort(), Object.keys(DEFAULT_THRESHOLDS).sort());
  });
});
