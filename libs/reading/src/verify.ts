import sharp from 'sharp';
import { documentCheck, faceMatchCheck, livenessCheck, type CheckResult, type FaceFindings, type Thresholds } from './checks.js';
import { readDocument, READ_MAX_SIDE, type DocumentImages, type DocumentOutcome } from './document.js';
import { cropPortrait, type Face, type FaceEngine } from './faces.js';
import type { MrzOcr } from './ocr.js';
import { MAX_INPUT_PIXELS } from './raster.js';

export interface VerifyInput extends DocumentImages {
  /** The selfie, when the workflow compares faces or checks liveness. */
  selfie: Buffer | null;
}

/** Everything a live run needs from the images. No embedding leaves this function. */
export interface Verification {
  document: DocumentOutcome;
  /** The holder's face cut from the front, as JPEG; null when the front shows no face. */
  portrait: Buffer | null;
  findings: FaceFindings;
  checks: { document: CheckResult; face_match: CheckResult | null; liveness: CheckResult | null };
}

/** The front turned upright by the angle its text was found at, as JPEG: where the holder's face is looked for. */
async function straightFront(front: Buffer, angle: number): Promise<Buffer> {
  return sharp(front, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .resize({ width: READ_MAX_SIDE, height: READ_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
    .rotate(-angle, { background: '#ffffff' })
    .jpeg({ quality: 92 })
    .toBuffer();
}

/** The faces of a run: the holder's portrait cut from the front, and what was found to judge the face checks by. */
export interface FacePart {
  portrait: Buffer | null;
  findings: FaceFindings;
}

/**
 * Finds the holder's face on the front (turned upright by `frontAngle`, the angle its text was found at), cuts
 * it out as the portrait, and compares it with the selfie's face, scoring that one for presentation attacks.
 */
export async function facePart(faces: FaceEngine, front: Buffer, frontAngle: number, selfie: Buffer | null): Promise<FacePart> {
  const straight = await straightFront(front, frontAngle);
  const [onDocument, inSelfie] = await Promise.all([faces.faces(straight), selfie ? faces.faces(selfie) : null]);
  const holder: Face | undefined = onDocument.faces[0];
  const portrait = holder ? await cropPortrait(straight, holder, onDocument.width, onDocument.height) : null;
  const selfieFace = inSelfie?.faces.length === 1 ? inSelfie.faces[0] : null;
  return {
    portrait,
    findings: {
      documentFaces: onDocument.faces.length,
      selfieFaces: inSelfie?.faces.length ?? 0,
      similarity: holder && selfieFace ? faces.similarity(holder, selfieFace) : null,
      real: selfieFace?.real ?? null,
    },
  };
}

/**
 * Reads the document, finds the holder's face on its front (the portrait), compares it with the selfie and
 * scores the selfie for presentation attacks, then judges the three checks with `thresholds`.
 */
export async function verify(ocr: MrzOcr, faces: FaceEngine, input: VerifyInput, thresholds: Thresholds, today: string): Promise<Verification> {
  const { outcome, frontAngle } = await readDocument(ocr, input, today);
  const { portrait, findings } = await facePart(faces, input.front, frontAngle, input.selfie);
  return {
    document: outcome,
    portrait,
    findings,
    checks: {
      document: documentCheck(outcome),
      face_match: input.selfie ? faceMatchCheck(findings, thresholds) : null,
      liveness: input.selfie ? livenessCheck(findings, thresholds) : null,
    },
  };
}
