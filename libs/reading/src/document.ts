import { parseLicence, readPdf417 } from './barcode.js';
import type { DocumentRead } from './fields.js';
import type { MrzOcr } from './ocr.js';
import { rotateGrey, toGrey, upright } from './raster.js';
import { readZone, straighten, type Straightened } from './zone.js';

/** Longest side of the copy of a photo that is read: enough for an MRZ filling half the frame of a 12 MP photo. */
export const READ_MAX_SIDE = 2048;

/**
 * Why nothing was read, most telling first:
 * - `check_digit_mismatch`: a zone of the MRZ's shape was read, but a check digit or the name field does not
 *   hold, in every way it was read (a misread, or a forged or damaged document);
 * - `unsupported_document`: machine-readable data of another kind (a visa, a barcode that is not an AAMVA licence);
 * - `no_machine_readable_data`: neither an MRZ nor a PDF417 barcode was found (blur, glare, too small, cut off).
 */
export type UnreadableReason = 'check_digit_mismatch' | 'unsupported_document' | 'no_machine_readable_data';

export type DocumentOutcome =
  | { readable: true; source: 'mrz' | 'pdf417'; side: 'front' | 'back'; read: DocumentRead }
  | { readable: false; reason: UnreadableReason };

const RANK: Record<UnreadableReason, number> = { check_digit_mismatch: 2, unsupported_document: 1, no_machine_readable_data: 0 };

export interface DocumentImages {
  front: Buffer;
  back: Buffer | null;
}

/** What reading found, and the front page straightened (its angle turns the front's portrait upright too). */
export interface DocumentReading {
  outcome: DocumentOutcome;
  frontAngle: number;
}

/**
 * Reads a document from photos of its sides (JPEG, PNG or WebP; EXIF orientation applied; turned up to ±20° in
 * the frame): the MRZ of the front, then of the back (TD1 cards carry it there); then the PDF417 barcode of the
 * back, then of the front; then all of it again upside down. The first read whose check digits all hold wins.
 * `today` (`YYYY-MM-DD`) decides expiry and the century of MRZ dates.
 */
export async function readDocument(ocr: MrzOcr, images: DocumentImages, today: string): Promise<DocumentReading> {
  const sides = [
    { side: 'front' as const, bytes: images.front },
    ...(images.back ? [{ side: 'back' as const, bytes: images.back }] : []),
  ];
  const pages = await Promise.all(
    sides.map(async (s) => {
      const grey = await toGrey(upright(s.bytes, READ_MAX_SIDE));
      return { ...s, grey, page: await straighten(grey) };
    }),
  );
  const frontAngle = pages[0].page.angle;
  let worst: UnreadableReason = 'no_machine_readable_data';
  const note = (r: UnreadableReason) => {
    if (RANK[r] > RANK[worst]) worst = r;
  };
  const ignore = () => undefined;

  const attempt = async (list: { side: 'front' | 'back'; page: Straightened }[], note: (r: UnreadableReason) => void): Promise<DocumentOutcome | null> => {
    for (const { side, page } of list) {
      if (page.candidates.length === 0) continue;
      const z = await readZone(page, ocr, today);
      if (z.ok) return { readable: true, source: 'mrz', side, read: z.read };
      if (z.why !== 'not_found') note(z.why);
    }
    for (const { side, page } of [...list].reverse()) {
      const text = await readPdf417(page.grey);
      if (text === null) continue;
      const read = parseLicence(text, today);
      if (read) return { readable: true, source: 'pdf417', side, read };
      note('unsupported_document');
    }
    return null;
  };

  const found = await attempt(pages, note);
  if (found) return { outcome: found, frontAngle };
  // a photo taken upside down: the MRZ search again on the photos turned half a turn (zxing turns barcodes
  // itself). Only a read counts from this round: what upside-down text fails with says nothing.
  const flipped = await Promise.all(pages.map(async (p) => ({ side: p.side, page: await straighten(await rotateGrey(p.grey, 180)) })));
  const again = await attempt(
    flipped.filter((p) => p.page.candidates.length > 0),
    ignore,
  );
  if (again) return { outcome: again, frontAngle: again.readable && again.side === 'front' ? frontAngle + 180 : frontAngle };
  return { outcome: { readable: false, reason: worst }, frontAngle };
}
