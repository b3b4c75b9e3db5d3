/**
 * The selfie's face guide, its detector (docs/capture.md "The face guide"): Human (`@vladmandic/human`, its browser
 * build) with the BlazeFace model on TensorFlow.js's WebAssembly backend, every file from this page's own origin
 * (vendor/). The page imports this module only when the selfie step opens; the model and the WebAssembly are
 * fetched once, when the detector is first asked for. The measures against the oval are oval.ts.
 */
import type * as OvalModule from './oval.js';
import type { Rect } from './analysis.js';

const version = new URL(import.meta.url).search;
const oval = (await import(`./oval.js${version}`)) as typeof OvalModule;
export const { FaceGuide, GUIDE_TIMING, GUIDE_WORDS, fromLetterbox, letterbox, shutterEnabled } = oval;

/** BlazeFace's input is this square; the picture is drawn into it whole, undistorted. */
const SIDE = 256;
/** A face is what BlazeFace scores at least this. */
const MIN_CONFIDENCE = 0.5;

/** The part of Human's API used here (its own types pull in the whole of TensorFlow.js). */
interface HumanFace {
  box: [number, number, number, number];
  boxScore: number;
}
interface HumanLike {
  load(): Promise<void>;
  detect(input: HTMLCanvasElement): Promise<{ face: HumanFace[]; error?: string | null }>;
  tf: { getBackend(): string };
}

export interface FaceDetector {
  /** TensorFlow.js's backend in use: `wasm` where WebAssembly works. */
  backend: string;
  /** The largest face in the part `crop` of the video's current picture, in the picture's pixels; null when none. */
  detect(source: HTMLVideoElement, crop: Rect): Promise<Rect | null>;
}

// Human merges this into its defaults: the face detector only, nothing else loaded or run.
const CONFIG = {
  backend: 'wasm',
  // each look is a new picture: no result reused from an earlier frame
  cacheSensitivity: 0,
  // the model comes with each page's HTTP cache, not a copy in IndexedDB
  cacheModels: false,
  debug: false,
  warmup: 'none',
  face: {
    enabled: true,
    // scale 1: BlazeFace's own box (Human enlarges it by 1.4 for its mesh, which is off)
    detector: { rotation: false, maxDetected: 3, minConfidence: MIN_CONFIDENCE, skipFrames: 0, skipTime: 0, scale: 1, return: false },
    mesh: { enabled: false },
    iris: { enabled: false },
    description: { enabled: false },
    emotion: { enabled: false },
    antispoof: { enabled: false },
    liveness: { enabled: false },
    attention: { enabled: false },
    gear: { enabled: false },
  },
  body: { enabled: false },
  hand: { enabled: false },
  object: { enabled: false },
  gesture: { enabled: false },
  segmentation: { enabled: false },
  filter: { enabled: false },
};

let loading: Promise<FaceDetector> | null = null;

/** The detector, loaded on the first call (Human, the model, the WebAssembly); a failed load is tried again on the next. */
export function faceDetector(): Promise<FaceDetector> {
  loading ??= load().catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}

async function load(): Promise<FaceDetector> {
  // the assets' folder: the model and the WebAssembly are served beside this module
  const base = new URL('./', import.meta.url).href;
  const { Human } = (await import(`./human.esm.js${version}`)) as { Human: new (config: object) => HumanLike };
  const human = new Human({ ...CONFIG, modelBasePath: base, wasmPath: base });
  await human.load();
  const canvas = document.createElement('canvas');
  canvas.width = SIDE;
  canvas.height = SIDE;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) throw new Error('no 2d context');
  const detect = async (source: HTMLVideoElement, crop: Rect): Promise<Rect | null> => {
    const placed = letterbox(crop, SIDE);
    ctx.fillStyle = '#808080';
    ctx.fillRect(0, 0, SIDE, SIDE);
    ctx.drawImage(source, crop.x, crop.y, crop.width, crop.height, placed.x, placed.y, placed.width, placed.height);
    const result = await human.detect(canvas);
    if (result.error) throw new Error(result.error);
    let best: HumanFace | null = null;
    for (const f of result.face) if (f.boxScore >= MIN_CONFIDENCE && (!best || f.box[2] * f.box[3] > best.box[2] * best.box[3])) best = f;
    if (!best) return null;
    const [x, y, width, height] = best.box;
    return fromLetterbox({ x, y, width, height }, crop, placed);
  };
  // a first look at the blank square compiles the model's kernels, so that the first look at the camera is quick
  await human.detect(canvas);
  return { backend: human.tf.getBackend(), detect };
}
