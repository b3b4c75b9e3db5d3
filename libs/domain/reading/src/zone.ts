
import { skewAngle } from './deskew.js';
import { mrzCandidates, textBars, type MrzCandidate } from './locate.js';
import { fitLines, parseMrz, type MrzParse } from './mrz.js';
import type { MrzOcr } from './ocr.js';
import { clampBox, greySharp, inkMask, resizeGrey, rotateGrey, type Box, type Grey } from './raster.js';

/** Width of the copy of a photo in which the zone is looked for. */
const SEARCH_WIDTH = 1000;
/** Gaps filled between ink in a row, as fractions of the width: one for small documents in the frame, one for large. */
const GAPS = [0.012, 0.025];
/** Character pitch, in pixels, that the zone is scaled to before OCR. */
const OCR_PITCH = 30;

/** A page, upright and straightened, with the places where a machine-readable zone may be. */
export interface Straightened {
  grey: Grey;
  angle: number;
  /** Candidates in `grey`'s pixels, best first. */
  candidates: MrzCandidate[];
}

/**
 * Straightens a page (the text lines' skew, up to ±20°) and finds the zone's candidates, both on a
 * 1000-pixel-wide copy; the returned page is the full-size one turned by the same angle.
 */
export async function straighten(page: Grey): Promise<Straightened> {
  const scale = Math.min(1, SEARCH_WIDTH / page.width);
  const small = scale < 1 ? await resizeGrey(page, SEARCH_WIDTH) : page;
  const angle = skewAngle(await inkMask(small, 6, 25), small);
  const [grey, smallStraight] = await Promise.all([rotateGrey(page, -angle), rotateGrey(small, -angle)]);
  const candidates = (await zoneCandidates(smallStraight)).map((c) => ({
    lines: c.lines.map((l) => ({ ...scaleBox(l, grey, smallStraight), fill: l.fill })),
    box: scaleBox(c.box, grey, smallStraight),
  }));
  return { grey, angle, candidates };
}

/** The zone's candidates in an upright page (at most 1000 pixels wide), in its pixels. */
export async function zoneCandidates(page: Grey): Promise<MrzCandidate[]> {
  const ink = await inkMask(page, 6, 25);
  // characters and chevrons are further apart on a larger document: two smears, the candidates of both
  const bars = GAPS.flatMap((g) => textBars(ink, page.width, page.height, Math.round(page.width * g)));
  return mrzCandidates(bars, page.width);
}

function scaleBox(b: Box, to: Grey, from: Grey): Box {
  const sx = to.width / from.width, sy = to.height / from.height;
  return { left: b.left * sx, top: b.top * sy, width: b.width * sx, height: b.height * sy };
}

/** Ways of preparing a zone's crop for OCR, tried in order until one reads with every check digit holding. */
export const PREPARATIONS = ['plain', 'sharpen', 'threshold'] as const;
export type Preparation = (typeof PREPARATIONS)[number];

/**
 * The zone of a candidate cut out with a margin, scaled to an OCR-friendly character pitch, as PNG. The
 * character count is taken from the line's length in line heights (30, 36 or 44 characters).
 */
export async function zoneImage(page: Grey, c: MrzCandidate, prep: Preparation): Promise<Buffer> {
  const lineH = c.lines.reduce((s, l) => s + l.height, 0) / c.lines.length;
  const ratio = c.box.width / lineH;
  const chars = c.lines.length === 3 ? 30 : ratio < 40 ? 36 : 44;
  const pitch = c.box.width / chars;
  const margin = { x: pitch * 1.5, y: lineH * 0.9 };
  const box = clampBox({ left: c.box.left - margin.x, top: c.box.top - margin.y, width: c.box.width + 2 * margin.x, height: c.box.height + 2 * margin.y }, page.width, page.height);
  let img = greySharp(page).extract(box).resize({ width: Math.round((box.width * OCR_PITCH) / pitch), kernel: 'lanczos3' }).normalise();
  if (prep === 'sharpen') img = img.sharpen({ sigma: 1.2 });
  if (prep === 'threshold') img = img.median(3).threshold(120);
  return img.png({ compressionLevel: 1 }).toBuffer();
}

/**
 * Reads the machine-readable zone of a straightened page: each candidate, each preparation, until a read holds
 * every check digit. The best failure is kept: a zone read the same way twice with a check digit wrong is
 * `check_digit_mismatch`, not `not_found`.
 */
export async function readZone(page: Straightened, ocr: MrzOcr, today: string): Promise<MrzParse> {
  let failure: MrzParse = { ok: false, why: 'not_found' };
  for (const c of page.candidates.slice(0, 2)) {
    for (const prep of PREPARATIONS) {
      const lines = await ocr.lines(await zoneImage(page.grey, c, prep));
      for (const fit of fitLines(lines)) {
        const parsed = parseMrz(fit, today);
        if (parsed.ok) return parsed;
        if (failure.why === 'not_found' || parsed.why === 'unsupported_document') failure = parsed;
      }
    }
  }
  return failure;
}

