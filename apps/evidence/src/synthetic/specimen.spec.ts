import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { PORTRAIT_BOX, renderSpecimen, specimenImages } from './specimen.js';

describe('synthetic specimen images', () => {
  it('are JPEG (FF D8 FF … FF D9) of the expected sizes, without EXIF', async () => {
    const imgs = await renderSpecimen();
    const sizes = { front: [1012, 638], portrait: [PORTRAIT_BOX.width, PORTRAIT_BOX.height], selfie: [720, 960] } as const;
    for (const [name, bytes] of Object.entries(imgs)) {
      assert.deepEqual([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff], name);
      assert.deepEqual([...bytes.subarray(-2)], [0xff, 0xd9], name);
      const m = await sharp(bytes).metadata();
      assert.equal(m.format, 'jpeg', name);
      assert.deepEqual([m.width, m.height], sizes[name as keyof typeof sizes], name);
      assert.equal(m.exif, undefined, name);
    }
  });

  it('the portrait is the photograph box of the front', async () => {
    const imgs = await renderSpecimen();
    // mean colour of the crop taken from the decoded front equals the portrait's, within JPEG noise
    // stats() describes its input, so the crop is materialised first
    const crop = await sharp(await sharp(imgs.front).extract(PORTRAIT_BOX).png().toBuffer()).stats();
    const portrait = await sharp(imgs.portrait).stats();
    for (let c = 0; c < 3; c++) assert.ok(Math.abs(crop.channels[c]!.mean - portrait.channels[c]!.mean) < 3, `channel ${c}`);
    const whole = await sharp(imgs.front).stats();
    assert.ok(Math.abs(whole.channels[2]!.mean - portrait.channels[2]!.mean) > 3, 'the crop differs from the whole card');
  });

  it('are drawn once per process', async () => {
    assert.equal(await specimenImages(), await specimenImages());
  });
});
