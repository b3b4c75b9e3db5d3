import type { Box } from './raster.js';

/** A stretch of text found in an ink mask: its bounding box and how much of the box is ink. */
export interface TextBar extends Box {
  fill: number;
}

/** Two or three bars of the same length, aligned and evenly spaced: where a machine-readable zone can be. */
export interface MrzCandidate {
  lines: TextBar[];
  box: Box;
}

/**
 * The horizontal bars of text of an upright ink mask: gaps shorter than `gap` pixels within a row are filled
 * (so a line of characters becomes one bar) and the filled mask is cut into connected parts.
 */
export function textBars(ink: Uint8Array, width: number, height: number, gap: number): TextBar[] {
  const smeared = new Uint8Array(ink.length);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let last = -1;
    for (let x = 0; x < width; x++) {
      if (!ink[row + x]) continue;
      if (last >= 0 && x - last <= gap) smeared.fill(1, row + last, row + x + 1);
      else smeared[row + x] = 1;
      last = x;
    }
  }
  const seen = new Uint8Array(ink.length);
  const stack: number[] = [];
  const bars: TextBar[] = [];
  const visit = (q: number) => {
    if (smeared[q] && !seen[q]) {
      seen[q] = 1;
      stack.push(q);
    }
  };
  for (let start = 0; start < smeared.length; start++) {
    if (!smeared[start] || seen[start]) continue;
    let x0 = width, y0 = height, x1 = 0, y1 = 0, count = 0;
    seen[start] = 1;
    stack.push(start);
    while (stack.length) {
      const p = stack.pop()!;
      const x = p % width, y = (p - x) / width;
      count++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (x > 0) visit(p - 1);
      if (x < width - 1) visit(p + 1);
      if (y > 0) visit(p - width);
      if (y < height - 1) visit(p + width);
    }
    const w = x1 - x0 + 1, h = y1 - y0 + 1;
    bars.push({ left: x0, top: y0, width: w, height: h, fill: count / (w * h) });
  }
  return bars;
}

/**
 * Groups of two or three long, dense, equally long, left-aligned and evenly spaced bars: the shapes of TD1
 * (three lines) and TD2/TD3 (two lines) zones. Best first: more lines, then longer ones, then lower on the
 * image (the zone is at the foot of the page).
 */
export function mrzCandidates(bars: TextBar[], width: number): MrzCandidate[] {
  const lines = bars
    .filter((b) => b.width >= width * 0.18 && b.width >= b.height * 12 && b.fill >= 0.4)
    .sort((a, b) => a.top - b.top);
  const groups: MrzCandidate[] = [];
  for (let i = 0; i < lines.length; i++) {
    const chain = [lines[i]];
    for (let j = i + 1; j < lines.length && chain.length < 3; j++) {
      const prev = chain[chain.length - 1];
      const b = lines[j];
      const h = (prev.height + b.height) / 2;
      const pitch = b.top - prev.top;
      const sameLength = Math.abs(b.width - chain[0].width) <= chain[0].width * 0.1;
      const aligned = Math.abs(b.left - chain[0].left) <= chain[0].width * 0.06;
      const spaced = pitch >= h * 1.1 && pitch <= h * 4;
      const even = chain.length < 2 || Math.abs(pitch - (chain[1].top - chain[0].top)) <= h * 0.6;
      if (sameLength && aligned && spaced && even) chain.push(b);
      else if (b.top > prev.top + prev.height * 5) break;
    }
    if (chain.length >= 2) groups.push({ lines: chain, box: union(chain) });
  }
  return groups.sort((a, b) => b.lines.length - a.lines.length || b.box.width - a.box.width || b.box.top - a.box.top);
}

function union(bs: Box[]): Box {
  const left = Math.min(...bs.map((b) => b.left));
  const top = Math.min(...bs.map((b) => b.top));
  const right = Math.max(...bs.map((b) => b.left + b.width));
  const bottom = Math.max(...bs.map((b) => b.top + b.height));
  return { left, top, width: right - left, height: bottom - top };
}
