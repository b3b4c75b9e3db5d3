import type { DocumentOutcome, UnreadableReason } from './document.js';
import type { ReadReason } from './fields.js';

export type CheckOutcome = 'pass' | 'review' | 'fail';

/** Why a face check did not pass. */
export type FaceReason =
  | 'no_face_on_document'
  | 'no_face_in_selfie'
  | 'several_faces_in_selfie'
  | 'similarity_doubtful'
  | 'similarity_low'
  | 'presentation_attack_suspected'
  | 'presentation_attack_detected';

export type CheckReason = ReadReason | UnreadableReason | FaceReason;

export interface CheckResult {
  outcome: CheckOutcome;
  /** Empty when the check passed; otherwise every reason that holds, most serious first. */
  reasons: CheckReason[];
}

/**
 * Where face results turn into outcomes. Similarity and the anti-spoofing score run from 0 to 1; at or above
 * `*Pass` a check passes, at or above `*Review` it goes to a person, below it fails. Defaults and how they were
 * chosen: docs/reading.md.
 */
export interface Thresholds {
  faceMatchPass: number;
  faceMatchReview: number;
  livenessPass: number;
  livenessReview: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = { faceMatchPass: 0.6, faceMatchReview: 0.45, livenessPass: 0.65, livenessReview: 0.45 };

/** Reasons that make the document check fail outright; the others send it to review. */
const FAILING: ReadonlySet<CheckReason> = new Set(['document_expired', 'date_of_birth_invalid']);

function result(reasons: CheckReason[]): CheckResult {
  const sorted = [...reasons].sort((a, b) => Number(FAILING.has(b)) - Number(FAILING.has(a)));
  return { outcome: reasons.length === 0 ? 'pass' : reasons.some((r) => FAILING.has(r)) ? 'fail' : 'review', reasons: sorted };
}

/**
 * The document check: `pass` for a read with nothing against it; `fail` for an expired document or an impossible
 * date of birth; `review` for an issuer or nationality that is not a country, and for a document that could not
 * be read (a person can look at the photo: a check digit read wrong, glare, an unsupported document).
 */
export function documentCheck(doc: DocumentOutcome): CheckResult {
  return result(doc.readable ? doc.read.reasons : [doc.reason]);
}

/** What was found of faces, for the two face checks. */
export interface FaceFindings {
  /** Faces found on the document's front. */
  documentFaces: number;
  /** Faces found in the selfie. */
  selfieFaces: number;
  /** Similarity of the document's face and the selfie's, when there was one of each. */
  similarity: number | null;
  /** Anti-spoofing score of the selfie's face, when there was one. */
  real: number | null;
}

function band(value: number, pass: number, review: number, doubtful: FaceReason, low: FaceReason): CheckResult {
  if (value >= pass) return result([]);
  return { outcome: value >= review ? 'review' : 'fail', reasons: [value >= review ? doubtful : low] };
}

function selfieProblem(f: FaceFindings): FaceReason | null {
  if (f.selfieFaces === 0) return 'no_face_in_selfie';
  if (f.selfieFaces > 1) return 'several_faces_in_selfie';
  return null;
}

/** The face match: the document's face against the selfie's, by similarity. One face on each is needed. */
export function faceMatchCheck(f: FaceFindings, t: Thresholds = DEFAULT_THRESHOLDS): CheckResult {
  const reasons: CheckReason[] = [];
  if (f.documentFaces === 0) reasons.push('no_face_on_document');
  const selfie = selfieProblem(f);
  if (selfie) reasons.push(selfie);
  if (reasons.length || f.similarity === null) return result(reasons.length ? reasons : ['no_face_on_document']);
  return band(f.similarity, t.faceMatchPass, t.faceMatchReview, 'similarity_doubtful', 'similarity_low');
}

/** Liveness: the selfie scored for presentation attacks (a printed photo, a screen). */
export function livenessCheck(f: FaceFindings, t: Thresholds = DEFAULT_THRESHOLDS): CheckResult {
  const selfie = selfieProblem(f);
  if (selfie || f.real === null) return result([selfie ?? 'no_face_in_selfie']);
  return band(f.real, t.livenessPass, t.livenessReview, 'presentation_attack_suspected', 'presentation_attack_detected');
}
