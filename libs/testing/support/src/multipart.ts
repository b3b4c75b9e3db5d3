import { randomBytes } from 'node:crypto';

/** One part of a multipart/form-data body: a text field (`value`) or a file (`file`). */
export interface Part {
  name: string;
  /** A text field's value. */
  value?: string;
  /** A file part's bytes. */
  file?: Buffer;
  /** A file part's name; `<name>.jpg` unless given. */
  filename?: string;
  /** A file part's declared type; `image/jpeg` unless given. */
  type?: string;
}

export interface Multipart {
  body: Buffer;
  contentType: string;
  boundary: string;
}

/**
 * A multipart/form-data body built byte by byte, as a client would send it (or, with `preamble` and
 * `close: false`, as a broken or hostile one would). The boundary is random unless given.
 */
export function multipart(parts: Part[], opts: { boundary?: string; preamble?: Buffer; close?: boolean } = {}): Multipart {
  const boundary = opts.boundary ?? `----verity${randomBytes(8).toString('hex')}`;
  const out: Buffer[] = [];
  if (opts.preamble) out.push(opts.preamble);
  for (const p of parts) {
    const disp =
      p.file !== undefined
        ? `form-data; name="${p.name}"; filename="${p.filename ?? `${p.name}.jpg`}"\r\nContent-Type: ${p.type ?? 'image/jpeg'}`
        : `form-data; name="${p.name}"`;
    out.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disp}\r\n\r\n`), p.file ?? Buffer.from(p.value ?? ''), Buffer.from('\r\n'));
  }
  if (opts.close !== false) out.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(out), contentType: `multipart/form-data; boundary=${boundary}`, boundary };
}
