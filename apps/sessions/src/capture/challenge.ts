import { createHmac } from 'node:crypto';
import { CHALLENGE_FRAME_LIMITS, type CaptureChallenge, type ChallengeStep, type CheckType } from '@verity/contracts';

/**
 * The liveness challenge of a session (docs/capture.md, "The liveness challenge"): turn the head left then right,
 * or right then left, twice or three times, in an order drawn from an HMAC of the session id with the region's
 * `CAPTURE_SECRET_KEY`. Nothing is stored: the same session always gets the same challenge, and no one without
 * the key can tell it in advance from the session id.
 */
export function challengeSteps(secretKey: string, sessionId: string): ChallengeStep[] {
  const mac = createHmac('sha256', secretKey).update(`liveness-challenge:${sessionId}`).digest();
  const first: ChallengeStep = mac[0]! & 1 ? 'turn_left' : 'turn_right';
  const other: ChallengeStep = first === 'turn_left' ? 'turn_right' : 'turn_left';
  return mac[1]! & 1 ? [first, other, first] : [first, other];
}

/** The challenge as `GET /v1/capture` describes it, for a workflow with `liveness`; null otherwise. */
export function captureChallenge(secretKey: string, sessionId: string, checks: readonly CheckType[], framesReceived: number): CaptureChallenge | null {
  if (!checks.includes('liveness')) return null;
  return {
    object: 'capture_challenge',
    steps: challengeSteps(secretKey, sessionId),
    frames: { min: CHALLENGE_FRAME_LIMITS.min, max: CHALLENGE_FRAME_LIMITS.max, max_bytes: CHALLENGE_FRAME_LIMITS.max_bytes },
    frames_received: framesReceived,
  };
}
