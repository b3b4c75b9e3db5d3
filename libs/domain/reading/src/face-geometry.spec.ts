import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { random } from '@verity/specimens';
import { ALIGNED_SIDE, alignFace, eyeOpenness, hammingDistance, laplacianVariance, meanAbsoluteDifference, mirrored, pictureFingerprint, pictureSimilarity, type Point3 } from './index.js';

const S = ALIGNED_SIDE;

/** A textured test picture (no face needed for the arithmetic): smooth shading plus fine pseudo-random detail. */
function picture(seed: number, side = S): Float32Array {
  const img = new Float32Array(side * side);
  const rand = random(seed);
  const [fx, fy, px, py] = [5 + 4 * rand(), 4 + 4 * rand(), 6 * rand(), 6 * rand()];
  for (let y = 0; y < side; y++) for (let x = 0; x < side; x++) img[y * side + x] = 120 + 60 * Math.sin(x / fx + px) * Math.cos(y / fy + py) + 12 * rand();
  return img;
}

/** A mesh with only the eye landmarks the geometry reads, eyes open `gap` pixels on a 40-pixel eye width. */
function eyes(left: [number, number], right: [number, number], gap = 12): Point3[] {
  const m: Point3[] = Array.from({ length: 468 }, () => [0, 0, 0]);
  const eye = (c: [number, number], outer: number, inner: number, up: number[], low: number[]) => {
    m[outer] = [c[0] - 20, c[1], 0];
    m[inner] = [c[0] + 20, c[1], 0];
    for (const i of up) m[i] = [c[0], c[1] - gap / 2, 0];
    for (const i of low) m[i] = [c[0], c[1] + gap / 2, 0];
  };
  eye(left, 33, 133, [160, 158], [144, 153]);
  eye(right, 263, 362, [385, 387], [380, 373]);
  return m;
}

describe('face geometry', () => {
  it('measures eye openness as eyelid gap over eye width, the less open eye', () => {
    assert.equal(eyeOpenness(eyes([100, 100], [200, 100], 12)), 12 / 40);
    assert.equal(eyeOpenness(eyes([100, 100], [200, 100], 2)), 2 / 40);
  });

  it('aligns a face on its eyes: the same picture moved and scaled comes out the same', () => {
    const W = 400;
    const src = picture(1, W);
    const a = alignFace(src, W, W, eyes([150, 180], [250, 180]));
    // the picture twice as large: the eyes twice as far apart
    const big = new Float32Array(W * 2 * W * 2);
    for (let y = 0; y < W * 2; y++) for (let x = 0; x < W * 2; x++) big[y * W * 2 + x] = src[Math.floor(y / 2) * W + Math.floor(x / 2)]!;
    const b = alignFace(big, W * 2, W * 2, eyes([300, 360], [500, 360]));
    assert.equal(a.length, S * S);
    assert.ok(meanAbsoluteDifference(a, b) < 8, String(meanAbsoluteDifference(a, b)));
    assert.ok(meanAbsoluteDifference(a, alignFace(picture(2, W), W, W, eyes([150, 180], [250, 180]))) > 15);
  });

  it('scores blur lower than sharpness, whatever the contrast', () => {
    const sharp = picture(3);
    const soft = new Float32Array(sharp.length);
    for (let y = 1; y < S - 1; y++) for (let x = 1; x < S - 1; x++) soft[y * S + x] = (sharp[y * S + x - 1]! + sharp[y * S + x]! + sharp[y * S + x + 1]! + sharp[(y - 1) * S + x]! + sharp[(y + 1) * S + x]!) / 5;
    const dim = sharp.map((v) => v / 3);
    assert.ok(laplacianVariance(soft, S) < laplacianVariance(sharp, S) / 3);
    assert.ok(Math.abs(laplacianVariance(dim, S) - laplacianVariance(sharp, S)) < 1e-6 * laplacianVariance(sharp, S) + 1e-3);
  });

  it('finds the same picture, mirrored, brightened or shifted by a pixel, alike; another picture not', () => {
    const a = picture(4);
    assert.ok(pictureSimilarity(a, a) > 0.99);
    assert.ok(pictureSimilarity(a, mirrored(a)) > 0.99);
    assert.ok(pictureSimilarity(a, a.map((v) => v * 1.3 + 10)) > 0.99);
    const shifted = new Float32Array(a.length);
    for (let y = 0; y < S; y++) for (let x = 0; x < S; x++) shifted[y * S + x] = a[y * S + Math.max(0, x - 1)]!;
    assert.ok(pictureSimilarity(a, shifted) > 0.95);
    assert.ok(pictureSimilarity(a, picture(5)) < 0.2, String(pictureSimilarity(a, picture(5))));
  });

  it('fingerprints a picture in 64 bits: mirror and brightness change nothing, another picture differs in many bits', () => {
    const thumb = (seed: number) => picture(seed).filter((_, i) => i % S < 32 && Math.floor(i / S) < 32);
    const a = thumb(6);
    assert.equal(a.length, 32 * 32);
    const fa = pictureFingerprint(a);
    assert.match(fa, /^[0-9a-f]{16}$/);
    const flipped = new Float32Array(a.length);
    for (let y = 0; y < 32; y++) for (let x = 0; x < 32; x++) flipped[y * 32 + x] = a[y * 32 + 31 - x]!;
    assert.equal(hammingDistance(fa, pictureFingerprint(flipped)), 0);
    assert.ok(hammingDistance(fa, pictureFingerprint(a.map((v) => v * 0.8 + 20))) <= 2);
    assert.ok(hammingDistance(fa, pictureFingerprint(thumb(7))) >= 16, String(hammingDistance(fa, pictureFingerprint(thumb(7)))));
    assert.equal(hammingDistance('0000000000000000', 'ffffffffffffffff'), 64);
    assert.throws(() => hammingDistance('xyz', fa), /16 hex digits/);
    assert.throws(() => pictureFingerprint(new Float32Array(10)), /32 × 32/);
  });
});
