import { deflateSync } from 'node:zlib';

/**
 * Images for tests of the upload path, made here: real encodes from sharp, and hostile files built byte by byte
 * (a pixel flood, a truncated JPEG, an SVG, polyglots). Used by unit, integration and end-to-end tests. sharp
 * is loaded on first use only, so importing the testing library does not load it.
 */

async function sharp() {
  return (await import('sharp')).default;
}

function crc32(buf: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of buf) {
    let c = (crc ^ byte) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/**
 * A pixel flood: a valid PNG header declaring `width` × `height` RGB pixels (400 megapixels by default) with a
 * few kilobytes of compressed rows. Decoded, it would need `width × height × 3` bytes.
 */
export function pixelFloodPng(width = 20_000, height = 20_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const rows = deflateSync(Buffer.alloc((1 + width * 3) * 64), { level: 9 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', rows), pngChunk('IEND', Buffer.alloc(0))]);
}

/**
 * A decompression bomb that is a whole, valid image: a `width` × `height` PNG of one colour, every row present,
 * a few hundred kilobytes compressed (9999 × 10000 is just under the 100 megapixel cap and about 290 KB).
 */
export function solidPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const rows = deflateSync(Buffer.alloc((1 + width * 3) * height), { level: 9 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', rows), pngChunk('IEND', Buffer.alloc(0))]);
}

/** The same bomb as a JPEG: one colour, `width` × `height`, about 600 KB at 9999 × 10000. */
export async function solidJpeg(width: number, height: number): Promise<Buffer> {
  return (await sharp())({ create: { width, height, channels: 3, background: { r: 200, g: 180, b: 160 } } }).jpeg({ quality: 50 }).toBuffer();
}

/** A photo-like JPEG (noise, so it does not compress away) of about `width × height` pixels. */
export async function noisyJpeg(width: number, height: number, quality = 80): Promise<Buffer> {
  const raw = Buffer.allocUnsafe(width * height * 3);
  let x = 0x9e3779b9;
  for (let i = 0; i < raw.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    raw[i] = (x >>> 0) & 0xff;
  }
  return (await sharp())(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality }).toBuffer();
}

/** A small document-like image in the given format. */
export async function sampleImage(format: 'jpeg' | 'png' | 'webp', width = 640, height = 400): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#cfe3ea"/><rect x="20" y="60" width="${Math.round(width / 3)}" height="${Math.round(height / 2)}" fill="#8aa"/><circle cx="${Math.round(width * 0.7)}" cy="${Math.round(height / 2)}" r="${Math.round(height / 5)}" fill="#345"/></svg>`;
  return (await sharp())(Buffer.from(svg)).toFormat(format).toBuffer();
}

/**
 * `jpeg` grown to exactly `size` bytes with comment (COM) segments after its SOI marker: still a valid JPEG,
 * with `marker` written into the comments (to look for it in logs and storage afterwards).
 */
export function padJpeg(jpeg: Buffer, size: number, marker = 'padding'): Buffer {
  let missing = size - jpeg.length;
  if (missing < 0) throw new Error(`the JPEG is already ${jpeg.length} bytes`);
  const segments: Buffer[] = [];
  while (missing > 0) {
    if (missing < 5) throw new Error('cannot pad by fewer than 5 bytes');
    // a COM segment: FF FE, 2 length bytes (counting themselves), then up to 65533 bytes
    let payload = Math.min(65533, missing - 4);
    if (missing - (payload + 4) > 0 && missing - (payload + 4) < 5) payload -= 5;
    const body = Buffer.alloc(payload, 0x20);
    body.write(marker.slice(0, payload), 0, 'latin1');
    const head = Buffer.from([0xff, 0xfe, 0, 0]);
    head.writeUInt16BE(payload + 2, 2);
    segments.push(head, body);
    missing -= payload + 4;
  }
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}

/** The first `fraction` of a JPEG: a truncated image whose header still reads. */
export function truncate(jpeg: Buffer, fraction = 0.6): Buffer {
  return jpeg.subarray(0, Math.floor(jpeg.length * fraction));
}

export const SVG_IMAGE = Buffer.from(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="2000" height="1200"><rect width="100%" height="100%" fill="red"/><script>alert(document.domain)</script></svg>',
);

/** A GIF/JavaScript polyglot (a valid GIF header that is also a script), sent as `passport.jpg`. */
export const GIF_SCRIPT_POLYGLOT = Buffer.concat([
  Buffer.from('GIF89a/*', 'latin1'),
  Buffer.from([0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b]),
  Buffer.from('*/=1;alert(document.cookie);', 'latin1'),
]);

/** The JPEG signature followed by an HTML page: passes the signature check, and does not decode. */
export const JPEG_HTML_POLYGLOT = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('<html><body><script>fetch("/steal")</script></body></html>'.repeat(20), 'latin1')]);

/**
 * How alike two images look: the Pearson correlation of small grey copies (`width` × `height`), so that the level
 * shifts and re-encoding of a camera path cancel out. 1 is the same picture; unrelated pictures are near 0.
 */
export async function imageCorrelation(a: Buffer, b: Buffer, width = 64, height = 48): Promise<number> {
  const decode = await sharp();
  const thumb = (x: Buffer) => decode(x).resize(width, height, { fit: 'fill' }).greyscale().raw().toBuffer();
  const [p, q] = await Promise.all([thumb(a), thumb(b)]);
  const n = p.length;
  const mp = p.reduce((s, v) => s + v, 0) / n;
  const mq = q.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (p[i]! - mp) * (q[i]! - mq);
    sxx += (p[i]! - mp) ** 2;
    syy += (q[i]! - mq) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}
