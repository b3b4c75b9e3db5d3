import type { Readable } from 'node:stream';
import { DomainError } from '@verity/errors';
import { SNIFF_BYTES, sniffImage, type ImageFormat } from './sniff.js';

/** One uploaded image: 10 MiB at most (docs/id-scan.md and docs/capture.md). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/**
 * Reads a raw image body (the whole request body is the image) under its limits, refusing as early as the bytes
 * allow: 415 `unsupported_file_type` as soon as the first bytes are not a JPEG, PNG or WebP signature (an empty
 * body too), 413 `file_too_large` at the byte past `maxBytes`, 503 when `deadline` passes first. Nothing more
 * is read after a refusal; the caller's error answer discards the rest.
 */
export async function readImageBody(body: Readable, param: string, deadline: number, maxBytes = MAX_IMAGE_BYTES): Promise<{ bytes: Buffer; format: ImageFormat }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let format: ImageFormat | null = null;
  const timer = setTimeout(() => body.destroy(new DomainError('service_unavailable')), Math.max(0, deadline - Date.now()));
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) throw new DomainError('file_too_large', { param });
      if (format === null && size >= SNIFF_BYTES) {
        format = sniffImage(Buffer.concat(chunks).subarray(0, SNIFF_BYTES));
        if (format === null) throw new DomainError('unsupported_file_type', { param });
      }
    }
  } catch (e) {
    if (e instanceof DomainError) throw e;
    throw new DomainError('service_unavailable');
  } finally {
    clearTimeout(timer);
  }
  const bytes = Buffer.concat(chunks, size);
  format ??= sniffImage(bytes);
  if (format === null) throw new DomainError('unsupported_file_type', { param });
  return { bytes, format };
}
