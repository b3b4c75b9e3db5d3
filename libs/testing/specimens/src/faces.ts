import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { turnedPhoto } from './posed.js';

/** The two people whose public-domain photographs ship in `assets/` (see its README for source and licence). */
export const PEOPLE = ['collins', 'hopper'] as const;
export type Person = (typeof PEOPLE)[number];

const ASSETS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../assets');

/** Where each photograph's head and shoulders are, as a document portrait frames them (35 × 45). */
const PORTRAIT_BOX: Record<Person, { left: number; top: number; width: number; height: number }> = {
  collins: { left: 105, top: 0, width: 240, height: 308 },
  hopper: { left: 100, top: 10, width: 330, height: 424 },
};

/** A looser frame for selfies: more of the shoulders and background. */
const SELFIE_BOX: Record<Person, { left: number; top: number; width: number; height: number }> = {
  collins: { left: 70, top: 0, width: 330, height: 440 },
  hopper: { left: 60, top: 0, width: 400, height: 533 },
};

const photos = new Map<Person, Promise<Buffer>>();

function photo(person: Person): Promise<Buffer> {
  let p = photos.get(person);
  if (!p) {
    p = readFile(path.join(ASSETS, `${person}.jpg`));
    photos.set(person, p);
  }
  return p;
}

/** The portrait printed on a document: head and shoulders, `width` × `height`, slightly desaturated. */
export async function documentPortrait(person: Person, width: number, height: number): Promise<Buffer> {
  return sharp(await photo(person))
    .extract(PORTRAIT_BOX[person])
    .resize(width, height, { fit: 'cover' })
    .modulate({ saturation: 0.8 })
    .png()
    .toBuffer();
}

export interface SelfieOptions {
  /**
   * Degrees the head is turned from the photograph's pose (default 15; see `posedFace`): 0 gives the photograph
   * itself, so that the selfie is a copy of the document's portrait.
   */
  yaw?: number;
  /** Mirror it, as front cameras do (default true). */
  mirror?: boolean;
  /** Brightness factor (default 1.1). */
  brightness?: number;
  /** Roll of the head in degrees (default 4). */
  roll?: number;
  /** Longest side in pixels (default 960). */
  size?: number;
  jpegQuality?: number;
}

/**
 * A "selfie" of the person: the photograph with the head turned a little (`yaw`: the face mesh turned in 3D, a
 * stand-in for another photograph of the same person), framed more loosely, mirrored, lit differently and rolled
 * a little, as a phone's front camera would give it. A JPEG. With `yaw: 0` it is the document's own photograph.
 */
export async function selfie(person: Person, o: SelfieOptions = {}): Promise<Buffer> {
  const size = o.size ?? 960;
  const box = SELFIE_BOX[person];
  const yaw = o.yaw ?? 15;
  let img = sharp(yaw === 0 ? await photo(person) : await turnedPhoto(person, yaw)).extract(box);
  if (o.mirror ?? true) img = img.flop();
  const rolled = await img
    .modulate({ brightness: o.brightness ?? 1.1 })
    .rotate(o.roll ?? 4, { background: '#6b7f8e' })
    .toBuffer();
  return sharp(rolled)
    .resize({ width: Math.round((size * box.width) / box.height), height: size, fit: 'cover' })
    .jpeg({ quality: o.jpegQuality ?? 85 })
    .toBuffer();
}

/** Two people side by side in one frame, for the "several faces in the selfie" case. */
export async function twoPeopleSelfie(): Promise<Buffer> {
  const [a, b] = await Promise.all(PEOPLE.map((p) => selfie(p, { size: 640, roll: 0 })));
  const [ma, mb] = await Promise.all([sharp(a).metadata(), sharp(b).metadata()]);
  return sharp({ create: { width: ma.width + mb.width, height: 640, channels: 3, background: '#777777' } })
    .composite([
      { input: a, left: 0, top: 0 },
      { input: b, left: ma.width, top: 0 },
    ])
    .jpeg({ quality: 85 })
    .toBuffer();
}
