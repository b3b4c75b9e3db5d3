import sharp, { type Sharp } from 'sharp';

/** An 8-bit grey image, row-major. */
export interface Grey {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Rectangle in pixels of some image. */
export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Largest image the reader decodes: the API's 100 megapixels (docs/id-scan.md). */
export const MAX_INPUT_PIXELS = 100_000_000;

/** An upright (EXIF orientation applied) colour image at most `maxSide` pixels a side, as sharp pipeline input. */
export function upright(bytes: Buffer, maxSide: number): Sharp {
  return sharp(bytes, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true });
}

export async function toGrey(img: Sharp): Promise<Grey> {
  const { data, info } = await img.grayscale().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

export function greySharp(g: Grey): Sharp {
  return sharp(Buffer.from(g.data.buffer, g.data.byteOffset, g.data.length), { raw: { width: g.width, height: g.height, channels: 1 } });
}

/** `g` rotated by `degrees` (clockwise), the corners filled with white, the canvas grown to hold it. */
export async function rotateGrey(g: Grey, degrees: number): Promise<Grey> {
  if (Math.abs(degrees) < 0.05) return g;
  return toGrey(greySharp(g).rotate(degrees, { background: '#ffffff' }));
}

export async function resizeGrey(g: Grey, width: number): Promise<Grey> {
  return toGrey(greySharp(g).resize({ width }));
}

/**
 * Where ink is: pixels clearly darker than their neighbourhood (a Gaussian of `sigma`), which keeps printed
 * characters and drops slow changes of light and background colour.
 */
export async function inkMask(g: Grey, sigma: number, contrast: number): Promise<Uint8Array> {
  const blurred = (await toGrey(greySharp(g).blur(sigma))).data;
  const ink = new Uint8Array(g.data.length);
  for (let i = 0; i < ink.length; i++) ink[i] = blurred[i] - g.data[i] > contrast ? 1 : 0;
  return ink;
}

export function clampBox(b: Box, width: number, height: number): Box {
  const left = Math.max(0, Math.floor(b.left));
  const top = Math.max(0, Math.floor(b.top));
  return {
    left,
    top,
    width: Math.max(1, Math.min(width, Math.ceil(b.left + b.width)) - left),
    height: Math.max(1, Math.min(height, Math.ceil(b.top + b.height)) - top),
  };
}
