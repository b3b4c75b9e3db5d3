import sharp from 'sharp';

/** How a phone would have photographed a document. Every field has a mild default. */
export interface PhotoOptions {
  /** Frame size in pixels (default 4000 × 3000: a 12 MP phone photo). */
  width?: number;
  height?: number;
  /** How much of the frame's width the document covers (default 0.7). */
  coverage?: number;
  /** Rotation of the document in the frame, degrees (default 0). */
  rotation?: number;
  /** Keystone: how far the corners move towards each other, as a fraction of the document (0 to 0.1; default 0.02). */
  perspective?: number;
  /**
   * Sideways tilt: how far the right side's corners move towards each other, as a fraction of the document's
   * height (0 to 0.1; default 0). With `perspective`, the document is seen at a slant both ways, as a phone held
   * at an angle sees it.
   */
  tilt?: number;
  /** Gaussian blur sigma in pixels of the frame (default 0: none). */
  blur?: number;
  /** Sensor noise: standard deviation in grey levels (default 4). */
  noise?: number;
  /** Uneven light: how much darker the dark side is, 0 to 0.6 (default 0.2). */
  light?: number;
  /** JPEG quality (default 85). */
  quality?: number;
  /**
   * EXIF orientation to store: the pixels are turned the other way, so that only a reader applying the tag sees
   * the document upright (1, 3, 6 or 8; default 1).
   */
  exifOrientation?: 1 | 3 | 6 | 8;
  /** Seed of the random choices (offset in the frame, background grain, noise, light direction). */
  seed?: number;
}

/** A small seeded generator (mulberry32): the same options always make the same photo. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Point = [number, number];

/** The homography taking the unit square's corners (0,0) (1,0) (1,1) (0,1) to `q`. */
function squareToQuad(q: Point[]): number[] {
  const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = q;
  const dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2;
  const sx = x0 - x1 + x2 - x3, sy = y0 - y1 + y2 - y3;
  const det = dx1 * dy2 - dx2 * dy1;
  const g = (sx * dy2 - dx2 * sy) / det;
  const h = (dx1 * sy - sx * dy1) / det;
  return [x1 - x0 + g * x1, x3 - x0 + h * x3, x0, y1 - y0 + g * y1, y3 - y0 + h * y3, y0, g, h, 1];
}

function invert3(m: number[]): number[] {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [A / det, -(b * i - c * h) / det, (b * f - c * e) / det, B / det, (a * i - c * g) / det, -(a * f - c * d) / det, C / det, -(a * h - b * g) / det, (a * e - b * d) / det];
}

/**
 * Photographs a rendered document page as a phone would: placed on a desk, turned, seen at a slight angle,
 * under uneven light, with sensor noise, optional blur, JPEG-compressed, optionally stored with an EXIF
 * orientation. Returns the JPEG.
 */
export async function photograph(page: Buffer, o: PhotoOptions = {}): Promise<Buffer> {
  const W = o.width ?? 4000;
  const H = o.height ?? 3000;
  const rnd = random(o.seed ?? 1);
  const doc = await sharp(page).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const dw = doc.info.width, dh = doc.info.height, src = doc.data;

  // where the document lands: turned by `rotation`, its far edge shortened by `perspective`
  const docW = W * (o.coverage ?? 0.7);
  const docH = (docW * dh) / dw;
  const rad = ((o.rotation ?? 0) * Math.PI) / 180;
  const cx = W / 2 + (rnd() - 0.5) * W * 0.08;
  const cy = H / 2 + (rnd() - 0.5) * H * 0.08;
  const k = o.perspective ?? 0.02;
  const t = o.tilt ?? 0;
  const corners: Point[] = [
    [-docW / 2 + docW * k, -docH / 2],
    [docW / 2 - docW * k, -docH / 2 + docH * t],
    [docW / 2, docH / 2 - docH * t],
    [-docW / 2, docH / 2],
  ].map(([x, y]) => [cx + x * Math.cos(rad) - y * Math.sin(rad), cy + x * Math.sin(rad) + y * Math.cos(rad)]);
  const toFrame = squareToQuad(corners);
  const toUnit = invert3(toFrame);

  // the desk: a warm colour with low-frequency grain
  const out = Buffer.allocUnsafe(W * H * 3);
  const base = [140 + rnd() * 40, 110 + rnd() * 30, 80 + rnd() * 25];
  const phase = rnd() * 10;
  const lightAngle = rnd() * Math.PI * 2;
  const lx = Math.cos(lightAngle), ly = Math.sin(lightAngle);
  const light = o.light ?? 0.2;
  const noise = o.noise ?? 4;
  const half = Math.hypot(W, H) / 2;
  let seed = (o.seed ?? 1) * 2654435761;
  const xs = Math.min(...corners.map((c) => c[0])), xe = Math.max(...corners.map((c) => c[0]));
  const ys = Math.min(...corners.map((c) => c[1])), ye = Math.max(...corners.map((c) => c[1]));

  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const grain = 12 * Math.sin(y / 23 + phase + Math.sin(x / 310) * 3);
      let r = base[0] + grain, g = base[1] + grain * 0.8, b = base[2] + grain * 0.6;
      if (x >= xs && x <= xe && y >= ys && y <= ye) {
        const w = toUnit[6] * x + toUnit[7] * y + toUnit[8];
        const u = (toUnit[0] * x + toUnit[1] * y + toUnit[2]) / w;
        const v = (toUnit[3] * x + toUnit[4] * y + toUnit[5]) / w;
        if (u >= 0 && u < 1 && v >= 0 && v < 1) {
          // bilinear sample of the page
          const sx = u * (dw - 1), sy = v * (dh - 1);
          const x0 = sx | 0, y0 = sy | 0, fx = sx - x0, fy = sy - y0;
          const x1 = Math.min(x0 + 1, dw - 1), y1 = Math.min(y0 + 1, dh - 1);
          const i00 = (y0 * dw + x0) * 4, i10 = (y0 * dw + x1) * 4, i01 = (y1 * dw + x0) * 4, i11 = (y1 * dw + x1) * 4;
          const s = (c: number) => (src[i00 + c] * (1 - fx) + src[i10 + c] * fx) * (1 - fy) + (src[i01 + c] * (1 - fx) + src[i11 + c] * fx) * fy;
          const a = s(3) / 255;
          r = r * (1 - a) + s(0) * a;
          g = g * (1 - a) + s(1) * a;
          b = b * (1 - a) + s(2) * a;
        }
      }
      // uneven light along a random direction, and sensor noise
      const t = ((x - W / 2) * lx + (y - H / 2) * ly) / half; // -1..1
      const shade = 1 - light * (t + 1) / 2;
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      const n = noise ? (((seed >>> 0) / 4294967296) + ((seed >>> 8 & 0xffff) / 65536) - 1) * noise * 1.7 : 0;
      const i = (y * W + x) * 3;
      out[i] = clamp(r * shade + n);
      out[i + 1] = clamp(g * shade + n);
      out[i + 2] = clamp(b * shade + n);
    }
  }

  let img = sharp(out, { raw: { width: W, height: H, channels: 3 } });
  if (o.blur && o.blur >= 0.3) img = img.blur(o.blur);
  const orientation = o.exifOrientation ?? 1;
  if (orientation !== 1) {
    // store the pixels turned back, and the tag that turns them upright again
    const turn = { 3: 180, 6: -90, 8: 90 }[orientation];
    const turned = await img.jpeg({ quality: 98 }).toBuffer();
    return sharp(turned).rotate(turn).withMetadata({ orientation }).jpeg({ quality: o.quality ?? 85 }).toBuffer();
  }
  return img.jpeg({ quality: o.quality ?? 85 }).toBuffer();
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}
