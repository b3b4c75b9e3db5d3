import type { Cv } from './opencv.js';
import type { Grey } from './raster.js';

export type Point = [x: number, y: number];

/** A document's corners in some image's pixels: its top left, top right, bottom right, bottom left. */
export type Quad = [Point, Point, Point, Point];

/** Where the lines through a1–a2 and b1–b2 cross, or null when they are (nearly) parallel. */
export function intersect(a1: Point, a2: Point, b1: Point, b2: Point): Point | null {
  const d = (a1[0] - a2[0]) * (b1[1] - b2[1]) - (a1[1] - a2[1]) * (b1[0] - b2[0]);
  if (Math.abs(d) < 1e-9) return null;
  const a = a1[0] * a2[1] - a1[1] * a2[0];
  const b = b1[0] * b2[1] - b1[1] * b2[0];
  return [(a * (b1[0] - b2[0]) - (a1[0] - a2[0]) * b) / d, (a * (b1[1] - b2[1]) - (a1[1] - a2[1]) * b) / d];
}

const dist = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);

/** Twice the signed area of a polygon (positive when its points run clockwise on an image, y pointing down). */
function signedArea2(ps: Point[]): number {
  let s = 0;
  for (let i = 0; i < ps.length; i++) {
    const [x1, y1] = ps[i];
    const [x2, y2] = ps[(i + 1) % ps.length];
    s += x1 * y2 - x2 * y1;
  }
  return s;
}

export function quadArea(q: Quad): number {
  return Math.abs(signedArea2(q)) / 2;
}

/**
 * Four corners in the order of a quadrilateral's outline (either way round) as a `Quad`: clockwise, starting at
 * the corner whose next side runs closest to left-to-right, so that the top side is the one nearest to level.
 */
export function orderQuad(corners: Point[]): Quad {
  const ps = signedArea2(corners) < 0 ? [...corners].reverse() : [...corners];
  let best = 0;
  let bestCos = -2;
  for (let i = 0; i < 4; i++) {
    const [a, b] = [ps[i], ps[(i + 1) % 4]];
    const cos = (b[0] - a[0]) / (dist(a, b) || 1);
    if (cos > bestCos) {
      bestCos = cos;
      best = i;
    }
  }
  return [0, 1, 2, 3].map((k) => ps[(best + k) % 4]) as Quad;
}

/** The same quadrilateral seen turned half a turn: its bottom right becomes its top left. */
export function turnQuad(q: Quad): Quad {
  return [q[2], q[3], q[0], q[1]];
}

/**
 * The size of what a quadrilateral outlines, from its longer top or bottom side and its longer left or right
 * side: seen at a slant, the side nearer the camera is the one closest to true scale.
 */
export function quadSize(q: Quad): { width: number; height: number } {
  return { width: Math.max(dist(q[0], q[1]), dist(q[3], q[2])), height: Math.max(dist(q[0], q[3]), dist(q[1], q[2])) };
}

/** Is the quadrilateral convex, with every corner between 55° and 125°? A flat card seen at a slant is. */
export function plausibleQuad(q: Quad): boolean {
  let sign = 0;
  for (let i = 0; i < 4; i++) {
    const [a, b, c] = [q[i], q[(i + 1) % 4], q[(i + 2) % 4]];
    const cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
    if (sign === 0) sign = Math.sign(cross);
    else if (Math.sign(cross) !== sign) return false;
    const u = [a[0] - b[0], a[1] - b[1]], v = [c[0] - b[0], c[1] - b[1]];
    const cos = (u[0] * v[0] + u[1] * v[1]) / (Math.hypot(u[0], u[1]) * Math.hypot(v[0], v[1]) || 1);
    const deg = (Math.acos(Math.max(-1, Math.min(1, cos))) * 180) / Math.PI;
    if (deg < 55 || deg > 125) return false;
  }
  return true;
}

/**
 * The quadrilateral of a simplified outline (a polygon, in order) of something that may run off the image: sides
 * lying along the image's border are where the frame cut it, not its edges, so they are dropped, and when four
 * sides remain their lines are crossed to give the corners (a corner cut off by the frame lands outside the
 * image). Null when the outline does not come down to four sides.
 */
export function quadFromPolygon(poly: Point[], width: number, height: number, margin = 3): Quad | null {
  const onBorder = (a: Point, b: Point) =>
    (a[0] <= margin && b[0] <= margin) ||
    (a[1] <= margin && b[1] <= margin) ||
    (a[0] >= width - 1 - margin && b[0] >= width - 1 - margin) ||
    (a[1] >= height - 1 - margin && b[1] >= height - 1 - margin);
  const sides: [Point, Point][] = [];
  for (let i = 0; i < poly.length; i++) {
    const a = poly[i], b = poly[(i + 1) % poly.length];
    if (!onBorder(a, b)) sides.push([a, b]);
  }
  if (poly.length === 4 && sides.length === 4) return orderQuad(poly);
  if (sides.length !== 4) return null;
  const corners: Point[] = [];
  for (let i = 0; i < 4; i++) {
    const p = intersect(sides[(i + 3) % 4][0], sides[(i + 3) % 4][1], sides[i][0], sides[i][1]);
    if (!p) return null;
    corners.push(p);
  }
  return orderQuad(corners);
}

/** Width of the copy the outline is looked for in. */
const OUTLINE_WIDTH = 800;

/**
 * The outline of the document in a photo: the largest convex four-sided shape whose edges stand out from what
 * it lies on (Canny edges of a smoothed copy, closed, their outer contours, each contour's convex hull
 * simplified), covering at least `minShare` of the frame. Corners in `g`'s pixels; null when there is none.
 */
export function findOutline(cv: Cv, g: Grey, minShare = 0.06): Quad | null {
  const scale = Math.min(1, OUTLINE_WIDTH / g.width);
  const src = cv.matFromArray(g.height, g.width, cv.CV_8UC1, g.data as unknown as number[]);
  const small = new cv.Mat();
  const edges = new cv.Mat();
  const contours = new cv.MatVector();
  const hierarchy = new cv.Mat();
  const kernel = cv.Mat.ones(3, 3, cv.CV_8U);
  try {
    cv.resize(src, small, new cv.Size(Math.round(g.width * scale), Math.round(g.height * scale)), 0, 0, cv.INTER_AREA);
    cv.GaussianBlur(small, small, new cv.Size(5, 5), 0);
    cv.Canny(small, edges, 30, 90);
    cv.dilate(edges, edges, kernel, new cv.Point(-1, -1), 2);
    cv.findContours(edges, contours, hierarchy, cv.RETR_EXTERNAL, cv.CHAIN_APPROX_SIMPLE);
    const w = small.cols, h = small.rows;
    const found: { quad: Quad; area: number }[] = [];
    const consider = (points: InstanceType<Cv['Mat']>) => {
      const hull = new cv.Mat();
      const poly = new cv.Mat();
      try {
        cv.convexHull(points, hull, false, true);
        // an outline cut by the frame is an open line, of no area itself: its hull is what it outlines
        if (cv.contourArea(hull) < w * h * minShare) return;
        cv.approxPolyDP(hull, poly, cv.arcLength(hull, true) * 0.02, true);
        const pts: Point[] = [];
        for (let k = 0; k < poly.rows; k++) pts.push([poly.data32S[k * 2], poly.data32S[k * 2 + 1]]);
        const quad = pts.length >= 4 && pts.length <= 8 ? quadFromPolygon(pts, w, h) : null;
        if (quad && plausibleQuad(quad)) found.push({ quad, area: quadArea(quad) });
      } finally {
        hull.delete();
        poly.delete();
      }
    };
    const all: number[] = [];
    for (let i = 0; i < contours.size(); i++) {
      const c = contours.get(i);
      consider(c);
      // an outline the frame cuts in two is two contours: their points together, with every other long one
      if (c.rows >= 8 && cv.arcLength(c, false) > (w + h) * 0.05) all.push(...c.data32S);
      c.delete();
    }
    if (all.length >= 8) {
      const together = cv.matFromArray(all.length / 2, 1, cv.CV_32SC2, all);
      consider(together);
      together.delete();
    }
    found.sort((a, b) => b.area - a.area);
    return found.length ? (found[0].quad.map(([x, y]) => [x / scale, y / scale]) as Quad) : null;
  } finally {
    for (const m of [src, small, edges, hierarchy, kernel]) m.delete();
    contours.delete();
  }
}

/**
 * The part of an image inside `quad`, its perspective undone: `width` × `height` pixels, the quad's top left at
 * the top left. `channels` is 1 (grey) or 3 (RGB, interleaved). Where the quad runs off the image, white.
 */
export function flatten(cv: Cv, image: { data: Uint8Array; width: number; height: number; channels: 1 | 3 }, quad: Quad, width: number, height: number): Uint8Array {
  const type = image.channels === 1 ? cv.CV_8UC1 : cv.CV_8UC3;
  const src = cv.matFromArray(image.height, image.width, type, image.data as unknown as number[]);
  const dst = new cv.Mat();
  const from = cv.matFromArray(4, 1, cv.CV_32FC2, quad.flat());
  const to = cv.matFromArray(4, 1, cv.CV_32FC2, [0, 0, width, 0, width, height, 0, height]);
  const m = cv.getPerspectiveTransform(from, to);
  try {
    cv.warpPerspective(src, dst, m, new cv.Size(width, height), cv.INTER_LINEAR, cv.BORDER_CONSTANT, new cv.Scalar(255, 255, 255, 255));
    return new Uint8Array(dst.data);
  } finally {
    for (const x of [src, dst, from, to, m]) x.delete();
  }
}
