import sharp from 'sharp';
import { parseLicence, readPdf417 } from './barcode.js';
import type { DocumentRead, ReadReason } from './fields.js';
import { barcodeFits, flatSize, mrzFits, placement, PORTRAIT_ZONE, PRINTED_ZONE, ratioFits, sizeOf, zoneBox, type DocumentSize, type Placement } from './layout.js';
import { MrzOcr, PrintedOcr } from './ocr.js';
import { openCv, type Cv } from './opencv.js';
import { findOutline, flatten, quadSize, turnQuad, type Quad } from './outline.js';
import { comparePrinted, printedVerdict, type PrintedFields, type Word } from './printed.js';
import { inkMask, MAX_INPUT_PIXELS, rotateGrey, toGrey, upright, type Grey } from './raster.js';
import { readZone, straighten, zoneCandidates, type Straightened } from './zone.js';

/** Longest side of the copy of a photo that is read: enough for an MRZ filling half the frame of a 12 MP photo. */
export const READ_MAX_SIDE = 2048;

/**
 * Why nothing was read, most telling first:
 * - `check_digit_mismatch`: a zone of the MRZ's shape was read, but a check digit or the name field does not
 *   hold, in every way it was read (a misread, or a forged or damaged document);
 * - `unsupported_document`: machine-readable data of another kind (a visa, a barcode that is not an AAMVA licence);
 * - `unreadable`: neither an MRZ nor a PDF417 barcode was found (blur, glare, too small, cut off).
 */
export type UnreadableReason = 'check_digit_mismatch' | 'unsupported_document' | 'unreadable';

export type DocumentOutcome =
  | {
      readable: true;
      source: 'mrz' | 'pdf417';
      /** The image the machine-readable data was read from. */
      side: 'front' | 'back';
      read: DocumentRead;
      /** The printed fields compared with the read; null when no document was found to read them on. */
      printed: PrintedFields | null;
    }
  | { readable: false; reason: UnreadableReason };

const RANK: Record<UnreadableReason, number> = { check_digit_mismatch: 2, unsupported_document: 1, unreadable: 0 };

export interface DocumentImages {
  front: Buffer;
  back: Buffer | null;
}

/** The engines a read needs, each loaded once per thread. */
export interface Readers {
  mrz: MrzOcr;
  printed: PrintedOcr;
  cv: Cv;
}

/** Loads the reading engines (about a second; once per thread). */
export async function startReaders(): Promise<Readers> {
  const [mrz, printed, { cv }] = await Promise.all([MrzOcr.start(), PrintedOcr.start(), openCv()]);
  return { mrz, printed, cv };
}

export async function closeReaders(r: Readers): Promise<void> {
  await Promise.all([r.mrz.close(), r.printed.close()]);
}

/** What reading found, and the holder's portrait zone. */
export interface DocumentReading {
  outcome: DocumentOutcome;
  /**
   * The portrait zone (ICAO zone V) of the side that carries it, cut from the photo around where the layout puts
   * it (as it lies in the photo, not flattened), as JPEG: where the holder's face is looked for. Null when no document was found around the data, or no such side was given.
   */
  portraitZone: Buffer | null;
}

type SideName = 'front' | 'back';

interface Side {
  side: SideName;
  rgb: { data: Uint8Array; width: number; height: number; channels: 3 };
  grey: Grey;
  page: Straightened;
  /**
   * Where the document may be in the upright photo, as it lies (its top the side nearest to level): the outline
   * found, then the frame itself (a scan, or a photo cropped to the document).
   */
  outlines: Quad[];
}

async function decode(side: SideName, bytes: Buffer, cv: Cv): Promise<Side> {
  const { data, info } = await upright(bytes, READ_MAX_SIDE).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const rgb = { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: 3 as const };
  const grey = await toGrey(sharp(data, { raw: { width: info.width, height: info.height, channels: 3 }, limitInputPixels: MAX_INPUT_PIXELS }));
  const frame: Quad = [[0, 0], [grey.width, 0], [grey.width, grey.height], [0, grey.height]];
  const outline = findOutline(cv, grey);
  return { side, rgb, grey, page: await straighten(grey), outlines: outline ? [outline, frame] : [frame] };
}

/** The machine-readable data found, on which image, and whether that image was upside down. */
interface Found {
  outcome: Extract<DocumentOutcome, { readable: true }>;
  upsideDown: boolean;
}

async function readData(sides: Side[], ocr: MrzOcr, cv: Cv, today: string): Promise<Found | UnreadableReason> {
  let worst: UnreadableReason = 'unreadable';
  const note = (r: UnreadableReason) => {
    if (RANK[r] > RANK[worst]) worst = r;
  };
  const attempt = async (list: { side: SideName; page: Straightened }[], note: (r: UnreadableReason) => void) => {
    for (const { side, page } of list) {
      if (page.candidates.length === 0) continue;
      const z = await readZone(page, ocr, today);
      if (z.ok) return { readable: true as const, source: 'mrz' as const, side, read: z.read, printed: null };
      if (z.why !== 'not_found') note(z.why);
    }
    for (const { side, page } of [...list].reverse()) {
      const hit = await readPdf417(page.grey);
      if (hit === null) continue;
      const read = parseLicence(hit.text, today);
      if (read) return { readable: true as const, source: 'pdf417' as const, side, read, printed: null };
      note('unsupported_document');
    }
    return null;
  };
  const found = await attempt(sides, note);
  if (found) return { outcome: found, upsideDown: false };
  // a photo taken upside down: the MRZ search again on the photos turned half a turn (zxing turns barcodes
  // itself). Only a read counts from this round: what upside-down text fails with says nothing.
  const flipped = await Promise.all(sides.map(async (s) => ({ side: s.side, page: await straighten(await rotateGrey(s.grey, 180)) })));
  const again = await attempt(
    flipped.filter((p) => p.page.candidates.length > 0),
    () => undefined,
  );
  if (again) return { outcome: again, upsideDown: again.source === 'mrz' };
  // a document seen at a slant: its zone's lines converge, and straightening alone does not make them level.
  // The MRZ search once more on each outline found, its perspective undone.
  const flat = await Promise.all(
    sides
      .filter((s) => s.outlines.length > 1)
      .map(async (s) => {
        // at the size of a card or of a page, as its proportions say, at 12 px/mm
        const size = quadSize(s.outlines[0]);
        const width = flatSize(size.width / size.height >= 1.5 ? 'ID-1' : 'ID-3').width;
        const height = Math.round((width * size.height) / size.width);
        return { side: s.side, page: await straighten({ data: flatten(cv, { ...s.grey, channels: 1 }, s.outlines[0], width, height), width, height }) };
      }),
  );
  const slanted = await attempt(flat, () => undefined);
  return slanted ? { outcome: slanted, upsideDown: false } : worst;
}

interface Flat {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * A side's document flattened to its format's size (`scale` times it), if the outline has the format's
 * proportions.
 */
function flattenQuad(cv: Cv, s: Side, quad: Quad, size: DocumentSize, channels: 1 | 3, scale = 1): Flat | null {
  const measured = quadSize(quad);
  if (!ratioFits(size, measured.width / measured.height)) return null;
  const full = flatSize(size);
  const width = Math.round(full.width * scale), height = Math.round(full.height * scale);
  const image = channels === 1 ? { ...s.grey, channels: 1 as const } : s.rgb;
  return { data: flatten(cv, image, quad, width, height), width, height };
}

/**
 * The outline of the side the data was read on whose proportions are the format's and in which the zone or
 * barcode is where and as large as the format puts it; null when there is none.
 */
async function dataOutline(cv: Cv, s: Side, found: Found): Promise<Quad | null> {
  const format = found.outcome.read.document.format;
  for (const outline of s.outlines) {
    const quad = found.upsideDown ? turnQuad(outline) : outline;
    const flat = flattenQuad(cv, s, quad, sizeOf(format), 1, format === 'TD3' ? 0.6 : 0.8);
    if (!flat) continue;
    if (format === 'AAMVA') {
      const hit = await readPdf417(flat);
      if (hit !== null && barcodeFits(placement(hit.box, flat.width, flat.height))) return quad;
      continue;
    }
    const lines = format === 'TD1' ? 3 : 2;
    if ((await zoneCandidates(flat)).some((c) => c.lines.length === lines && mrzFits(format, placement(c.box, flat.width, flat.height)))) return quad;
  }
  return null;
}

/** A zone of a flattened RGB side, as sharp input. */
function zoneOf(flat: Flat, zone: (typeof PRINTED_ZONE)[DocumentSize]) {
  return sharp(Buffer.from(flat.data.buffer, flat.data.byteOffset, flat.data.byteLength), { raw: { width: flat.width, height: flat.height, channels: 3 } }).extract(zoneBox(zone, flat.width, flat.height));
}

/**
 * Printed text as black on white, everything else white: pixels clearly darker than their neighbourhood. The
 * security background's fine lines and uneven light drop out, and Tesseract has only the characters to read.
 */
async function inkImage(g: Grey): Promise<Buffer> {
  const ink = await inkMask(g, 8, 40);
  const out = Buffer.alloc(ink.length, 255);
  for (let i = 0; i < ink.length; i++) if (ink[i]) out[i] = 0;
  return sharp(out, { raw: { width: g.width, height: g.height, channels: 1 } }).png({ compressionLevel: 1 }).toBuffer();
}

/**
 * The printed side is first flattened at this share of `FLAT_PX_PER_MM` for its OCR: printed values stay 25 px or
 * more tall, which Tesseract mostly reads as well, in two thirds of the pixels (its time grows with them). What
 * does not agree at that scale is read again at full scale, so that a misread never stands as a mismatch.
 */
const PRINTED_SCALE = 0.8;

/** Fewer words than this in the printed zone: nothing is printed where the holder's data goes. */
const MIN_PRINTED_WORDS = 4;

/** The MRZ name field's length in each format: a name field filled to its end may have been cut short. */
const NAME_CAPACITY: Record<'TD1' | 'TD2' | 'TD3', number> = { TD1: 30, TD2: 31, TD3: 39 };

function maybeTruncated(read: DocumentRead): boolean {
  const f = read.document.format;
  if (f === 'AAMVA') return false;
  const field = read.holder.family_name.replace(/ /g, '<') + (read.holder.given_names.length ? '<<' + read.holder.given_names.join('<') : '');
  return field.length >= NAME_CAPACITY[f] - 1;
}

/**
 * The printed side within `quad`: flattened, its printed zone read and compared with the read, its portrait zone
 * cut out. Null when it is no document of the format (wrong proportions, nothing printed in its printed zone). Read
 * at `PRINTED_SCALE` first; nothing printed, a disagreement or too little read is read again at full scale before it stands.
 */
async function readPrintedSide(r: Readers, s: Side, quad: Quad, size: DocumentSize, found: Found, today: string): Promise<{ printed: PrintedFields; portraitZone: Buffer } | null> {
  let printed = await readPrintedZone(r, s, quad, size, found, today, PRINTED_SCALE);
  if (!printed || printedVerdict(printed) !== null) printed = (await readPrintedZone(r, s, quad, size, found, today, 1)) ?? printed;
  if (!printed) return null;
  const portraitZone = await zoneInPhoto(s, quad, PORTRAIT_ZONE[size]).jpeg({ quality: 92 }).toBuffer();
  return { printed, portraitZone };
}

/** The printed zone of the side within `quad`, flattened at `scale`, read and compared with the read; null when nothing is printed there. */
async function readPrintedZone(r: Readers, s: Side, quad: Quad, size: DocumentSize, found: Found, today: string, scale: number): Promise<PrintedFields | null> {
  const flat = flattenQuad(r.cv, s, quad, size, 3, scale);
  if (!flat) return null;
  const zone = zoneOf(flat, PRINTED_ZONE[size]).greyscale();
  const words = await r.printed.words(await inkImage(await toGrey(zone.clone())));
  if (words.length < MIN_PRINTED_WORDS) return null;
  const read = found.outcome.read;
  const licenceUS = read.document.format === 'AAMVA' && read.document.issuing_country === 'US';
  const compare = (w: Word[]) => comparePrinted(w, read, { monthFirst: licenceUS, truncated: maybeTruncated(read), today });
  let printed = compare(words);
  // blurred print loses its thin strokes to the ink threshold (labels first): once more on the grey zone itself
  if (printedVerdict(printed) === 'printed_data_unreadable') printed = compare(await r.printed.words(await zone.normalise().png({ compressionLevel: 1 }).toBuffer()));
  return printed;
}

/**
 * A zone of the document within `quad`, cut from the photo's own pixels rather than from the flattened document:
 * the box around the zone's corners carried back through the quad, a little larger. The portrait is compared with
 * the selfie picture against picture (is the selfie a copy of it?), and resampling it through the perspective would
 * blur the fine detail that comparison rests on.
 */
function zoneInPhoto(s: Side, quad: Quad, zone: Placement) {
  const [tl, tr, br, bl] = quad;
  const at = (u: number, v: number) =>
    [0, 1].map((i) => (1 - u) * (1 - v) * tl[i]! + u * (1 - v) * tr[i]! + u * v * br[i]! + (1 - u) * v * bl[i]!) as [number, number];
  const margin = 0.02;
  const corners = [
    at(zone.left - margin, zone.top - margin),
    at(zone.right + margin, zone.top - margin),
    at(zone.right + margin, zone.bottom + margin),
    at(zone.left - margin, zone.bottom + margin),
  ];
  const { width, height } = s.rgb;
  const left = Math.max(0, Math.floor(Math.min(...corners.map((c) => c[0]))));
  const top = Math.max(0, Math.floor(Math.min(...corners.map((c) => c[1]))));
  const right = Math.min(width, Math.ceil(Math.max(...corners.map((c) => c[0]))));
  const bottom = Math.min(height, Math.ceil(Math.max(...corners.map((c) => c[1]))));
  const rgb = Buffer.from(s.rgb.data.buffer, s.rgb.data.byteOffset, s.rgb.data.byteLength);
  return sharp(rgb, { raw: { width, height, channels: 3 } }).extract({ left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) });
}

/**
 * Reads a document from photos of its sides (JPEG, PNG or WebP; EXIF orientation applied; turned up to ±20° in
 * the frame, or upside down) and checks that it is one real document, read whole:
 *
 * 1. the machine-readable data: the MRZ of the front, then of the back (TD1 cards carry it there); then the PDF417
 *    barcode of the back, then of the front; then the MRZ again upside down, then on each outline found with its
 *    perspective undone. The first read whose check digits all hold wins;
 * 2. the document around it: the outline of the side it was read on, flattened; its proportions must be its
 *    format's (ID-1, ID-2, ID-3) and the zone or barcode where and as large as the format puts it;
 * 3. the printed side (the same for TD2 and TD3, the other image for TD1 cards and licences), flattened: its
 *    printed zone read and compared with the data, its portrait zone cut out for the face checks.
 *
 * `today` (`YYYY-MM-DD`) decides expiry and the century of MRZ dates. What each check proves: docs/reading.md.
 */
export async function readDocument(r: Readers, images: DocumentImages, today: string): Promise<DocumentReading> {
  const sides = await Promise.all([
    decode('front', images.front, r.cv),
    ...(images.back ? [decode('back', images.back, r.cv)] : []),
  ]);
  const found = await readData(sides, r.mrz, r.cv, today);
  if (typeof found === 'string') return { outcome: { readable: false, reason: found }, portraitZone: null };
  const { outcome } = found;
  const format = outcome.read.document.format;
  const size = sizeOf(format);
  const dataSide = sides.find((s) => s.side === outcome.side)!;
  const twoSided = format === 'TD1' || format === 'AAMVA';
  const printedSide = twoSided ? sides.find((s) => s.side !== outcome.side) : dataSide;
  const add = (reason: ReadReason) => ({ ...outcome, read: { ...outcome.read, reasons: [reason, ...outcome.read.reasons] } });

  const dataQuad = await dataOutline(r.cv, dataSide, found);
  if (!dataQuad) return { outcome: add('document_not_found'), portraitZone: null };
  // the front of a card or licence missing: nothing ties its data to a portrait
  if (!printedSide) return { outcome: add('printed_data_unreadable'), portraitZone: null };
  let side: Awaited<ReturnType<typeof readPrintedSide>> = null;
  if (printedSide === dataSide) side = await readPrintedSide(r, printedSide, dataQuad, size, found, today);
  else {
    // another image: the first outline of the format's proportions, as it lies, or else the other way up
    const quad = printedSide.outlines.find((q) => ratioFits(size, quadSize(q).width / quadSize(q).height));
    side = quad ? await readPrintedSide(r, printedSide, quad, size, found, today) : null;
    if (quad && side && printedVerdict(side.printed) === 'printed_data_unreadable') {
      const turned = await readPrintedSide(r, printedSide, turnQuad(quad), size, found, today);
      if (turned && printedVerdict(turned.printed) !== 'printed_data_unreadable') side = turned;
    }
  }
  if (!side) return { outcome: add('document_not_found'), portraitZone: null };
  const verdict = printedVerdict(side.printed);
  const withPrinted = { ...(verdict ? add(verdict) : outcome), printed: side.printed };
  return { outcome: withPrinted, portraitZone: side.portraitZone };
}
