import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '@verity/errors';
import { GIF_SCRIPT_POLYGLOT, JPEG_HTML_POLYGLOT, noisyJpeg, pixelFloodPng, sampleImage, truncate } from '@verity/testing';
import sharp from 'sharp';
import { configureSharp, ImageDecoder, NORMALIZED_MAX_SIDE } from './images.js';
import { sniffImage } from './sniff.js';

configureSharp();
const decoder = new ImageDecoder(2);

async function invalid(p: Promise<unknown>, param = 'front'): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof DomainError && e.code === 'invalid_image' && e.param === param);
}

describe('ImageDecoder', () => {
  it('decodes JPEG, PNG and WebP and re-encodes them as metadata-free JPEG', async () => {
    for (const format of ['jpeg', 'png', 'webp'] as const) {
      const out = await decoder.normalize(await sampleImage(format), format, 'front');
      const m = await sharp(out).metadata();
      assert.equal(m.format, 'jpeg', format);
      assert.deepEqual([m.width, m.height], [640, 400], format);
      assert.equal(m.exif, undefined, format);
      assert.equal(m.icc, undefined, format);
    }
  });

  it('applies the EXIF orientation, then drops the EXIF block', async () => {
    const rotated = await sharp(await sampleImage('jpeg', 300, 200)).withExif({ IFD0: { Copyright: 'holder name', Artist: 'GPS 52.37N' } }).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    assert.equal((await sharp(rotated).metadata()).orientation, 6);
    const out = await decoder.normalize(rotated, 'jpeg', 'front');
    const m = await sharp(out).metadata();
    assert.deepEqual([m.width, m.height], [200, 300]);
    assert.equal(m.exif, undefined);
    assert.equal(m.orientation, undefined);
    assert.equal(out.includes(Buffer.from('holder name')), false);
  });

  it('shrinks large images to at most 2048 px a side', async () => {
    const out = await decoder.normalize(await noisyJpeg(3000, 1500), 'jpeg', 'front');
    const m = await sharp(out).metadata();
    assert.deepEqual([m.width, m.height], [NORMALIZED_MAX_SIDE, 1024]);
  });

  it('refuses a pixel flood from its header, without decoding it', async () => {
    const flood = pixelFloodPng();
    assert.ok(flood.length < 64 * 1024, `${flood.length} bytes`);
    assert.equal(sniffImage(flood), 'png');
    const before = process.memoryUsage().rss;
    const t = Date.now();
    await invalid(decoder.normalize(flood, 'png', 'front'));
    assert.ok(Date.now() - t < 2000);
    assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024, 'no 1.2 GB buffer was allocated');
    // 100 MP is the cap: 10001 × 10000 is over it
    await invalid(decoder.normalize(pixelFloodPng(10_001, 10_000), 'png', 'back'), 'back');
  });

  it('refuses a truncated JPEG (every pixel is decoded) and bytes that only start like a JPEG', async () => {
    const jpeg = await noisyJpeg(800, 600);
    await decoder.normalize(jpeg, 'jpeg', 'front');
    await invalid(decoder.normalize(truncate(jpeg), 'jpeg', 'front'));
    await invalid(decoder.normalize(JPEG_HTML_POLYGLOT, 'jpeg', 'front'));
  });

  it('refuses an image whose decoded format is not the sniffed one', async () => {
    await invalid(decoder.normalize(await sampleImage('png'), 'jpeg', 'front'));
    await invalid(decoder.normalize(GIF_SCRIPT_POLYGLOT, 'jpeg', 'front'));
  });
});
