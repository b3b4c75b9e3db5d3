import type { DocumentFormat } from './fields.js';
import type { Box } from './raster.js';

/** ICAO 9303 part 2 document sizes, in millimetres (ISO/IEC 7810). AAMVA licences are ID-1 cards. */
export const SIZES = {
  'ID-1': { width: 85.6, height: 53.98 },
  'ID-2': { width: 105, height: 74 },
  'ID-3': { width: 125, height: 88 },
} as const;
export type DocumentSize = keyof typeof SIZES;

export function sizeOf(format: DocumentFormat): DocumentSize {
  return format === 'TD3' ? 'ID-3' : format === 'TD2' ? 'ID-2' : 'ID-1';
}

/** Pixels per millimetre of a flattened document: about 300 dpi, where printed text reads well. */
export const FLAT_PX_PER_MM = 12;

export function flatSize(size: DocumentSize): { width: number; height: number } {
  return { width: Math.round(SIZES[size].width * FLAT_PX_PER_MM), height: Math.round(SIZES[size].height * FLAT_PX_PER_MM) };
}

/**
 * How far a measured width-to-height ratio may be from its format's: a card seen at a slant (measured by its
 * longer opposite sides, the ratio of a card keystoned by 6 % stays within 1 %), or its corners found a few
 * pixels off. ID-1 (1.586) and A4 paper (1.414) are 11 % apart, ID-3 and a 4:3 photo 6.1 %; ID-2 and ID-3 (1.419, 1.420) cannot be
 * told apart by their ratio, nor ID-3 from A4: the zone's size and place settle those.
 */
export const RATIO_TOLERANCE = 0.06;

export function ratioFits(size: DocumentSize, measured: number): boolean {
  const r = SIZES[size].width / SIZES[size].height;
  return Math.abs(measured / r - 1) <= RATIO_TOLERANCE;
}

/** ICAO 9303: MRZ characters on a 2.54 mm pitch, so a line of n characters is n × 2.54 mm long (less a margin). */
const MRZ_CHARS: Record<'TD1' | 'TD2' | 'TD3', number> = { TD1: 30, TD2: 36, TD3: 44 };

/** Where a machine-readable zone or a barcode was found in a flattened document, as fractions of its size. */
export interface Placement {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export function placement(box: Box, width: number, height: number): Placement {
  return { left: box.left / width, top: box.top / height, right: (box.left + box.width) / width, bottom: (box.top + box.height) / height };
}

/**
 * Does a machine-readable zone sit where its format puts it? ICAO 9303 parts 4–6: centred across the document,
 * its lines as long as their characters on the 2.54 mm pitch (about 89 % of a TD3 page's width, 87 % of a TD2's,
 * 89 % of a TD1 card's; ±12 %), in the bottom quarter or so of the page. An MRZ printed at its real size on A4
 * paper spans 38 % of the sheet's width, and one stretched to fill a page is not at its foot: neither fits.
 */
export function mrzFits(format: 'TD1' | 'TD2' | 'TD3', p: Placement): boolean {
  const width = p.right - p.left;
  const expected = (MRZ_CHARS[format] * 2.54 - 0.6) / SIZES[sizeOf(format)].width;
  const centre = (p.left + p.right) / 2;
  return Math.abs(width / expected - 1) <= 0.12 && Math.abs(centre - 0.5) <= 0.06 && p.top >= 0.6 && p.bottom >= 0.82 && p.bottom <= 1.01;
}

/**
 * Does a PDF417 barcode sit on a licence's back as AAMVA's card design standard lays it out: inside the card,
 * across most of its width (at least 45 %).
 */
export function barcodeFits(p: Placement): boolean {
  return p.left >= -0.01 && p.right <= 1.01 && p.top >= -0.01 && p.bottom <= 1.01 && p.right - p.left >= 0.45;
}

/**
 * ICAO 9303 zone V, the portrait, on the side that carries it: at the left of a TD3 data page (about 32 × 45 mm
 * below the header), of a TD1 or TD2 card's front, and of an AAMVA licence's front. Fractions of the flattened
 * side, with room for layouts that place it a little differently.
 */
export const PORTRAIT_ZONE: Record<DocumentSize, Placement> = {
  'ID-3': { left: 0, top: 0.05, right: 0.4, bottom: 0.72 },
  'ID-2': { left: 0, top: 0.08, right: 0.4, bottom: 0.75 },
  'ID-1': { left: 0, top: 0.1, right: 0.4, bottom: 0.95 },
};

/**
 * Where the printed (visual) data of a side is: right of the portrait, above the MRZ when the side has one (ICAO
 * zones I–IV; an AAMVA front the same way).
 */
export const PRINTED_ZONE: Record<DocumentSize, Placement> = {
  'ID-3': { left: 0.3, top: 0.06, right: 1, bottom: 0.7 },
  'ID-2': { left: 0.3, top: 0.12, right: 1, bottom: 0.72 },
  'ID-1': { left: 0.29, top: 0.13, right: 1, bottom: 1 },
};

/** A placement as a box of pixels of a `width` × `height` image. */
export function zoneBox(z: Placement, width: number, height: number): Box {
  return { left: Math.round(z.left * width), top: Math.round(z.top * height), width: Math.round((z.right - z.left) * width), height: Math.round((z.bottom - z.top) * height) };
}
