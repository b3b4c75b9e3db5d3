import sharp from 'sharp';
import { documentCheck, faceMatchCheck, livenessCheck, type CheckResult, type FaceFindings, type FaceMeasures, type LivenessFindings, type Thresholds } from './checks.js';
import { readDocument, type DocumentImages, type DocumentOutcome, type Readers } from './document.js';
import { FINGERPRINT_SIDE, meanAbsoluteDifference, pictureFingerprint, pictureSimilarity } from './face-geometry.js';
import { cropPortrait, type Face, type FaceEngine, type FacesOf } from './faces.js';
import type { ChallengeStep, FrameFindings } from './liveness.js';
import { MAX_INPUT_PIXELS } from './raster.js';

/** A frame of the liveness challenge: the image, and when it was taken (milliseconds from the first frame). */
export interface ChallengeFrame {
  image: Buffer;
  offsetMs: number;
}

export interface VerifyInput extends DocumentImages {
  /** The selfie, when the workflow compares faces or checks liveness. */
  selfie: Buffer | null;
  /** The frames of the liveness challenge, in the order they were taken; none when the applicant sent none. */
  frames?: ChallengeFrame[];
  /** The challenge the session asked for (its steps in order); empty when the workflow has no liveness. */
  challenge?: ChallengeStep[];
}

/** Everything a live run needs from the images. No embedding, and no face picture but the portrait, leaves this function. */
export interface Verification {
  document: DocumentOutcome;
  /** The holder's face cut from the document's portrait zone, as JPEG; null when there is no face there. */
  portrait: Buffer | null;
  findings: FaceFindings;
  liveness: LivenessFindings;
  /** `pictureFingerprint` of the selfie (16 hex digits), for spotting a selfie sent before; null without one face in it. */
  selfieFingerprint: string | null;
  checks: { document: CheckResult; face_match: CheckResult | null; liveness: CheckResult | null };
}

/** The quality measures of an image's face. */
export function measures(face: Face, of: Pick<FacesOf, 'width' | 'height'>): FaceMeasures {
  return { size: face.box.width / Math.min(of.width, of.height), yaw: face.yaw, pitch: face.pitch, eyesOpen: face.eyesOpen, sharpness: face.sharpness };
}

/** `pictureFingerprint` of an image: of its upright grey thumbnail. */
export async function fingerprintOf(image: Buffer): Promise<string> {
  const { data } = await sharp(image, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .greyscale()
    .resize(FINGERPRINT_SIDE, FINGERPRINT_SIDE, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return pictureFingerprint(new Uint8Array(data.buffer, data.byteOffset, data.length));
}

/** The lower of the two attack models' scores. */
const attackScore = (f: Face) => Math.min(f.real, f.live);

/** The faces of a run: the holder's portrait cut from the portrait zone, and what was found to judge the face checks by. */
export interface FacePart {
  portrait: Buffer | null;
  findings: FaceFindings;
  liveness: LivenessFindings;
  selfieFingerprint: string | null;
}

const NO_FACES = { faces: [] as Face[], width: 0, height: 0 };

/**
 * Finds the holder's face in the document's portrait zone (ICAO zone V of the flattened document, from
 * `readDocument`; none when no document was found) and cuts it out as the portrait: a face elsewhere on the photo is
 * never the holder's. Compares it with the selfie's face, as people (embeddings) and as pictures (is the selfie a
 * copy of the portrait?); then measures each frame of the challenge against the selfie.
 */
export async function facePart(faces: FaceEngine, portraitZone: Buffer | null, input: Pick<VerifyInput, 'selfie' | 'frames' | 'challenge'>): Promise<FacePart> {
  const onDocument = portraitZone ? await faces.faces(portraitZone, 'document') : NO_FACES;
  const inSelfie = input.selfie ? await faces.faces(input.selfie) : null;
  const holder: Face | undefined = onDocument.faces[0];
  const portrait = holder && portraitZone ? await cropPortrait(portraitZone, holder, onDocument.width, onDocument.height) : null;
  const selfieFace = inSelfie?.faces.length === 1 ? inSelfie.faces[0]! : null;

  const frames: FrameFindings[] = [];
  let previous: Face | null = null;
  for (const frame of input.frames ?? []) {
    const found = await faces.faces(frame.image, 'frame');
    const one = found.faces.length === 1 ? found.faces[0]! : null;
    frames.push({
      offsetMs: frame.offsetMs,
      faces: found.faces.length,
      yaw: one ? one.yaw : null,
      similarity: one && selfieFace ? faces.similarity(one, selfieFace) : null,
      attack: one ? attackScore(one) : null,
      change: one && previous ? meanAbsoluteDifference(one.aligned, previous.aligned) : null,
    });
    previous = one;
  }
  return {
    portrait,
    findings: {
      documentFaces: onDocument.faces.length,
      selfieFaces: inSelfie?.faces.length ?? 0,
      selfie: selfieFace && inSelfie ? measures(selfieFace, inSelfie) : null,
      similarity: holder && selfieFace ? faces.similarity(holder, selfieFace) : null,
      pictureSimilarity: holder && selfieFace ? pictureSimilarity(holder.aligned, selfieFace.aligned) : null,
    },
    liveness: { steps: [...(input.challenge ?? [])], frames, selfieAttack: selfieFace ? attackScore(selfieFace) : null },
    selfieFingerprint: selfieFace && input.selfie ? await fingerprintOf(input.selfie) : null,
  };
}

/**
 * Reads the document, finds the holder's face in its portrait zone (the portrait), compares it with the selfie,
 * judges the challenge's frames, then the three checks with `thresholds`.
 */
export async function verify(readers: Readers, faces: FaceEngine, input: VerifyInput, thresholds: Thresholds, today: string): Promise<Verification> {
  const { outcome, portraitZone } = await readDocument(readers, input, today);
  const part = await facePart(faces, portraitZone, input);
  return {
    document: outcome,
    ...part,
    checks: {
      document: documentCheck(outcome),
      face_match: input.selfie ? faceMatchCheck(part.findings, thresholds) : null,
      liveness: input.selfie ? livenessCheck(part.liveness, thresholds) : null,
    },
  };
}
