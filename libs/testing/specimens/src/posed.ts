import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { Person } from './faces.js';

const ASSETS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../assets');

/** A face mesh of a photograph in `assets/` (468 landmarks, x and y in its pixels, z depth) and the mesh's triangles. */
interface MeshAsset {
  width: number;
  height: number;
  mesh: [number, number, number][];
}

const meshes = new Map<Person, Promise<MeshAsset>>();
let triangles: Promise<number[]> | null = null;

function meshOf(person: Person): Promise<MeshAsset> {
  let m = meshes.get(person);
  if (!m) {
    m = readFile(path.join(ASSETS, `${person}.mesh.json`), 'utf8').then((t) => JSON.parse(t) as MeshAsset);
    meshes.set(person, m);
  }
  return m;
}

/** Where each photograph's head and shoulders are, framed as a phone's front camera would (3 × 4). */
const FRAME: Record<Person, { left: number; top: number; width: number; height: number }> = {
  collins: { left: 70, top: 0, width: 330, height: 440 },
  hopper: { left: 60, top: 0, width: 400, height: 533 },
};

/** The mesh's depth is flatter than a head's: it is scaled so that the face is this deep for its width, nose tip to cheek. */
const DEPTH_FOR_WIDTH = 1.2;

export interface PoseOptions {
  /** Degrees the head turns about its vertical axis; positive turns the nose towards the image's right. */
  yaw: number;
  /** Brightness factor (default 1). */
  brightness?: number;
  /** Longest side in pixels (default 960). */
  size?: number;
  /** Mirror it, as a front camera's preview does (default false: the camera's own picture). */
  mirror?: boolean;
  jpegQuality?: number;
}

/** Affine-maps the triangle `src` of `from` onto the triangle `dst` of `to` (packed RGB, same size). */
function drawTriangle(to: Buffer, from: Buffer, w: number, h: number, dst: number[], src: number[]): void {
  const [x0, y0, x1, y1, x2, y2] = dst as [number, number, number, number, number, number];
  const den = (y1 - y2) * (x0 - x2) + (x2 - x1) * (y0 - y2);
  if (Math.abs(den) < 1e-6) return;
  const minX = Math.max(0, Math.floor(Math.min(x0, x1, x2)));
  const maxX = Math.min(w - 1, Math.ceil(Math.max(x0, x1, x2)));
  const minY = Math.max(0, Math.floor(Math.min(y0, y1, y2)));
  const maxY = Math.min(h - 1, Math.ceil(Math.max(y0, y1, y2)));
  for (let y = minY; y <= maxY; y++) {
    for (let x = minX; x <= maxX; x++) {
      const a = ((y1 - y2) * (x - x2) + (x2 - x1) * (y - y2)) / den;
      const b = ((y2 - y0) * (x - x2) + (x0 - x2) * (y - y2)) / den;
      const c = 1 - a - b;
      if (a < -0.01 || b < -0.01 || c < -0.01) continue;
      const sx = Math.min(w - 2, Math.max(0, a * src[0]! + b * src[2]! + c * src[4]!));
      const sy = Math.min(h - 2, Math.max(0, a * src[1]! + b * src[3]! + c * src[5]!));
      const xi = Math.floor(sx);
      const yi = Math.floor(sy);
      const ax = sx - xi;
      const ay = sy - yi;
      for (let k = 0; k < 3; k++) {
        const p = (yy: number, xx: number) => from[(yy * w + xx) * 3 + k]!;
        to[(y * w + x) * 3 + k] = (p(yi, xi) * (1 - ax) + p(yi, xi + 1) * ax) * (1 - ay) + (p(yi + 1, xi) * (1 - ax) + p(yi + 1, xi + 1) * ax) * ay;
      }
    }
  }
}

/**
 * The person's photograph with the head turned by `yaw` degrees: the face mesh of the photograph (`assets/*.mesh.json`)
 * is turned in 3D and the face redrawn triangle by triangle (farthest first), the rest of the picture left where
 * it was. A stand-in for another photograph, or for a video frame of a head turning; it is still one photograph
 * transformed (docs/reading.md says what that does and does not show). A JPEG, framed like `selfie`.
 */
export async function posedFace(person: Person, o: PoseOptions): Promise<Buffer> {
  const box = FRAME[person];
  const size = o.size ?? 960;
  let img = sharp(await turnedPhoto(person, o.yaw)).extract(box);
  if (o.mirror) img = img.flop();
  return img
    .modulate({ brightness: o.brightness ?? 1 })
    .resize({ width: Math.round((size * box.width) / box.height), height: size, fit: 'cover' })
    .jpeg({ quality: o.jpegQuality ?? 85 })
    .toBuffer();
}

/** The whole photograph of `assets/` with the head turned by `yaw` degrees (see `posedFace`), as a lossless PNG. */
export async function turnedPhoto(person: Person, yaw: number): Promise<Buffer> {
  const asset = await meshOf(person);
  triangles ??= readFile(path.join(ASSETS, 'face-triangles.json'), 'utf8').then((t) => JSON.parse(t) as number[]);
  const tri = await triangles;
  const { data, info } = await sharp(await readFile(path.join(ASSETS, `${person}.jpg`)))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const w = info.width;
  const h = info.height;
  const zs = asset.mesh.map((p) => p[2]);
  const width = Math.abs(asset.mesh[454]![0] - asset.mesh[234]![0]) * (w / asset.width);
  const depth = (DEPTH_FOR_WIDTH * width) / (Math.max(...zs) - Math.min(...zs));
  const mesh = asset.mesh.map(([x, y, z]) => [x * (w / asset.width), y * (h / asset.height), z * depth] as const);
  const cx = mesh.reduce((s, p) => s + p[0], 0) / mesh.length;
  const cz = mesh.reduce((s, p) => s + p[2], 0) / mesh.length;
  const th = (yaw * Math.PI) / 180;
  const rotated = mesh.map(([x, y, z]) => [cx + (x - cx) * Math.cos(th) + (z - cz) * Math.sin(th), y, -(x - cx) * Math.sin(th) + (z - cz) * Math.cos(th)] as const);
  // the eyes stay where they were: the head turns about the axis between them, as a person's does before the camera
  const eyes = (m: readonly (readonly [number, number, number])[]) => (m[33]![0] + m[263]![0]) / 2;
  const shift = eyes(mesh) - eyes(rotated);
  const turned = rotated.map(([x, y, z]) => [x + shift, y, z] as const);
  // the face as it was is smoothed away first, so that nothing of it shows beside the turned face
  const blurred = await sharp(data, { raw: { width: w, height: h, channels: 3 } }).blur(Math.max(4, (mesh[454]![0] - mesh[234]![0]) / 5)).raw().toBuffer();
  const out = Buffer.from(data);
  const corners = (m: readonly (readonly [number, number, number])[], t: number) => [m[tri[t]!]![0], m[tri[t]!]![1], m[tri[t + 1]!]![0], m[tri[t + 1]!]![1], m[tri[t + 2]!]![0], m[tri[t + 2]!]![1]];
  for (let t = 0; t < tri.length; t += 3) drawTriangle(out, blurred, w, h, corners(mesh, t), corners(mesh, t));
  const area = (c: number[]) => (c[2]! - c[0]!) * (c[5]! - c[1]!) - (c[4]! - c[0]!) * (c[3]! - c[1]!);
  const order: { t: number; depth: number }[] = [];
  for (let t = 0; t < tri.length; t += 3) {
    // a triangle turned away from the camera is hidden
    if (Math.sign(area(corners(turned, t))) !== Math.sign(area(corners(mesh, t)))) continue;
    order.push({ t, depth: turned[tri[t]!]![2] + turned[tri[t + 1]!]![2] + turned[tri[t + 2]!]![2] });
  }
  order.sort((a, b) => b.depth - a.depth);
  for (const { t } of order) drawTriangle(out, data, w, h, corners(turned, t), corners(mesh, t));
  return sharp(out, { raw: { width: w, height: h, channels: 3 } }).png().toBuffer();
}

/** How a challenge step turns the head, in degrees of `posedFace`'s yaw (a person turning to their left turns their nose to the camera's right). */
const TURN: Record<'turn_left' | 'turn_right', number> = { turn_left: 1, turn_right: -1 };

/**
 * Frames of a person doing a liveness challenge, as a camera would take them (not mirrored): looking ahead, then
 * for each step the head turned that way by `degrees` and back, with when each was taken (300 ms apart).
 */
export async function challengeFrames(person: Person, steps: readonly ('turn_left' | 'turn_right')[], degrees = 30, size = 640): Promise<{ image: Buffer; offsetMs: number }[]> {
  const yaws = [0, ...steps.flatMap((s) => [TURN[s] * degrees, 0])];
  const out: { image: Buffer; offsetMs: number }[] = [];
  for (const [i, yaw] of yaws.entries()) out.push({ image: await posedFace(person, { yaw, size, brightness: 1 + 0.01 * i }), offsetMs: i * 300 });
  return out;
}
