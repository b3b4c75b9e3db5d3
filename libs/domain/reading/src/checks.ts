import type { DocumentOutcome, UnreadableReason } from './document.js';
import type { ReadReason } from './fields.js';
import { judgeChallenge, type ChallengeStep, type FrameFindings } from './liveness.js';

export type CheckOutcome = 'pass' | 'review' | 'fail';

/**
 * Why the face match did not pass (docs/reading.md, "Outcomes and reasons"): no face on the document or in the
 * selfie, several in the selfie, a selfie that fails a quality gate (too small, turned away, eyes shut, blurred),
 * the selfie being the document's own portrait or a picture of it, or a similarity under the match threshold.
 */
export type FaceReason = 'no_face' | 'multiple_faces' | 'face_too_small' | 'face_not_frontal' | 'eyes_closed' | 'blurred' | 'selfie_is_document_copy' | 'similarity_low';

/** Why liveness did not pass: no frames of the challenge, a challenge not done as asked, attack scores too low. */
export type LivenessReason = 'still_image' | 'challenge_failed' | 'spoof_suspected';

export type CheckReason = ReadReason | UnreadableReason | FaceReason | LivenessReason;

export interface CheckResult {
  outcome: CheckOutcome;
  /** Empty when the check passed; otherwise every reason that holds, most serious first. */
  reasons: CheckReason[];
  /** The face match's similarity, liveness's score (0 to 1; docs/reading.md); null for the document check, or when nothing was measured. */
  score: number | null;
}

/**
 * Where measurements turn into outcomes: one field per threshold, a plain object (a workflow template may set its
 * own). Similarity and attack scores run from 0 to 1: at or above `*Pass` a check passes, at or above `*Review` it
 * goes to a person, below it fails. Defaults, their variables and how they were chosen: docs/reading.md.
 */
export interface Thresholds {
  faceMatchPass: number;
  faceMatchReview: number;
  livenessPass: number;
  livenessReview: number;
  /** The selfie's face at least this share of the image's shorter side (0 to 1). */
  faceMinSize: number;
  /** Yaw and pitch of the selfie's face at most this many degrees from looking straight at the camera. */
  faceMaxAngle: number;
  /** Eyelid gap over eye width of the less open eye at least this. */
  eyesOpen: number;
  /** Variance of the Laplacian of the aligned face at least this. */
  sharpness: number;
  /** Picture similarity (−1 to 1) at or above which the selfie is a copy of the document's picture: `face_match` fails. */
  documentCopy: number;
  /** Picture similarity from which up to `documentCopy` the selfie may be a copy: `face_match` goes to a person. */
  documentCopyReview: number;
  /** Degrees of yaw from looking ahead that count as a turn of the challenge. */
  challengeTurn: number;
  /** Face-match similarity with the selfie under which a challenge frame shows someone else. */
  challengeFrameMatch: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = {
  faceMatchPass: 0.6,
  faceMatchReview: 0.45,
  livenessPass: 0.65,
  livenessReview: 0.45,
  faceMinSize: 0.2,
  faceMaxAngle: 20,
  eyesOpen: 0.12,
  sharpness: 10,
  documentCopy: 0.8,
  documentCopyReview: 0.65,
  challengeTurn: 6,
  challengeFrameMatch: 0.45,
};

/**
 * Reasons that make the document check fail outright; the others send it to review. `document_not_found` fails:
 * a zone or barcode with no document of its format around it (printed on paper, shown on a screen) is not a
 * document, and no reviewer should approve it. `data_mismatch` goes to a person, who sees both sides' data.
 */
const FAILING: ReadonlySet<CheckReason> = new Set(['document_not_found', 'expired', 'date_of_birth_invalid']);

function result(reasons: CheckReason[], score: number | null = null): CheckResult {
  const sorted = [...reasons].sort((a, b) => Number(FAILING.has(b)) - Number(FAILING.has(a)));
  return { outcome: reasons.length === 0 ? 'pass' : reasons.some((r) => FAILING.has(r)) ? 'fail' : 'review', reasons: sorted, score };
}

/**
 * The document check: `pass` for a read with nothing against it; `fail` for no document around the data, an
 * expired document or an impossible date of birth; `review` for printed data that disagrees with the data or
 * could not be read, an issuer or nationality that is not a country, and a document that could not be read (a
 * person can look at the photo: a check digit read wrong, glare, an unsupported document).
 */
export function documentCheck(doc: DocumentOutcome): CheckResult {
  return result(doc.readable ? doc.read.reasons : [doc.reason]);
}

/** What the face engine measured of the one face of a selfie, for its quality gates. */
export interface FaceMeasures {
  /** The face's width over the image's shorter side. */
  size: number;
  yaw: number;
  pitch: number;
  eyesOpen: number;
  sharpness: number;
}

/** The quality gates a selfie's face must clear before it is matched (and so that the page asks for a retake). */
export function selfieGates(m: FaceMeasures, t: Thresholds = DEFAULT_THRESHOLDS): FaceReason[] {
  const reasons: FaceReason[] = [];
  if (m.size < t.faceMinSize) reasons.push('face_too_small');
  if (Math.abs(m.yaw) > t.faceMaxAngle || Math.abs(m.pitch) > t.faceMaxAngle) reasons.push('face_not_frontal');
  if (m.eyesOpen < t.eyesOpen) reasons.push('eyes_closed');
  if (m.sharpness < t.sharpness) reasons.push('blurred');
  return reasons;
}

/** What was found of faces, for the face match. */
export interface FaceFindings {
  /** Faces found on the document's front. */
  documentFaces: number;
  /** Faces found in the selfie. */
  selfieFaces: number;
  /** The selfie's face, measured, when there was exactly one. */
  selfie: FaceMeasures | null;
  /** Face-match similarity of the document's face and the selfie's, when there was one of each. */
  similarity: number | null;
  /** How alike the two faces are as pictures (`pictureSimilarity`), when there was one of each. */
  pictureSimilarity: number | null;
}

/**
 * The face match: the document's face against the selfie's. `fail` for a selfie that is a copy of the document's
 * picture (picture similarity at or above `documentCopy`), or a similarity under the review threshold; `review`
 * for a selfie that may be a copy (from `documentCopyReview`), a missing face, several in the selfie, a selfie that
 * fails a quality gate, or a similarity in the review band; `pass` otherwise. The score is the similarity (null
 * when there was nothing to compare).
 */
export function faceMatchCheck(f: FaceFindings, t: Thresholds = DEFAULT_THRESHOLDS): CheckResult {
  const score = f.similarity;
  if (f.documentFaces === 0 || f.selfieFaces === 0) return { outcome: 'review', reasons: ['no_face'], score: null };
  if (f.selfieFaces > 1) return { outcome: 'review', reasons: ['multiple_faces'], score: null };
  if (f.pictureSimilarity !== null && f.pictureSimilarity >= t.documentCopy) return { outcome: 'fail', reasons: ['selfie_is_document_copy'], score };
  if (f.pictureSimilarity !== null && f.pictureSimilarity >= t.documentCopyReview) return { outcome: 'review', reasons: ['selfie_is_document_copy'], score };
  const reasons: FaceReason[] = f.selfie ? selfieGates(f.selfie, t) : [];
  if (score === null) return { outcome: 'review', reasons: reasons.length ? reasons : ['no_face'], score };
  if (score < t.faceMatchReview) return { outcome: 'fail', reasons: ['similarity_low', ...reasons], score };
  if (score < t.faceMatchPass) reasons.unshift('similarity_low');
  return { outcome: reasons.length ? 'review' : 'pass', reasons, score };
}

/** What was found for liveness: the challenge asked, what each of its frames showed, and the selfie's attack score. */
export interface LivenessFindings {
  steps: ChallengeStep[];
  frames: FrameFindings[];
  /** The lower of the two attack models' scores for the selfie's face, when it had one face. */
  selfieAttack: number | null;
}

/** The middle value (the mean of the two middle ones for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const v = [...values].sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

/**
 * Liveness: `still_image` (review) when no frame of the challenge came, whatever the selfie scores; `challenge_failed`
 * when the frames do not show the head turned as asked, in time (review), or show someone else than the selfie
 * (fail); `spoof_suspected` when the attack score is under the liveness thresholds (review in the band, fail under
 * it); `pass` otherwise. The score: each image (the selfie and every frame) scores the lower of the two attack
 * models' verdicts that its face is live, and the check's score is the median of those, so that one frame the
 * models misjudge decides nothing on its own.
 */
export function livenessCheck(l: LivenessFindings, t: Thresholds = DEFAULT_THRESHOLDS): CheckResult {
  const score = median([l.selfieAttack, ...l.frames.map((f) => f.attack)].filter((s): s is number => s !== null));
  const verdict = judgeChallenge(l.steps, l.frames, t);
  if (!verdict.done) {
    if (verdict.why === 'no_frames') return { outcome: 'review', reasons: ['still_image'], score };
    return { outcome: verdict.why === 'someone_else' ? 'fail' : 'review', reasons: ['challenge_failed'], score };
  }
  if (score === null || score < t.livenessReview) return { outcome: 'fail', reasons: ['spoof_suspected'], score };
  if (score < t.livenessPass) return { outcome: 'review', reasons: ['spoof_suspected'], score };
  return { outcome: 'pass', reasons: [], score };
}
