import type { Grey } from './raster.js';

/** The reader straightens documents turned up to this many degrees either way in the frame. */
export const MAX_SKEW_DEGREES = 20;

/**
 * The angle (degrees, clockwise) by which the text lines of `g` are turned, found with a projection profile:
 * for each candidate angle the ink points are projected onto the axis across the lines, and the angle whose
 * histogram has the sharpest row-to-row changes (lines and the gaps between them) wins. Coarse steps of 0.5°
 * over ±20°, then 0.1° around the best. `ink` marks the ink pixels of `g`.
 */
export function skewAngle(ink: Uint8Array, g: Pick<Grey, 'width' | 'height'>): number {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < g.height; y++) {
    const row = y * g.width;
    for (let x = 0; x < g.width; x++) {
      if (ink[row + x]) {
        xs.push(x);
        ys.push(y);
      }
    }
  }
  if (xs.length < 50) return 0;
  const span = Math.ceil(Math.hypot(g.width, g.height)) + 2;
  const hist = new Float64Array(span * 2);

  const score = (degrees: number): number => {
    const r = (degrees * Math.PI) / 180;
    const c = Math.cos(r), s = Math.sin(r);
    hist.fill(0);
    for (let i = 0; i < xs.length; i++) hist[(ys[i] * c - xs[i] * s + span) | 0]++;
    let sum = 0;
    for (let i = 1; i < hist.length; i++) {
      const d = hist[i] - hist[i - 1];
      sum += d * d;
    }
    return sum;
  };

  let best = 0;
  let bestScore = -1;
  for (let a = -MAX_SKEW_DEGREES; a <= MAX_SKEW_DEGREES; a += 0.5) {
    const sc = score(a);
    if (sc > bestScore) [best, bestScore] = [a, sc];
  }
  const coarse = best;
  for (let a = coarse - 0.4; a <= coarse + 0.41; a += 0.1) {
    const sc = score(a);
    if (sc > bestScore) [best, bestScore] = [a, sc];
  }
  return Math.round(best * 10) / 10;
}
