/**
 * Measures of a face from its mesh and pixels, with no engine: the face aligned on its eyes, how open the eyes
 * are, how sharp it is, how alike two aligned faces are as images, and a perceptual fingerprint. Pure functions
 * over plain arrays (docs/reading.md, "Faces").
 */

/** A landmark of Human's face mesh: x and y in the image's pixels, z in the same scale (depth). */
export type Point3 = [number, number, number] | number[];

/** Side of the aligned face crop, in pixels. */
export const ALIGNED_SIDE = 160;
/** Where the eye centres land in the aligned crop, as fractions of its side. */
const EYE_Y = 0.38;
const EYE_X = [0.3, 0.7] as const;

// Face mesh landmarks (MediaPipe's 468-point topology): the eyes' corners and lids.
const EYE_A = { outer: 33, inner: 133, upper: [160, 158], lower: [144, 153] };
const EYE_B = { outer: 263, inner: 362, upper: [385, 387], lower: [380, 373] };

const dist = (p: Point3, q: Point3) => Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!);
const mid = (p: Point3, q: Point3): [number, number] => [(p[0]! + q[0]!) / 2, (p[1]! + q[1]!) / 2];

/** Eyelid gap over eye width (the eye aspect ratio) of the less open eye. */
export function eyeOpenness(mesh: readonly Point3[]): number {
  const ratio = (e: typeof EYE_A) => (dist(mesh[e.upper[0]!]!, mesh[e.lower[0]!]!) + dist(mesh[e.upper[1]!]!, mesh[e.lower[1]!]!)) / (2 * Math.max(1e-6, dist(mesh[e.outer]!, mesh[e.inner]!)));
  return Math.min(ratio(EYE_A), ratio(EYE_B));
}

/** The two eye centres (corner to corner), in image pixels, the one on the image's left first. */
export function eyeCentres(mesh: readonly Point3[]): [[number, number], [number, number]] {
  const a = mid(mesh[EYE_A.outer]!, mesh[EYE_A.inner]!);
  const b = mid(mesh[EYE_B.outer]!, mesh[EYE_B.inner]!);
  return a[0] <= b[0] ? [a, b] : [b, a];
}

/**
 * The face cut from a grey image (`width` × `height`, row-major) and resampled so that its eyes sit at fixed
 * places of an `ALIGNED_SIDE` square: turned upright, scaled to one inter-eye distance. Each output pixel averages
 * the source pixels under it (no aliasing when a large face is made small).
 */
export function alignFace(grey: Float32Array, width: number, height: number, mesh: readonly Point3[]): Float32Array {
  const [l, r] = eyeCentres(mesh);
  const S = ALIGNED_SIDE;
  const dx = r[0] - l[0];
  const dy = r[1] - l[1];
  const eyes = Math.max(1e-6, Math.hypot(dx, dy));
  const k = eyes / ((EYE_X[1] - EYE_X[0]) * S); // source pixels per output pixel
  const cos = dx / eyes;
  const sin = dy / eyes;
  const n = Math.max(1, Math.min(4, Math.ceil(k)));
  const out = new Float32Array(S * S);
  const sample = (x: number, y: number): number => {
    const xc = Math.min(width - 1.001, Math.max(0, x));
    const yc = Math.min(height - 1.001, Math.max(0, y));
    const x0 = Math.floor(xc);
    const y0 = Math.floor(yc);
    const ax = xc - x0;
    const ay = yc - y0;
    const i = y0 * width + x0;
    return (grey[i]! * (1 - ax) + grey[i + 1]! * ax) * (1 - ay) + (grey[i + width]! * (1 - ax) + grey[i + width + 1]! * ax) * ay;
  };
  for (let v = 0; v < S; v++) {
    for (let u = 0; u < S; u++) {
      let sum = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const ou = (u + (sx + 0.5) / n - 0.5 - EYE_X[0] * S) * k;
          const ov = (v + (sy + 0.5) / n - 0.5 - EYE_Y * S) * k;
          sum += sample(l[0] + ou * cos - ov * sin, l[1] + ou * sin + ov * cos);
        }
      }
      out[v * S + u] = sum / (n * n);
    }
  }
  return out;
}

/**
 * How sharp a square image is: the variance of its 4-neighbour Laplacian (the finest detail) over the variance of
 * its pixels (its contrast), × 1000, over the inside of the image. Blur lowers it whatever the light; a face
 * made small enough for the comparison keeps what detail it had.
 */
export function laplacianVariance(img: Float32Array, side: number): number {
  let sum = 0;
  let sq = 0;
  let px = 0;
  let pxSq = 0;
  let count = 0;
  const m = Math.round(side * 0.15);
  for (let y = m; y < side - m; y++) {
    for (let x = m; x < side - m; x++) {
      const i = y * side + x;
      const l = img[i - 1]! + img[i + 1]! + img[i - side]! + img[i + side]! - 4 * img[i]!;
      sum += l;
      sq += l * l;
      px += img[i]!;
      pxSq += img[i]! * img[i]!;
      count++;
    }
  }
  const lap = sq / count - (sum / count) ** 2;
  const contrast = pxSq / count - (px / count) ** 2;
  return contrast > 0 ? (1000 * lap) / contrast : 0;
}

/** The aligned crop seen in a mirror. */
export function mirrored(img: Float32Array, side = ALIGNED_SIDE): Float32Array {
  const out = new Float32Array(img.length);
  for (let y = 0; y < side; y++) for (let x = 0; x < side; x++) out[y * side + x] = img[y * side + side - 1 - x]!;
  return out;
}

/** Fine detail of a square image: a light blur (JPEG blocks, print dots, moiré) minus a wider one (light and shade). */
export function detail(img: Float32Array, side: number): Float32Array {
  const fine = boxBlur(img, side, 1);
  const coarse = boxBlur(fine, side, 6);
  const out = new Float32Array(img.length);
  for (let i = 0; i < out.length; i++) out[i] = fine[i]! - coarse[i]!;
  return out;
}

/** Normalized cross-correlation of `a` and `b` shifted by (dx, dy), over the square [x0, x0 + size) × [y0, y0 + size), from −1 to 1. */
function correlationAt(a: Float32Array, b: Float32Array, side: number, x0: number, y0: number, size: number, dx: number, dy: number): number {
  let n = 0;
  let sa = 0;
  let sb = 0;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let y = y0; y < y0 + size; y++) {
    const yb = y + dy;
    if (yb < 0 || yb >= side) continue;
    for (let x = x0; x < x0 + size; x++) {
      const xb = x + dx;
      if (xb < 0 || xb >= side) continue;
      const va = a[y * side + x]!;
      const vb = b[yb * side + xb]!;
      n++;
      sa += va;
      sb += vb;
      ab += va * vb;
      aa += va * va;
      bb += vb * vb;
    }
  }
  const cov = ab - (sa * sb) / n;
  const va = aa - (sa * sa) / n;
  const vb = bb - (sb * sb) / n;
  return va > 0 && vb > 0 ? cov / Math.sqrt(va * vb) : 0;
}

/** How far (pixels of the aligned crop) each patch looks for its best overlap, for landmarks placed a little off. */
const SHIFT = 3;
/** The patches compared: a 4 × 4 grid of 30-pixel squares over the face, brow to chin, cheek to cheek. */
const PATCH = 30;
const PATCHES: [number, number][] = (() => {
  const out: [number, number][] = [];
  for (let j = 0; j < 4; j++) for (let i = 0; i < 4; i++) out.push([20 + i * PATCH, 38 + j * PATCH]);
  return out;
})();

/**
 * How alike two aligned faces are as pictures (not as people), from −1 to 1. The face is cut into 16 patches; in
 * each, the fine detail of `a` and `b` is correlated at its best overlap within a few pixels; the answer is the
 * fourth-lowest of the 16, for `b` as it is or mirrored, whichever is higher. The same photograph, re-cropped,
 * rescaled, re-encoded, brightened or re-photographed, keeps its detail where it was in every part of the face;
 * another photograph of the same person does not (another moment, another light, another pose or expression), not
 * even where the eyes, which the alignment puts in the same place, look alike.
 */
export function pictureSimilarity(a: Float32Array, b: Float32Array): number {
  const S = ALIGNED_SIDE;
  [a, b] = sameSharpness(a, b);
  const da = detail(a, S);
  let best = -1;
  for (const other of [b, mirrored(b)]) {
    const db = detail(other, S);
    const scores = PATCHES.map(([x0, y0]) => {
      let m = -1;
      for (let dy = -SHIFT; dy <= SHIFT; dy++) for (let dx = -SHIFT; dx <= SHIFT; dx++) m = Math.max(m, correlationAt(da, db, S, x0, y0, PATCH, dx, dy));
      return m;
    }).sort((x, y) => x - y);
    best = Math.max(best, scores[3]!);
  }
  return best;
}

/**
 * The two aligned faces at one sharpness: the sharper one blurred until it is no sharper than the other (a copy may
 * have been blurred, or photographed out of focus; what is compared is the detail both still have).
 */
export function sameSharpness(a: Float32Array, b: Float32Array): [Float32Array, Float32Array] {
  const S = ALIGNED_SIDE;
  const sa = laplacianVariance(a, S);
  const sb = laplacianVariance(b, S);
  const [sharper, softer, target] = sa > sb ? [a, b, sb] : [b, a, sa];
  let blurred = sharper;
  for (let r = 1; r <= 4 && laplacianVariance(blurred, S) > target * 1.2; r++) blurred = boxBlur(sharper, S, r);
  return sa > sb ? [blurred, softer] : [softer, blurred];
}

/** A box blur of radius `r` (separable, edges clamped). */
export function boxBlur(img: Float32Array, side: number, r: number): Float32Array {
  const tmp = new Float32Array(img.length);
  const out = new Float32Array(img.length);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      let s = 0;
      for (let i = -r; i <= r; i++) s += img[y * side + Math.min(side - 1, Math.max(0, x + i))]!;
      tmp[y * side + x] = s / (2 * r + 1);
    }
  }
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      let s = 0;
      for (let i = -r; i <= r; i++) s += tmp[Math.min(side - 1, Math.max(0, y + i)) * side + x]!;
      out[y * side + x] = s / (2 * r + 1);
    }
  }
  return out;
}

/** Mean absolute difference of two aligned crops, in grey levels (0 for the same pixels). */
export function meanAbsoluteDifference(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i]! - b[i]!);
  return s / a.length;
}

/** Side of the grey thumbnail a picture fingerprint is computed from. */
export const FINGERPRINT_SIDE = 32;

/**
 * A 64-bit perceptual hash (16 hex digits) of a whole picture, given as a `FINGERPRINT_SIDE`-square grey
 * thumbnail: the picture is made symmetric (itself plus its mirror, so that a mirrored copy hashes the same), and
 * the signs, against their median, of 64 low frequencies of its cosine transform (8 rows × the 8 even columns, the
 * only ones a symmetric picture has) are its bits. The same picture re-encoded, rescaled, mirrored or lit
 * differently hashes within a few bits; another picture, about half of them apart. It identifies a picture, not a
 * person, and cannot be turned back into one. Compare with `hammingDistance`.
 */
export function pictureFingerprint(thumbnail: Float32Array | Uint8Array): string {
  const N = FINGERPRINT_SIDE;
  if (thumbnail.length !== N * N) throw new Error(`a fingerprint is computed from a ${N} × ${N} thumbnail`);
  const px = new Float64Array(N * N);
  for (let y = 0; y < N; y++) for (let x = 0; x < N; x++) px[y * N + x] = thumbnail[y * N + x]! + thumbnail[y * N + (N - 1 - x)]!;
  const cosines = (k: number) => Array.from({ length: N }, (_, n) => Math.cos(((2 * n + 1) * k * Math.PI) / (2 * N)));
  const rows = Array.from({ length: 8 }, (_, v) => cosines(v));
  const cols = Array.from({ length: 8 }, (_, i) => cosines(2 * i));
  const coef: number[] = [];
  for (let v = 0; v < 8; v++) {
    for (let i = 0; i < 8; i++) {
      let s = 0;
      for (let y = 0; y < N; y++) {
        const cy = rows[v]![y]!;
        for (let x = 0; x < N; x++) s += px[y * N + x]! * cy * cols[i]![x]!;
      }
      coef.push(s);
    }
  }
  const rest = coef.slice(1).sort((a, b) => a - b); // the mean (DC) says only how bright the picture is
  const median = rest[Math.floor(rest.length / 2)]!;
  let hex = '';
  for (let nib = 0; nib < 16; nib++) {
    let d = 0;
    for (let b = 0; b < 4; b++) d = (d << 1) | (coef[nib * 4 + b]! > median ? 1 : 0);
    hex += d.toString(16);
  }
  return hex;
}

/** Bits that differ between two fingerprints of `pictureFingerprint` (0 to 64). */
export function hammingDistance(a: string, b: string): number {
  if (!/^[0-9a-f]{16}$/.test(a) || !/^[0-9a-f]{16}$/.test(b)) throw new Error('a picture fingerprint is 16 hex digits');
  let n = 0;
  for (let i = 0; i < 16; i++) {
    let x = parseInt(a[i]!, 16) ^ parseInt(b[i]!, 16);
    while (x) {
      n += x & 1;
      x >>= 1;
    }
  }
  return n;
}
