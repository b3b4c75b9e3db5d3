import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { captureState, challengeSchedule, CHALLENGE_PACE, describeRefusal, needsBack, photoSteps, remainingScreens, skipStep, type CaptureStep } from '../browser/flow.js';

const ALL: CaptureStep[] = ['document_front', 'document_back', 'selfie'];
const none = { front: false, back: false, selfie: false };

describe('the order of the flow', () => {
  it('asks the document type first, then front, back, selfie, submit', () => {
    assert.deepEqual(remainingScreens(ALL, none, null), ['document_type', 'document_front', 'document_back', 'selfie', 'submit']);
    assert.deepEqual(remainingScreens(ALL, none, 'identity_card'), ['document_front', 'document_back', 'selfie', 'submit']);
    assert.deepEqual(remainingScreens(ALL, none, 'driving_licence'), ['document_front', 'document_back', 'selfie', 'submit']);
  });

  it('a passport has no back', () => {
    assert.deepEqual(remainingScreens(ALL, none, 'passport'), ['document_front', 'selfie', 'submit']);
    assert.equal(needsBack(ALL, 'passport'), false);
    assert.equal(needsBack(ALL, 'identity_card'), true);
    assert.equal(needsBack(['document_front'], 'identity_card'), false);
    assert.deepEqual(photoSteps(ALL, 'passport'), ['document_front', 'selfie']);
    assert.deepEqual(photoSteps(ALL, null), ALL);
  });

  it('no selfie when the workflow does not compare faces', () => {
    assert.deepEqual(remainingScreens(['document_front', 'document_back'], none, 'identity_card'), ['document_front', 'document_back', 'submit']);
  });

  it('resumes where the applicant left off', () => {
    // front sent, type forgotten: only the type tells whether the back is still needed
    assert.deepEqual(remainingScreens(ALL, { ...none, front: true }, null), ['document_type', 'document_back', 'selfie', 'submit']);
    assert.deepEqual(remainingScreens(ALL, { ...none, front: true }, 'passport'), ['selfie', 'submit']);
    // both sides sent: no need to ask
    assert.deepEqual(remainingScreens(ALL, { ...none, front: true, back: true }, null), ['selfie', 'submit']);
    assert.deepEqual(remainingScreens(ALL, { front: true, back: true, selfie: true }, null), ['submit']);
    // a passport's front and the selfie: done, whatever the type
    assert.deepEqual(remainingScreens(ALL, { front: true, back: false, selfie: true }, 'passport'), ['submit']);
  });

  it('a skip names the step under way, or the next one', () => {
    assert.equal(skipStep('document_back', ['document_back', 'selfie', 'submit'], ALL), 'document_back');
    assert.equal(skipStep('document_type', ['document_type', 'document_front', 'submit'], ALL), 'document_front');
    assert.equal(skipStep(null, ['selfie', 'submit'], ALL), 'selfie');
    assert.equal(skipStep(null, ['submit'], ALL), 'document_front');
  });

  it('captureState reads the capture answer', () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    const open = { status: 'pending', submitted_at: null, expires_at: '2026-11-27T10:00:00.000Z' };
    assert.equal(captureState(open, now), 'open');
    assert.equal(captureState({ ...open, status: 'in_progress' }, now), 'open');
    assert.equal(captureState({ ...open, submitted_at: '2026-11-26T09:00:00Z' }, now), 'used');
    assert.equal(captureState({ ...open, status: 'completed' }, now), 'used');
    assert.equal(captureState({ ...open, status: 'expired' }, now), 'expired');
    assert.equal(captureState({ ...open, expires_at: '2026-11-26T09:59:59.000Z' }, now), 'expired');
  });
});

describe('refusals in plain words', () => {
  it('401, 409 and 410 end the flow with the link page', () => {
    assert.deepEqual(describeRefusal(401, 'invalid_capture_token', null), { kind: 'link', link: 'unknown' });
    assert.deepEqual(describeRefusal(409, 'invalid_state_transition', null), { kind: 'link', link: 'used' });
    assert.deepEqual(describeRefusal(410, 'capture_expired', null), { kind: 'link', link: 'expired' });
  });

  it('image refusals offer a retry with what to do', () => {
    assert.match(refusalText(413, 'file_too_large'), /too large/);
    assert.match(refusalText(415, 'unsupported_file_type'), /JPEG, PNG or WebP/);
    assert.match(refusalText(422, 'invalid_image'), /couldn’t open this photo/);
    assert.match(refusalText(429, 'rate_limit_exceeded'), /wait a minute/);
    assert.match(refusalText(503, 'service_unavailable'), /try again in a minute/);
    assert.match(refusalText(500, 'internal_error'), /try again in a minute/);
    assert.match(refusalText(0, null), /internet connection/);
  });

  it('a submit missing an image goes back to it', () => {
    assert.deepEqual(describeRefusal(422, 'validation_error', 'selfie'), {
      kind: 'missing',
      artifact: 'selfie',
      message: 'We still need a photo of your face.',
    });
    assert.equal(describeRefusal(422, 'validation_error', 'signals').kind, 'retry');
  });
});

function refusalText(status: number, code: string | null): string {
  const r = describeRefusal(status, code, null);
  assert.equal(r.kind, 'retry');
  return r.kind === 'retry' ? r.message : '';
}

describe('the liveness challenge in the flow', () => {
  it('comes after the selfie, before submit, while it is pending; skipping it skips the selfie step', () => {
    assert.deepEqual(remainingScreens(ALL, none, 'passport', true), ['document_front', 'selfie', 'challenge', 'submit']);
    assert.deepEqual(remainingScreens(ALL, { front: true, back: false, selfie: true }, 'passport', true), ['challenge', 'submit']);
    assert.deepEqual(remainingScreens(ALL, { front: true, back: false, selfie: true }, 'passport', false), ['submit']);
    assert.equal(skipStep('challenge', ['challenge', 'submit'], ALL), 'selfie');
  });

  it('has a timeline: look ahead, then each turn and a return, a frame at the end of each part', () => {
    const { settleMs: s, turnMs: t, backMs: b } = CHALLENGE_PACE;
    const two = challengeSchedule(['turn_left', 'turn_right']);
    assert.deepEqual(two.prompts, [
      { atMs: 0, prompt: 'ahead' },
      { atMs: s, prompt: 'turn_left' },
      { atMs: s + t, prompt: 'ahead' },
      { atMs: s + t + b, prompt: 'turn_right' },
      { atMs: s + 2 * t + b, prompt: 'ahead' },
    ]);
    assert.deepEqual(two.frames, [s - 400, s + t - 400, s + t + b - 400, s + 2 * t + b - 400, s + 2 * t + 2 * b - 400]);
    assert.equal(two.endMs, s + 2 * (t + b));
    // within the API's limits: 3 to 8 frames over 1 to 60 seconds
    const three = challengeSchedule(['turn_right', 'turn_left', 'turn_right']);
    assert.equal(three.frames.length, 7);
    assert.ok(three.frames.at(-1)! - three.frames[0]! >= 1000 && three.endMs < 60_000);
  });
});
