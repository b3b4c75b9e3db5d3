import { selfieGates, type CheckReason, type FaceReason, type Thresholds } from './checks.js';
import { readDocument, type Readers } from './document.js';
import type { FaceEngine } from './faces.js';
import { measures } from './verify.js';

/**
 * One capture image checked on its own, while the applicant can still take it again (docs/capture.md, "Checking
 * an image"): `usable` or not, and why not, in the reasons the run would give.
 */
export interface ImageCheck {
  usable: boolean;
  reasons: CheckReason[];
}

/** Which document the applicant said they photograph: a passport's front must carry its machine-readable zone. */
export type DocumentKind = 'passport' | 'identity_card' | 'driver_license';

/** A selfie is usable with exactly one face that clears the quality gates (size, frontal, eyes open, sharp). */
export async function checkSelfieImage(faces: FaceEngine, image: Buffer, t: Thresholds): Promise<ImageCheck> {
  const found = await faces.faces(image);
  if (found.faces.length === 0) return { usable: false, reasons: ['no_face'] };
  if (found.faces.length > 1) return { usable: false, reasons: ['multiple_faces'] };
  const reasons: FaceReason[] = selfieGates(measures(found.faces[0]!, found), t);
  return { usable: reasons.length === 0, reasons };
}

/**
 * A side of a document is usable when its machine-readable zone or barcode reads with every check digit, on a
 * document of its format (not a zone alone on paper or a screen: `document_not_found`). The front of a card or a
 * licence carries neither (they are on the back): it is usable when it shows one sharp face, the holder's portrait.
 * Nothing the read found is returned: only whether it can be read.
 */
export async function checkDocumentImage(
  readers: Readers,
  faces: FaceEngine,
  image: Buffer,
  side: 'front' | 'back',
  kind: DocumentKind | null,
  t: Thresholds,
  today: string,
): Promise<ImageCheck> {
  const { outcome } = await readDocument(readers, { front: image, back: null }, today);
  if (outcome.readable) return outcome.read.reasons.includes('document_not_found') ? { usable: false, reasons: ['document_not_found'] } : { usable: true, reasons: [] };
  if (side === 'back' || kind === 'passport') return { usable: false, reasons: [outcome.reason] };
  const found = await faces.faces(image);
  if (found.faces.length === 0) return { usable: false, reasons: [outcome.reason, 'no_face'] };
  const holder = found.faces[0]!;
  if (holder.sharpness < t.sharpness) return { usable: false, reasons: ['blurred'] };
  return { usable: true, reasons: [] };
}
