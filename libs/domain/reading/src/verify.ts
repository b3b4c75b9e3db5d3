import sharp from 'sharp';
import { documentCheck, faceMatchCheck, livenessCheck, type CheckResult, type FaceFindings, type FaceMeasures, type LivenessFindings, type Thresholds } from './checks.js';
import { readDocument, type DocumentImages, type DocumentOutcome, type Readers } from './document.js';
import { FINGERPRINT_SIDE, meanAbsoluteDifference, pictureFingerprint, pictureSimilarity } from './face-geometry.js';
import { cropPortrait, embeddingSimilarity, type Face, type FaceEngine, type FacesOf } from './faces.js';
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

/**
 * The document's side of a run: the document read, the holder's face found in its portrait zone (ICAO zone V, from
 * `readDocument`; none when no document was found: a face elsewhere on the photo is never the holder's) and cut out
 * as the portrait. `holder` (with its embedding) stays inside the reader: `combine` turns it into findings.
 */
export interface DocumentSide {
  document: DocumentOutcome;
  portrait: Buffer | null;
  documentFaces: number;
  holder: Face | null;
}

/** The selfie's side of a run: its one face, measured, and each frame of the challenge measured against it. */
export interface SelfieSide {
  selfieFaces: number;
  selfieFace: Face | null;
  selfie: FaceMeasures | null;
  frames: FrameFindings[];
  selfieFingerprint: string | null;
}

const NO_FACES = { faces: [] as Face[], width: 0, height: 0 };

export async function documentSide(readers: Readers, faces: FaceEngine, images: DocumentImages, today: string): Promise<DocumentSide> {
  const { outcome, portraitZone } = await readDocument(readers, images, today);
  const onDocument = portraitZone ? await faces.faces(portraitZone, 'document') : NO_FACES;
  const holder = onDocument.faces[0] ?? null;
  const portrait = holder && portraitZone ? await cropPortrait(portraitZone, holder, onDocument.width, onDocument.height) : null;
  return { document: outcome, portrait, documentFaces: onDocument.faces.length, holder };
}

/** Finds the selfie's face, then measures each frame of the challenge against it (same person, pose, attack score, change). */
export async function selfieSide(faces: FaceEngine, input: Pick<VerifyInput, 'selfie' | 'frames'>): Promise<SelfieSide> {
  const inSelfie = input.selfie ? await faces.faces(input.selfie) : null;
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
      similarity: one && selfieFace ? embeddingSimilarity(one.embedding, selfieFace.embedding) : null,
      attack: one ? attackScore(one) : null,
      change: one && previous ? meanAbsoluteDifference(one.aligned, previous.aligned) : null,
    });
    previous = one;
  }
  return {
    selfieFaces: inSelfie?.faces.length ?? 0,
    selfieFace,
    selfie: selfieFace && inSelfie ? measures(selfieFace, inSelfie) : null,
    frames,
    selfieFingerprint: selfieFace && input.selfie ? await fingerprintOf(input.selfie) : null,
  };
}

/**
 * The two sides of a run brought together: the holder's face compared with the selfie's, as people (embeddings) and
 * as pictures (is the selfie a copy of the portrait?), then the three checks with `thresholds`. No embedding and no
 * face picture but the portrait is in what it answers. Pure: it runs wherever the two sides meet.
 */
export function combine(doc: DocumentSide, side: SelfieSide, input: Pick<VerifyInput, 'selfie' | 'challenge'>, thresholds: Thresholds): Verification {
  const holder = doc.holder;
  const selfieFace = side.selfieFace;
  const findings: FaceFindings = {
    documentFaces: doc.documentFaces,
    selfieFaces: side.selfieFaces,
    selfie: side.selfie,
    similarity: holder && selfieFace ? embeddingSimilarity(holder.embedding, selfieFace.embedding) : null,
    pictureSimilarity: holder && selfieFace ? pictureSimilarity(holder.aligned, selfieFace.aligned) : null,
  };
  const liveness: LivenessFindings = { steps: [...(input.challenge ?? [])], frames: side.frames, selfieAttack: selfieFace ? attackScore(selfieFace) : null };
  return {
    document: doc.document,
    portrait: doc.portrait,
    findings,
    liveness,
    selfieFingerprint: side.selfieFingerprint,
    checks: {
      document: documentCheck(doc.document),
      face_match: input.selfie ? faceMatchCheck(findings, thresholds) : null,
      liveness: input.selfie ? livenessCheck(liveness, thresholds) : null,
    },
  };
}

/**
 * Reads the document, finds the holder's face in its portrait zone (the portrait), compares it with the selfie,
 * judges the challenge's frames, then the three checks with `thresholds`: the two sides one after the other on this
 * thread (the reading pool runs them on two threads at once).
 */
export async function verify(readers: Readers, faces: FaceEngine, input: VerifyInput, thresholds: Thresholds, today: string): Promise<Verification> {
  const doc = await documentSide(readers, faces, input, today);
  return combine(doc, await selfieSide(faces, input), input, thresholds);
}
