import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { captureChallenge, challengeSteps } from './challenge.js';

describe('the liveness challenge of a session', () => {
  const key = 'k'.repeat(32);

  it('is the same for the same session, alternates its turns, and varies between sessions', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 64; i++) {
      const id = `ses_${String(i).padStart(26, '0')}`;
      const steps = challengeSteps(key, id);
      assert.deepEqual(challengeSteps(key, id), steps);
      assert.ok(steps.length === 2 || steps.length === 3);
      for (let j = 1; j < steps.length; j++) assert.notEqual(steps[j], steps[j - 1]);
      seen.add(steps.join(','));
    }
    // all four challenges occur among 64 sessions
    assert.deepEqual([...seen].sort(), ['turn_left,turn_right', 'turn_left,turn_right,turn_left', 'turn_right,turn_left', 'turn_right,turn_left,turn_right']);
  });

  it('depends on the region’s key: another key, another draw for some sessions', () => {
    const ids = Array.from({ length: 16 }, (_, i) => `ses_${String(i).padStart(26, '0')}`);
    assert.ok(ids.some((id) => challengeSteps(key, id).join() !== challengeSteps('another key of the region', id).join()));
  });

  it('is described only for a workflow with liveness', () => {
    assert.equal(captureChallenge(key, 'ses_1', ['document', 'face_match'], 0), null);
    assert.deepEqual(captureChallenge(key, 'ses_1', ['liveness'], 2), {
      object: 'capture_challenge',
      steps: challengeSteps(key, 'ses_1'),
      frames: { min: 3, max: 8, max_bytes: 2 * 1024 * 1024 },
      frames_received: 2,
    });
  });
});
