/**
 * The page's pure helpers: image measures for instant feedback, the guide's place in a camera frame, step
 * timing and device signals. Nothing here touches the DOM or any browser global, so node:test runs it as it is
 * (src/analysis.spec.ts); capture.ts feeds it pixels and facts.
 */

/** A grey image: one luminance value (0–255) per pixel, row by row. */
export interface Gray {
  data: Float32Array;
  width: number;
  height: number;
}

/** A rectangle in pixels of an image. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The longest side the measures are computed at: cheap on a phone, and large enough that a blur the reader
 * cannot cope with still shows (at 512 px a σ 4 blur of a 1920 px frame hardly does).
 */
export const ANALYSIS_SIZE = 768;

/** The longest side of an image sent to the API (the region stores at most 2048 px a side). */
export const UPLOAD_MAX_SIDE = 2048;
export const JPEG_QUALITY = 0.92;

/**
 * Thresholds of the instant feedback, on the 0–255 scale of the grey image at ANALYSIS_SIZE. They are lenient on
 * purpose: a false alarm costs the applicant a retake, a miss only a slower answer from the region. Set from
 * specimen photographs (src/analysis.spec.ts keeps them apart; the scores: docs/decisions.md, "Capture").
 */
export const THRESHOLDS = {
  /** Mean luminance below this: too dark. */
  dark: 45,
  /** Variance of the Laplacian below this: too blurry (document steps). */
  blurDocument: 40,
  /** A face has large smooth areas: a lower bar for the selfie. */
  blurSelfie: 6,
  /** Share of strong-gradient pixels inside the guide below this: no document in the frame. */
  edges: 0.02,
  /** A gradient (Sobel magnitude / 4) at least this strong counts as an edge. */
  edgeStrength: 24,
} as const;

export type FrameIssue = 'dark' | 'blurry' | 'no_document';

/** Greyscale (Rec. 709 weights on the encoded values) of RGBA bytes as canvas `getImageData` gives them. */
export function toGray(rgba: ArrayLike<number>, width: number, height: number): Gray {
  const n = width * height;
  if (rgba.length < n * 4) throw new RangeError('rgba is shorter than width × height × 4');
  const data = new Float32Array(n);
  for (let i = 0, j = 0; i < n; i++, j += 4) {
    data[i] = 0.2126 * rgba[j] + 0.7152 * rgba[j + 1] + 0.0722 * rgba[j + 2];
  }
  return { data, width, height };
}

function clampRect(g: Gray, r: Rect | undefined, margin: number): Rect {
  const x0 = Math.max(margin, Math.floor(r?.x ?? 0));
  const y0 = Math.max(margin, Math.floor(r?.y ?? 0));
  const x1 = Math.min(g.width - margin, Math.ceil((r?.x ?? 0) + (r?.width ?? g.width)));
  const y1 = Math.min(g.height - margin, Math.ceil((r?.y ?? 0) + (r?.height ?? g.height)));
  return { x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0) };
}

/** Mean luminance (0–255) of the image or of a part of it. */
export function meanLuminance(g: Gray, rect?: Rect): number {
  const r = clampRect(g, rect, 0);
  let sum = 0;
  for (let y = r.y; y < r.y + r.height; y++) {
    const row = y * g.width;
    for (let x = r.x; x < r.x + r.width; x++) sum += g.data[row + x];
  }
  const n = r.width * r.height;
  return n === 0 ? 0 : sum / n;
}

/**
 * Sharpness: the variance of the 4-neighbour Laplacian (Pech-Pacheco et al.). A sharp photo has strong
 * second derivatives at its edges; blur or shake flattens them.
 */
export function laplacianVariance(g: Gray, rect?: Rect): number {
  const r = clampRect(g, rect, 1);
  const w = g.width;
  const d = g.data;
  let sum = 0;
  let sq = 0;
  for (let y = r.y; y < r.y + r.height; y++) {
    for (let x = r.x; x < r.x + r.width; x++) {
      const i = y * w + x;
      const v = d[i - w] + d[i + w] + d[i - 1] + d[i + 1] - 4 * d[i];
      sum += v;
      sq += v * v;
    }
  }
  const n = r.width * r.height;
  if (n === 0) return 0;
  const mean = sum / n;
  return sq / n - mean * mean;
}

/**
 * How much of a region is edge: the share (0–1) of its pixels whose Sobel gradient is strong. A document
 * inside the guide brings its outline, text and photo; an empty table or a wall brings almost none.
 */
export function edgeScore(g: Gray, rect?: Rect, strength: number = THRESHOLDS.edgeStrength): number {
  const r = clampRect(g, rect, 1);
  const w = g.width;
  const d = g.data;
  let strong = 0;
  for (let y = r.y; y < r.y + r.height; y++) {
    for (let x = r.x; x < r.x + r.width; x++) {
      const i = y * w + x;
      const gx = d[i - w + 1] + 2 * d[i + 1] + d[i + w + 1] - d[i - w - 1] - 2 * d[i - 1] - d[i + w - 1];
      const gy = d[i + w - 1] + 2 * d[i + w] + d[i + w + 1] - d[i - w - 1] - 2 * d[i - w] - d[i - w + 1];
      if (Math.hypot(gx, gy) / 4 >= strength) strong++;
    }
  }
  const n = r.width * r.height;
  return n === 0 ? 0 : strong / n;
}

export interface FrameMeasures {
  luminance: number;
  sharpness: number;
  /** null for the selfie. */
  edges: number | null;
}

export interface FrameAssessment {
  measures: FrameMeasures;
  /** Most important first; empty when the photo looks usable. */
  issues: FrameIssue[];
}

/**
 * What the applicant should hear about a photo. `guide` is the frame guide in the grey image's pixels (the part
 * that should hold the document or the face); the measures look there.
 */
export function assessFrame(g: Gray, kind: 'document' | 'selfie', guide?: Rect): FrameAssessment {
  const luminance = meanLuminance(g, guide);
  const sharpness = laplacianVariance(g, guide);
  const edges = kind === 'document' ? edgeScore(g, guide) : null;
  const issues: FrameIssue[] = [];
  // darkness first: a dark photo also looks empty and soft, and light is what fixes it
  if (luminance < THRESHOLDS.dark) issues.push('dark');
  else if (edges !== null && edges < THRESHOLDS.edges) issues.push('no_document');
  else if (sharpness < (kind === 'document' ? THRESHOLDS.blurDocument : THRESHOLDS.blurSelfie)) issues.push('blurry');
  return { measures: { luminance, sharpness, edges }, issues };
}

/** `width` × `height` scaled down (never up) so that the longest side is at most `max`. */
export function fitWithin(width: number, height: number, max: number): { width: number; height: number } {
  const scale = Math.min(1, max / Math.max(width, height, 1));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * Where a guide drawn over a preview sits in the camera frame itself. The preview shows the frame with
 * `object-fit: cover` (scaled to fill, centred, the overflow cut); `guide` is a fraction (0–1) of the preview box.
 * Answers the rectangle in the frame's pixels.
 */
export function guideInFrame(
  frame: { width: number; height: number },
  box: { width: number; height: number },
  guide: Rect,
): Rect {
  const scale = Math.max(box.width / frame.width, box.height / frame.height);
  const shownW = box.width / scale;
  const shownH = box.height / scale;
  const offX = (frame.width - shownW) / 2;
  const offY = (frame.height - shownH) / 2;
  return {
    x: offX + guide.x * shownW,
    y: offY + guide.y * shownH,
    width: guide.width * shownW,
    height: guide.height * shownH,
  };
}

/** Scales a rectangle given in one image's pixels to a copy of that image of another size. */
export function scaleRect(r: Rect, from: { width: number; height: number }, to: { width: number; height: number }): Rect {
  const sx = to.width / from.width;
  const sy = to.height / from.height;
  return { x: r.x * sx, y: r.y * sy, width: r.width * sx, height: r.height * sy };
}

/** Time spent on each step of the flow, in seconds; a step visited twice adds up. */
export class StepClock {
  private current: { step: string; since: number } | null = null;
  private readonly totals = new Map<string, number>();

  enter(step: string, now: number): void {
    this.leave(now);
    this.current = { step, since: now };
  }

  leave(now: number): void {
    if (!this.current) return;
    const spent = Math.max(0, now - this.current.since) / 1000;
    this.totals.set(this.current.step, (this.totals.get(this.current.step) ?? 0) + spent);
    this.current = null;
  }

  /** Seconds per step, rounded to a tenth; the step under way counts up to `now`. */
  seconds(now: number): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [step, s] of this.totals) out[step] = s;
    if (this.current) out[this.current.step] = (out[this.current.step] ?? 0) + Math.max(0, now - this.current.since) / 1000;
    for (const k of Object.keys(out)) out[k] = Math.round(out[k] * 10) / 10;
    return out;
  }
}

/** What the browser tells about itself, read by capture.ts from `navigator`, `window` and `Intl`. */
export interface DeviceFacts {
  userAgent: string;
  /** `navigator.webdriver` */
  webdriver: boolean | undefined;
  /** `navigator.maxTouchPoints` */
  maxTouchPoints: number | undefined;
  /** `navigator.userAgentData?.mobile` where the browser has it */
  uaMobile: boolean | undefined;
  /** `navigator.plugins.length` */
  plugins: number | undefined;
  /** `navigator.languages.length` */
  languages: number | undefined;
  /** `window.outerWidth`: 0 in some headless browsers */
  outerWidth: number | undefined;
  /** whether `window.chrome` exists (missing in old headless Chrome) */
  hasChromeObject: boolean;
  /** `Intl.DateTimeFormat().resolvedOptions().timeZone` */
  timeZone: string | undefined;
}

export type FormFactor = 'mobile' | 'tablet' | 'desktop';

/** What the browser claims to be: its client hint first, then its user agent (an iPad claims a Mac with touch). */
export function formFactor(f: Pick<DeviceFacts, 'userAgent' | 'uaMobile' | 'maxTouchPoints'>): FormFactor {
  const ua = f.userAgent;
  if (/iPad|Tablet|PlayBook|Silk|Kindle/i.test(ua)) return 'tablet';
  if (/Macintosh/.test(ua) && (f.maxTouchPoints ?? 0) > 1) return 'tablet';
  if (f.uaMobile === true) return 'mobile';
  if (/Mobi|iPhone|iPod|Windows Phone|Opera Mini/i.test(ua)) return 'mobile';
  if (/Android/i.test(ua)) return 'tablet'; // Android without "Mobile" is a tablet by Google's own convention
  return 'desktop';
}

/** Signs of a browser under automation other than `navigator.webdriver`. */
export function headlessSigns(f: DeviceFacts): boolean {
  if (/HeadlessChrome|PhantomJS|SlimerJS|Electron/i.test(f.userAgent)) return true;
  const chromium = /Chrome\//.test(f.userAgent) && !/Edg\/|OPR\//.test(f.userAgent);
  if (chromium && !f.hasChromeObject) return true;
  if (f.outerWidth === 0) return true;
  if (f.languages === 0) return true;
  return false;
}

/** The `signals` of submit, exactly the keys docs/capture.md lists. */
export interface CaptureSignals {
  paste_count: number;
  step_seconds: Record<string, number>;
  webdriver: boolean;
  headless: boolean;
  touch_points: number;
  form_factor: FormFactor;
  time_zone?: string;
}

export function collectSignals(f: DeviceFacts, pasteCount: number, stepSeconds: Record<string, number>): CaptureSignals {
  const signals: CaptureSignals = {
    paste_count: Math.max(0, Math.floor(pasteCount)),
    step_seconds: stepSeconds,
    webdriver: f.webdriver === true,
    headless: headlessSigns(f),
    touch_points: Math.max(0, Math.floor(f.maxTouchPoints ?? 0)),
    form_factor: formFactor(f),
  };
  // an IANA name only; a browser that gives none leaves the key out rather than send a wrong type
  if (typeof f.timeZone === 'string' && f.timeZone.length > 0) signals.time_zone = f.timeZone;
  return signals;
}
