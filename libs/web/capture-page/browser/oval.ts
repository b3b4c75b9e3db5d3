/**
 * The selfie's face guide, its measures (docs/capture.md "The face guide"): where the face found in the camera's
 * picture sits against the oval the page draws, what to tell the applicant, and when the shutter may be used. Pure:
 * no DOM, no clock of its own; face.ts feeds it boxes and times, and src/oval.spec.ts tests it under node:test.
 * Boxes are in the camera picture's pixels.
 */
import type { Rect } from './analysis.js';

/** Where a face is against the oval, from one look. */
export type FaceFit = 'no_face' | 'outside' | 'too_far' | 'too_close' | 'inside';
/** What the guide says after a look: a fit, or inside and holding still (`steady`), or long enough for a photo (`ready`). */
export type GuideState = Exclude<FaceFit, 'inside'> | 'steady' | 'ready';

export const OVAL_FIT = {
  /**
   * The face box's centre may be this far from the oval's centre, as a share of the oval's width (across) and
   * height (up and down): an ellipse of tolerance.
   */
  centre: 0.18,
  /** The face box may reach this far past the oval's bounding box, as a share of the oval's width. */
  margin: 0.06,
  /**
   * The face box's width over the oval's. Under `minWidth` the face is too far: at 0.45 of the oval, the face is
   * still over 0.3 of a portrait picture's width and over 0.2 of a landscape one's height, the region's
   * `FACE_MIN_SIZE`. Over `maxWidth` it is too close (the head no longer fits the oval).
   */
  minWidth: 0.45,
  maxWidth: 0.95,
  /** Between two looks, a centre moving less than this share of the oval's width, and a width changing by less than `steadySize`, is holding still. */
  steadyMove: 0.05,
  steadySize: 0.1,
  /** How long the face holds still inside the oval before the shutter is enabled, in milliseconds. */
  steadyMs: 600,
  /** Looks in a row that find the face out of the oval before a ready shutter is disabled again (one look is noise). */
  dropAfter: 2,
} as const;

/** The face guide's timing, in milliseconds. */
export const GUIDE_TIMING = {
  /** A look at the camera at most this often. */
  lookEveryMs: 250,
  /** The detector not ready this long after the camera is: the step goes on without the guide (the shutter works). */
  loadMs: 10_000,
  /** One look taking longer than this: the device is too slow for the guide; the step goes on without it. */
  slowLookMs: 2_000,
  /**
   * After this long on the step without the shutter becoming ready, it is enabled anyway (the words stay): a face
   * the detector cannot see must not lock its person out. The region's checks still judge the photo.
   */
  giveUpMs: 30_000,
} as const;

/** Whether the shutter may be used: the face is ready, or the guide has held it back for `giveUpMs` already. */
export function shutterEnabled(state: GuideState, elapsedMs: number, timing = GUIDE_TIMING): boolean {
  return state === 'ready' || elapsedMs >= timing.giveUpMs;
}

/** The guide's words, shown over the camera and said by the status region. */
export const GUIDE_WORDS: Record<GuideState, string> = {
  no_face: 'Move your face into the oval',
  outside: 'Move your face into the oval',
  too_far: 'Move closer',
  too_close: 'Move back',
  steady: 'Hold still',
  ready: 'Hold still and take the photo',
};

const centreOf = (r: Rect) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });

/** Where `face` (null: none found) sits against `oval`, from one look. */
export function fitFace(face: Rect | null, oval: Rect, fit = OVAL_FIT): FaceFit {
  if (!face || face.width <= 0 || oval.width <= 0 || oval.height <= 0) return 'no_face';
  const size = face.width / oval.width;
  if (size > fit.maxWidth) return 'too_close';
  const m = fit.margin * oval.width;
  if (face.x < oval.x - m || face.y < oval.y - m || face.x + face.width > oval.x + oval.width + m || face.y + face.height > oval.y + oval.height + m) {
    return 'outside';
  }
  // a small face within the oval's bounds comes closer first: coming closer moves it towards the middle too
  if (size < fit.minWidth) return 'too_far';
  const f = centreOf(face);
  const o = centreOf(oval);
  const dx = (f.x - o.x) / oval.width / fit.centre;
  const dy = (f.y - o.y) / oval.height / fit.centre;
  return dx * dx + dy * dy > 1 ? 'outside' : 'inside';
}

/** Whether the face held still between two looks. */
export function heldStill(before: Rect, now: Rect, oval: Rect, fit = OVAL_FIT): boolean {
  const a = centreOf(before);
  const b = centreOf(now);
  const moved = Math.hypot(b.x - a.x, b.y - a.y) / oval.width;
  const grew = Math.abs(now.width - before.width) / Math.max(1, before.width);
  return moved < fit.steadyMove && grew < fit.steadySize;
}

/**
 * The guide over one camera session: each look's face box in, what to say and whether the shutter may be used
 * out. The shutter becomes ready once the face has been inside the oval, at a sensible size and holding still, for
 * `steadyMs`; it stays ready while the face stays inside, and a single look that misses it does not take it away.
 */
export class FaceGuide {
  private last: Rect | null = null;
  private steadySince: number | null = null;
  private ready = false;
  private misses = 0;

  constructor(private readonly fit = OVAL_FIT) {}

  look(face: Rect | null, oval: Rect, now: number): GuideState {
    const where = fitFace(face, oval, this.fit);
    if (where !== 'inside') {
      if (this.ready && ++this.misses < this.fit.dropAfter) return 'ready';
      this.ready = false;
      this.misses = 0;
      this.steadySince = null;
      this.last = null;
      return where;
    }
    this.misses = 0;
    if (!this.ready) {
      if (this.steadySince === null || !this.last || !heldStill(this.last, face!, oval, this.fit)) this.steadySince = now;
      if (now - this.steadySince >= this.fit.steadyMs) this.ready = true;
    }
    this.last = face;
    return this.ready ? 'ready' : 'steady';
  }
}

/**
 * Where a picture's part `crop` lands when drawn, whole and undistorted, in the middle of a `side` × `side` square
 * (the detector's input is square): its place in the square and the scale.
 */
export function letterbox(crop: Rect, side: number): Rect & { scale: number } {
  const scale = side / Math.max(crop.width, crop.height);
  const width = crop.width * scale;
  const height = crop.height * scale;
  return { x: (side - width) / 2, y: (side - height) / 2, width, height, scale };
}

/** A box found in the square of `letterbox(crop, …)` as a box of the whole picture. */
export function fromLetterbox(box: Rect, crop: Rect, placed: Rect & { scale: number }): Rect {
  return {
    x: crop.x + (box.x - placed.x) / placed.scale,
    y: crop.y + (box.y - placed.y) / placed.scale,
    width: box.width / placed.scale,
    height: box.height / placed.scale,
  };
}
