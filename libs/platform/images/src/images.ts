import { DomainError } from '@verity/errors';
import sharp from 'sharp';
import { Semaphore } from '@verity/platform';
import type { ImageFormat } from './sniff.js';

/** Largest image decoded: 100 megapixels (docs/id-scan.md). Checked from the header, before any pixel is decoded. */
export const MAX_INPUT_PIXELS = 100_000_000;
/** Longest side of the normalized image handed to extraction. */
export const NORMALIZED_MAX_SIDE = 2048;

/**
 * sharp, set once per process: no operation cache (every input is new and untrusted) and one libvips thread per
 * image, so that concurrency is decided by the semaphore below and not multiplied inside libvips.
 */
export function configureSharp(): void {
  sharp.cache(false);
  sharp.concurrency(1);
}

/**
 * Decodes untrusted images, a bounded number at a time. Every pixel is decoded (a truncated or corrupt image is
 * refused, `failOn: 'error'`), the pixel count is capped from the header (`limitInputPixels`), the format libvips
 * finds must be the one sniffed from the bytes, and the result is re-encoded: EXIF orientation applied
 * (`rotate()`), at most 2048 px a side, as a JPEG without any metadata (sharp strips it unless asked to keep it).
 */
export class ImageDecoder {
  private readonly slots: Semaphore;

  constructor(concurrency: number) {
    this.slots = new Semaphore(concurrency);
  }

  async normalize(bytes: Buffer, format: ImageFormat, param: string, deadline = Infinity): Promise<Buffer> {
    return (await this.normalized(bytes, format, param, deadline)).jpeg;
  }

  /** As `normalize`, with the size of the image it made. */
  async normalized(bytes: Buffer, format: ImageFormat, param: string, deadline = Infinity): Promise<NormalizedImage> {
    return this.slots.run(async () => {
      try {
        const img = sharp(bytes, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS, sequentialRead: true });
        const meta = await img.metadata();
        if (meta.format !== format) throw new Error(`decoded as ${meta.format}, sniffed as ${format}`);
        const { data, info } = await img
          .rotate()
          .resize({ width: NORMALIZED_MAX_SIDE, height: NORMALIZED_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
          .jpeg({ quality: 90 })
          .toBuffer({ resolveWithObject: true });
        return { jpeg: data, width: info.width, height: info.height };
      } catch {
        // the decoder's message says nothing the client needs, and is never logged with the bytes
        throw new DomainError('invalid_image', { param });
      }
    }, deadline);
  }
}

/** A decoded image re-encoded as JPEG (EXIF orientation applied, no metadata), and its size in pixels. */
export interface NormalizedImage {
  jpeg: Buffer;
  width: number;
  height: number;
}
