import { randomBytes } from 'node:crypto';

export type FormPart = { name: string; value: string } | { name: string; file: Uint8Array; filename: string };

/**
 * A multipart/form-data body, encoded once: a retry sends the very same bytes (a new boundary per try would be
 * another body to the server's idempotency check, docs/errors.md#idempotency).
 */
export function multipartBody(parts: FormPart[]): { data: Uint8Array; contentType: string } {
  const boundary = `----verity-sdk-${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const head =
      'file' in p
        ? `Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${imageType(p.file)}`
        : `Content-Disposition: form-data; name="${p.name}"`;
    chunks.push(Buffer.from(`--${boundary}\r\n${head}\r\n\r\n`), 'file' in p ? Buffer.from(p.file) : Buffer.from(p.value, 'utf8'), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { data: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The declared type of an image part (the server goes by the bytes anyway, docs/id-scan.md). */
function imageType(b: Uint8Array): string {
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png';
  if (Buffer.from(b.subarray(0, 4)).toString('latin1') === 'RIFF' && Buffer.from(b.subarray(8, 12)).toString('latin1') === 'WEBP') return 'image/webp';
  return 'application/octet-stream';
}
