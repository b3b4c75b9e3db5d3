/** The image formats ID scan accepts, told from their bytes and never from a declared type or file name. */
export type ImageFormat = 'jpeg' | 'png' | 'webp';

/** Bytes needed to tell the accepted formats apart (WebP's signature ends at byte 12). */
export const SNIFF_BYTES = 12;

/**
 * The format whose signature `head` starts with: JPEG `FF D8 FF`, PNG `89 50 4E 47 0D 0A 1A 0A`, WebP
 * `RIFF` + 4 length bytes + `WEBP`. Anything else (SVG, GIF, PDF, HTML, an empty file…) is null.
 */
export function sniffImage(head: Uint8Array): ImageFormat | null {
  const at = (i: number, bytes: number[]) => bytes.every((b, j) => head[i + j] === b);
  if (at(0, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (at(0, [0x52, 0x49, 0x46, 0x46]) && at(8, [0x57, 0x45, 0x42, 0x50])) return 'webp';
  return null;
}
