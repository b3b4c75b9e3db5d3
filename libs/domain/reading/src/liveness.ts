/**
 * Liveness from what a still image cannot show (docs/reading.md, "Liveness"): the applicant turns their head as a
 * challenge asks, the page sends the frames it took, and the frames are judged here. Pure rules over what the
 * face engine measured of each frame.
 */

/** A move of the challenge: the applicant turns their head to their own left, or right. */
export type ChallengeStep = 'turn_left' | 'turn_right';

/** Frames a challenge takes: at least `min`, at most `max`, each at most `maxBytes`. */
export const CHALLENGE_FRAMES = { min: 3, max: 8 } as const;
/** The span the frames of a challenge may be taken over, in milliseconds, and the least time between two. */
export const CHALLENGE_TIMING = { minSpanMs: 1000, maxSpanMs: 60_000, minGapMs: 50 } as const;
/** Mean difference (grey levels, 0–255) under which two consecutive frames count as the same picture. */
export const FRAME_SAME_PICTURE = 0.5;

/** What the face engine measured of one frame of the challenge. */
export interface FrameFindings {
  /** When it was taken, in milliseconds from the first frame (as the page reports it). */
  offsetMs: number;
  /** Faces found in it. */
  faces: number;
  /** Head yaw in degrees (positive: nose towards the image's right), when there was one face. */
  yaw: number | null;
  /** Face-match similarity with the selfie's face, when there was one face in each. */
  similarity: number | null;
  /** The lower of the two attack models' scores that the face is live (antispoof, liveness), when there was one face. */
  attack: number | null;
  /** Mean grey difference of its aligned face with the previous frame's; null for the first frame or no face. */
  change: number | null;
}

/** The thresholds the challenge is judged with (a slice of `Thresholds`). */
export interface ChallengeThresholds {
  /** Degrees of yaw, from looking straight ahead, that count as a turn. */
  challengeTurn: number;
  /** Similarity with the selfie under which a frame shows someone else. */
  challengeFrameMatch: number;
}

/**
 * Which way a frame's head is turned, in the applicant's terms. The frames are the camera's pictures as taken (not
 * mirrored): a person turning to their left turns their nose towards the image's right, which is positive yaw.
 */
export function turnOf(yaw: number, baseline: number, t: ChallengeThresholds): ChallengeStep | 'ahead' | 'between' {
  const d = yaw - baseline;
  if (d >= t.challengeTurn) return 'turn_left';
  if (d <= -t.challengeTurn) return 'turn_right';
  return Math.abs(d) <= t.challengeTurn / 2 ? 'ahead' : 'between';
}

/**
 * The turns a sequence of yaws shows, in order: each frame's turn, consecutive repeats merged, frames looking
 * ahead or half turned dropped. The baseline is the median yaw (the applicant looks ahead between turns, so most
 * frames do), so that a camera set a little to the side does not count as a turn.
 */
export function turnsOf(yaws: readonly number[], t: ChallengeThresholds): ChallengeStep[] {
  if (yaws.length === 0) return [];
  const sorted = [...yaws].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const baseline = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const out: ChallengeStep[] = [];
  for (const y of yaws) {
    const turn = turnOf(y, baseline, t);
    if ((turn === 'turn_left' || turn === 'turn_right') && out[out.length - 1] !== turn) out.push(turn);
  }
  return out;
}

/** Why the timing of the frames is not that of a person doing the challenge, or null when it is. */
export function timingProblem(offsets: readonly number[]): string | null {
  if (offsets.length < CHALLENGE_FRAMES.min) return `fewer than ${CHALLENGE_FRAMES.min} frames`;
  if (offsets.length > CHALLENGE_FRAMES.max) return `more than ${CHALLENGE_FRAMES.max} frames`;
  for (let i = 1; i < offsets.length; i++) {
    if (offsets[i]! - offsets[i - 1]! < CHALLENGE_TIMING.minGapMs) return 'frames out of order or taken too close together';
  }
  const span = offsets[offsets.length - 1]! - offsets[0]!;
  if (span < CHALLENGE_TIMING.minSpanMs) return 'frames taken over too short a time';
  if (span > CHALLENGE_TIMING.maxSpanMs) return 'frames taken over too long a time';
  return null;
}

/** The verdict on a challenge's frames, before the attack scores: what the liveness check builds on. */
export type ChallengeVerdict =
  | { done: true }
  | { done: false; why: 'no_frames' }
  | { done: false; why: 'someone_else' | 'not_followed'; detail: string };

/**
 * Judges the frames of a challenge (in the order they were taken): enough of them over a plausible time, one face
 * in each, every one the selfie's person, not all the same picture, and the head turned as the steps asked, in
 * their order.
 */
export function judgeChallenge(steps: readonly ChallengeStep[], frames: readonly FrameFindings[], t: ChallengeThresholds): ChallengeVerdict {
  if (frames.length === 0) return { done: false, why: 'no_frames' };
  const timing = timingProblem(frames.map((f) => f.offsetMs));
  if (timing) return { done: false, why: 'not_followed', detail: timing };
  if (frames.some((f) => f.faces !== 1 || f.yaw === null)) return { done: false, why: 'not_followed', detail: 'a frame without exactly one face' };
  if (frames.some((f) => f.similarity === null)) return { done: false, why: 'not_followed', detail: 'no face of the selfie to compare the frames with' };
  if (frames.some((f) => f.similarity! < t.challengeFrameMatch)) return { done: false, why: 'someone_else', detail: 'a frame shows another person than the selfie' };
  if (frames.slice(1).every((f) => f.change !== null && f.change < FRAME_SAME_PICTURE)) return { done: false, why: 'not_followed', detail: 'every frame is the same picture' };
  const turns = turnsOf(
    frames.map((f) => f.yaw!),
    t,
  );
  if (turns.length !== steps.length || turns.some((s, i) => s !== steps[i])) {
    return { done: false, why: 'not_followed', detail: `turns seen: ${turns.join(', ') || 'none'}; asked: ${steps.join(', ')}` };
  }
  return { done: true };
}
