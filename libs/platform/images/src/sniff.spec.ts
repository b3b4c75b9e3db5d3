import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sniffImage } from './sniff.js';

const b = (...x: (number | string)[]) => Buffer.concat(x.map((v) => (typeof v === 'string' ? Buffer.from(v, 'latin1') : Buffer.from([v]))));

describe('sniffImage', () => {
  it('recognises JPEG, PNG and WebP by their signatures', () => {
    assert.equal(sniffImage(b(0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 'JFIF')), 'jpeg');
    assert.equal(sniffImage(b(0xff, 0xd8, 0xff, 0xe1)), 'jpeg');
    assert.equal(sniffImage(b(0x89, 'PNG', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 'IHDR')), 'png');
    assert.equal(sniffImage(b('RIFF', 0x24, 0, 0, 0, 'WEBPVP8 ')), 'webp');
  });

  it('refuses everything else, whatever it claims to be', () => {
    const refused = [
      b('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      b('<?xml version="1.0"?><svg/>'),
      b('GIF89a', 1, 0, 1, 0),
      b('%PDF-1.7'),
      b('<html><script>alert(1)</script>'),
      b('RIFF', 0x24, 0, 0, 0, 'WAVEfmt '), // RIFF, but audio
      b(0xff, 0xd8), // too short for a JPEG signature
      b(0x89, 'PNG', 0x0d, 0x0a), // PNG prefix cut off
      b('II*', 0), // TIFF
      b(0, 0, 0, 0x1c, 'ftypheic'), // HEIC
      Buffer.alloc(0),
    ];
    for (const r of refused) assert.equal(sniffImage(r), null, r.toString('latin1'));
  });

  it('looks at the first bytes only: a JPEG signature later in the file does not count', () => {
    assert.equal(sniffImage(b('GIF89a', 0xff, 0xd8, 0xff, 0xe0)), null);
  });
});
