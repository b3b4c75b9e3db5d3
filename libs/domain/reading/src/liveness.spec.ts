import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_THRESHOLDS, judgeChallenge, livenessCheck, median, timingProblem, turnsOf, type FrameFindings } from './index.js';

const t = DEFAULT_THRESHOLDS;
const T = t.challengeTurn;

/** Frames 400 ms apart with these yaws, one face each, the selfie's person, live, each a new picture. */
function frames(yaws: number[], o: Partial<FrameFindings> = {}): FrameFindings[] {
  return yaws.map((yaw, i) => ({ offsetMs: i * 400, faces: 1, yaw, similarity: 0.9, attack: 0.8, change: i === 0 ? null : 6, ...o }));
}

describe('the challenge’s head turns', () => {
  it('reads turns against the frame closest to looking ahead: left is positive yaw (the nose towards the camera’s right)', () => {
    assert.deepEqual(turnsOf([0, T + 2, 0, -(T + 2), 0], t), ['turn_left', 'turn_right']);
    assert.deepEqual(turnsOf([1, -(T + 5), -(T + 9), 0, T + 1, T + 3], t), ['turn_right', 'turn_left']);
    // a camera to one side: every yaw is offset, the turns still read from the straightest frame
    assert.deepEqual(turnsOf([15, 15 + T + 1, 15, 15 - T - 1], t), ['turn_left', 'turn_right']);
    // half turns count for nothing
    assert.deepEqual(turnsOf([0, T - 1, 0, -(T - 1)], t), []);
  });

  it('passes the steps in their order only', () => {
    const lr = frames([0, T + 3, 0, -(T + 3), 0]);
    assert.deepEqual(judgeChallenge(['turn_left', 'turn_right'], lr, t), { done: true });
    const rev = judgeChallenge(['turn_right', 'turn_left'], lr, t);
    assert.equal(rev.done, false);
    assert.equal(!rev.done && rev.why, 'not_followed');
    assert.equal(judgeChallenge(['turn_left', 'turn_right', 'turn_left'], lr, t).done, false);
  });

  it('refuses frames without exactly one face, of someone else, or all the same picture', () => {
    const ok = frames([0, T + 3, 0, -(T + 3)]);
    const steps = ['turn_left', 'turn_right'] as const;
    assert.deepEqual(judgeChallenge(steps, [...ok.slice(0, 2), { ...ok[2]!, faces: 2, yaw: null }, ok[3]!], t), { done: false, why: 'not_followed', detail: 'a frame without exactly one face' });
    const other = judgeChallenge(steps, [...ok.slice(0, 3), { ...ok[3]!, similarity: t.challengeFrameMatch - 0.01 }], t);
    assert.equal(!other.done && other.why, 'someone_else');
    const same = judgeChallenge(steps, ok.map((f, i) => ({ ...f, change: i === 0 ? null : 0.1 })), t);
    assert.deepEqual(same, { done: false, why: 'not_followed', detail: 'every frame is the same picture' });
    assert.deepEqual(judgeChallenge(steps, [], t), { done: false, why: 'no_frames' });
  });
});

describe('the challenge’s timing', () => {
  it('wants 3 to 8 frames, in order, at least 50 ms apart, over 1 to 60 seconds', () => {
    assert.equal(timingProblem([0, 400, 800, 1200]), null);
    assert.match(timingProblem([0, 600])!, /fewer than 3/);
    assert.match(timingProblem([0, 300, 600, 900, 1200, 1500, 1800, 2100, 2400])!, /more than 8/);
    assert.match(timingProblem([0, 600, 500, 1200])!, /out of order/);
    assert.match(timingProblem([0, 20, 600, 1200])!, /too close/);
    assert.match(timingProblem([0, 100, 200, 300])!, /too short/);
    assert.match(timingProblem([0, 30_000, 61_000])!, /too long/);
  });
});

describe('the liveness check', () => {
  const steps = ['turn_left', 'turn_right'] as const;
  const done = frames([0, T + 3, 0, -(T + 3), 0]);

  it('is a still image without frames, whatever the selfie scores; its score is then the selfie’s', () => {
    assert.deepEqual(livenessCheck({ steps: [...steps], frames: [], selfieAttack: 0.99 }), { outcome: 'review', reasons: ['still_image'], score: 0.99 });
  });

  it('passes a challenge done as asked with live scores; the score is the median over the selfie and the frames', () => {
    const withScores = done.map((f, i) => ({ ...f, attack: [0.7, 0.9, 0.4, 0.8, 0.75][i]! }));
    assert.deepEqual(livenessCheck({ steps: [...steps], frames: withScores, selfieAttack: 0.72 }), { outcome: 'pass', reasons: [], score: 0.735 });
  });

  it('bands the attack score: review in the band, fail under it', () => {
    const at = (a: number) => livenessCheck({ steps: [...steps], frames: done.map((f) => ({ ...f, attack: a })), selfieAttack: a });
    assert.deepEqual(at(t.livenessPass), { outcome: 'pass', reasons: [], score: t.livenessPass });
    assert.deepEqual(at(t.livenessPass - 0.01), { outcome: 'review', reasons: ['spoof_suspected'], score: t.livenessPass - 0.01 });
    assert.deepEqual(at(t.livenessReview - 0.01), { outcome: 'fail', reasons: ['spoof_suspected'], score: t.livenessReview - 0.01 });
  });

  it('sends a challenge not followed to review, and fails one done by someone else', () => {
    assert.deepEqual(livenessCheck({ steps: ['turn_right', 'turn_left'], frames: done, selfieAttack: 0.8 }).outcome, 'review');
    assert.deepEqual(livenessCheck({ steps: ['turn_right', 'turn_left'], frames: done, selfieAttack: 0.8 }).reasons, ['challenge_failed']);
    const other = done.map((f, i) => (i === 2 ? { ...f, similarity: 0.2 } : f));
    assert.deepEqual(livenessCheck({ steps: [...steps], frames: other, selfieAttack: 0.8 }), { outcome: 'fail', reasons: ['challenge_failed'], score: 0.8 });
  });

  it('takes the median of an odd and an even count', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([]), null);
  });
});
