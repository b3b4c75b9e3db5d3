import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { alignFace, eyeOpenness, laplacianVariance, ALIGNED_SIDE, type Point3 } from './face-geometry.js';
import type { Box } from './raster.js';
import { MAX_INPUT_PIXELS } from './raster.js';
import { installOfflineFetch } from './offline.js';

const require = createRequire(import.meta.url);

/**
 * A face found in an image, with what the checks measure of it. The embedding and the aligned crop live in memory
 * only, for the length of one task: they are never returned to a caller, logged or stored.
 */
export interface Face {
  box: Box;
  /** Detector confidence, 0 to 1. */
  score: number;
  /** Human's anti-spoofing model: how likely the face is a real one in front of the camera (not printed, not a screen), 0 to 1. */
  real: number;
  /** Human's liveness model: the same question asked of another model, 0 to 1. */
  live: number;
  /** Head pose in degrees, from the face mesh. Yaw is positive when the nose points to the image's right. */
  yaw: number;
  pitch: number;
  roll: number;
  /** How open the less open eye is: eyelid gap over eye width (about 0.25–0.35 open, under 0.1 shut). */
  eyesOpen: number;
  /** Variance of the Laplacian of the aligned crop: how sharp the face is, at one scale for every face. */
  sharpness: number;
  /** The face in grey, turned and scaled so that the eyes sit at fixed places (`ALIGNED_SIDE` square), for comparing images. */
  aligned: Float32Array;
  embedding: number[];
}

/** The slice of Human's API used here (its types pull in the whole of TensorFlow.js). */
interface HumanFace {
  box: [number, number, number, number];
  boxScore: number;
  score: number;
  real?: number;
  live?: number;
  mesh?: Point3[];
  rotation?: { angle: { yaw: number; pitch: number; roll: number } };
  embedding?: number[];
}
interface HumanLike {
  load(): Promise<void>;
  detect(input: unknown, config?: object): Promise<{ face: HumanFace[] }>;
  tf: { tensor(data: Uint8Array, shape: number[], dtype: 'int32'): { dispose(): void } };
}

/** Largest side of the image faces are looked for in. */
const FACE_MAX_SIDE = 1280;
const DEGREES = 180 / Math.PI;

/**
 * What an image's faces are measured for, and so which models run: a `selfie` runs them all; a `document`'s face
 * needs no attack score and no iris (its portrait is printed, and no gate judges it); a challenge `frame` needs its
 * pose, its embedding and its attack scores, not the iris (its eyes are not judged).
 */
export type FacePurpose = 'selfie' | 'document' | 'frame';

// Human merges a call's configuration into its own and keeps it: each purpose says every switch it turns
const models = (iris: boolean, attack: boolean) => ({ face: { iris: { enabled: iris }, antispoof: { enabled: attack }, liveness: { enabled: attack } } });
const MODELS: Record<FacePurpose, object> = { selfie: models(true, true), document: models(false, false), frame: models(false, true) };

/** The faces of one image, largest first; boxes in the image's upright pixels. */
export interface FacesOf {
  faces: Face[];
  width: number;
  height: number;
}

/**
 * Faces with Human (`@vladmandic/human`) on TensorFlow.js's WebAssembly backend, models and WebAssembly from the
 * installed packages: BlazeFace finds faces, the face mesh (with the iris model) places 478 landmarks and gives the
 * head's pose, FaceRes makes a 1024-number embedding for comparison, and two models score presentation attacks
 * (`antispoof` and `liveness`). Runs on the calling thread; use it inside the reading pool.
 */
export class FaceEngine {
  private constructor(private readonly human: HumanLike) {}

  static async start(): Promise<FaceEngine> {
    installOfflineFetch();
    const dir = path.resolve(path.dirname(require.resolve('@vladmandic/human')), '..');
    const { Human } = require(path.join(dir, 'dist', 'human.node-wasm.js')) as { Human: new (config: object) => HumanLike };
    const human = new Human({
      backend: 'wasm',
      wasmPath: path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), '..', 'dist') + path.sep,
      modelBasePath: pathToFileURL(path.join(dir, 'models') + path.sep).href,
      // 0: every image is new. The default reuses the previous frame's result, which is for video.
      cacheSensitivity: 0,
      debug: false,
      warmup: 'none',
      face: {
        enabled: true,
        detector: { rotation: true, maxDetected: 5, minConfidence: 0.5, return: false },
        mesh: { enabled: true },
        iris: { enabled: true },
        description: { enabled: true },
        antispoof: { enabled: true },
        liveness: { enabled: true },
        emotion: { enabled: false },
        attention: { enabled: false },
        gear: { enabled: false },
      },
      body: { enabled: false },
      hand: { enabled: false },
      object: { enabled: false },
      gesture: { enabled: false },
      segmentation: { enabled: false },
      filter: { enabled: false },
    });
    await human.load();
    return new FaceEngine(human);
  }

  /** The faces in an image (encoded bytes), largest first; boxes in the image's upright pixels. */
  async faces(image: Buffer, purpose: FacePurpose = 'selfie'): Promise<FacesOf> {
    const meta = await sharp(image, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    const turned = (meta.orientation ?? 1) >= 5; // EXIF orientations 5 to 8 swap width and height
    const upright = turned ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
    const { data, info } = await sharp(image, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize({ width: FACE_MAX_SIDE, height: FACE_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const scale = upright.width / info.width;
    const tensor = this.human.tf.tensor(data, [1, info.height, info.width, 3], 'int32');
    let found: HumanFace[];
    try {
      found = (await this.human.detect(tensor, MODELS[purpose])).face;
    } finally {
      tensor.dispose();
    }
    const grey = greyOf(data, info.width, info.height);
    const faces = found
      .filter((f) => f.embedding && f.embedding.length > 0 && f.mesh && f.mesh.length >= 468)
      .map((f): Face => {
        const aligned = alignFace(grey, info.width, info.height, f.mesh!);
        const angle = f.rotation?.angle ?? { yaw: 0, pitch: 0, roll: 0 };
        return {
          box: { left: f.box[0] * scale, top: f.box[1] * scale, width: f.box[2] * scale, height: f.box[3] * scale },
          score: f.boxScore ?? f.score,
          real: f.real ?? 0,
          live: f.live ?? 0,
          yaw: angle.yaw * DEGREES,
          pitch: angle.pitch * DEGREES,
          roll: angle.roll * DEGREES,
          eyesOpen: eyeOpenness(f.mesh!),
          sharpness: laplacianVariance(aligned, ALIGNED_SIDE),
          aligned,
          embedding: f.embedding!,
        };
      })
      .sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
    return { faces, width: upright.width, height: upright.height };
  }

  /** How alike two faces are, 0 (different people) to 1 (the same image). */
  similarity(a: Face, b: Face): number {
    return embeddingSimilarity(a.embedding, b.embedding);
  }
}

/** Luma of packed RGB, as floats. */
function greyOf(rgb: Uint8Array, width: number, height: number): Float32Array {
  const g = new Float32Array(width * height);
  for (let i = 0, j = 0; i < g.length; i++, j += 3) g[i] = 0.299 * rgb[j]! + 0.587 * rgb[j + 1]! + 0.114 * rgb[j + 2]!;
  return g;
}

/**
 * The portrait artifact: the face cut out of the upright image with a margin (40 % of the face's size on each
 * side, more above for the hair), re-encoded as a JPEG without metadata.
 */
export async function cropPortrait(image: Buffer, face: Face, width: number, height: number): Promise<Buffer> {
  const { left, top, width: w, height: h } = face.box;
  const x0 = Math.max(0, Math.floor(left - w * 0.4));
  const y0 = Math.max(0, Math.floor(top - h * 0.55));
  const x1 = Math.min(width, Math.ceil(left + w * 1.4));
  const y1 = Math.min(height, Math.ceil(top + h * 1.45));
  return sharp(image, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 })
    .resize({ width: 480, height: 600, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/**
 * Face-match similarity of two embeddings, 0 to 1: Human's `match.similarity` with its defaults (Euclidean distance
 * times 25, rounded to hundredths; its root inverted and normalized from [0.2, 0.8], clamped, rounded to hundredths),
 * written out so that it runs on any thread without the engine: the reading pool compares faces found on two threads.
 */
export function embeddingSimilarity(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i]! - b[i]!) ** 2;
  const distance = Math.round(100 * 25 * sum) / 100;
  if (distance === 0) return 1;
  const normalized = (1 - Math.sqrt(distance) / 100 - 0.2) / (0.8 - 0.2);
  return Math.round(100 * Math.max(Math.min(normalized, 1), 0)) / 100;
}
