import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { DomainError, type Issue } from '@verity/errors';
import { sniffImage, SNIFF_BYTES, type ImageFormat } from '@verity/images';

/** Which parts a request may carry: image file parts and text fields, each at most once. */
export interface UploadPolicy {
  files: readonly string[];
  fields: readonly string[];
  /** Why a field outside `fields` is refused (the issue message), e.g. that it exists in test mode only. */
  refusedFieldMessage?: (name: string) => string | undefined;
}

export interface UploadLimits {
  /** Largest image part, in bytes: 413 file_too_large past it. */
  fileBytes: number;
  /** Largest whole body, multipart framing included: 413 request_too_large past it. */
  bodyBytes: number;
  /** Longest text field value, in bytes. */
  fieldBytes: number;
  /** When the whole body must have arrived: 503 service_unavailable after it. */
  deadline?: number;
}

export interface UploadedImage {
  bytes: Buffer;
  format: ImageFormat;
}

export interface Upload {
  files: Map<string, UploadedImage>;
  fields: Map<string, string>;
}

function issue(path: string, message: string, code = 'custom'): DomainError {
  const issues: Issue[] = [{ code, message, path: [path] }];
  return DomainError.validation(issues);
}

/**
 * Reads a multipart/form-data body as it streams, enforcing every limit while reading rather than after: the
 * body size (framing, preamble and epilogue included), each image's size, the part names (each known name at
 * most once, images as file parts, text as fields), and each image's format from its first bytes. The first
 * violation in stream order rejects at once and stops reading, so a refused upload is never taken in whole.
 * Declared content types and file names are ignored. An empty part with an empty file name (a browser's
 * unchosen file input) counts as not sent.
 */
export function readUpload(body: Readable, contentType: string | undefined, policy: UploadPolicy, limits: UploadLimits): Promise<Upload> {
  return new Promise<Upload>((resolve, reject) => {
    if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) {
      reject(issue('front', 'send the document as multipart/form-data with a "front" image part', 'invalid_type'));
      return;
    }
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: { 'content-type': contentType },
        limits: {
          // backstops one past what the policy allows, so the first excess part reaches the name checks below
          files: policy.files.length + 1,
          fields: policy.fields.length + 1,
          parts: policy.files.length + policy.fields.length + 1,
          // busboy reports 'limit' on reaching the size; one byte more means "over the limit"
          fileSize: limits.fileBytes + 1,
          fieldSize: limits.fieldBytes,
          fieldNameSize: 100,
          headerPairs: 16,
        },
      });
    } catch {
      reject(issue('front', 'the multipart/form-data content type has no usable boundary', 'invalid_type'));
      return;
    }

    const files = new Map<string, UploadedImage>();
    const fields = new Map<string, string>();
    const seen = new Set<string>();
    let total = 0;
    let settled = false;

    const cleanup = () => {
      clearTimeout(timer);
      body.off('data', count);
      body.off('error', aborted);
      body.off('aborted', aborted);
    };
    const fail = (e: DomainError) => {
      if (settled) return;
      settled = true;
      cleanup();
      // stop taking the body in: nothing more is read, buffered or parsed. busboy is torn down on the next
      // turn, not from inside one of its own callbacks (it would touch the part it is still writing)
      body.unpipe(bb);
      body.pause();
      bb.on('error', () => undefined);
      setImmediate(() => bb.destroy());
      reject(e);
    };
    const count = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limits.bodyBytes) fail(new DomainError('request_too_large'));
    };
    const aborted = () => fail(issue('front', 'the upload ended before the multipart body was complete'));
    const timer = limits.deadline === undefined ? undefined : setTimeout(() => fail(new DomainError('service_unavailable')), Math.max(0, limits.deadline - Date.now()));

    const claim = (name: string, kind: 'file' | 'field'): boolean => {
      const isFile = policy.files.includes(name);
      const isField = policy.fields.includes(name);
      if (!isFile && !isField) {
        fail(issue(name, policy.refusedFieldMessage?.(name) ?? `unrecognized multipart field "${name}"`, 'unrecognized_keys'));
        return false;
      }
      if (kind === 'file' && !isFile) {
        fail(issue(name, `${name} must be a text field, not a file`, 'invalid_type'));
        return false;
      }
      if (kind === 'field' && !isField) {
        fail(issue(name, `${name} must be an image file part`, 'invalid_type'));
        return false;
      }
      if (seen.has(name)) {
        fail(issue(name, `${name} was sent more than once`));
        return false;
      }
      seen.add(name);
      return true;
    };

    bb.on('file', (name, stream) => {
      // busboy destroys an unfinished part with an error when reading stops: nothing to report then
      stream.on('error', () => undefined);
      if (settled || !claim(name, 'file')) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let format: ImageFormat | null = null;
      stream.on('data', (d: Buffer) => {
        if (settled) return;
        chunks.push(d);
        size += d.length;
        if (format === null && size >= SNIFF_BYTES) {
          format = sniffImage(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
          if (format === null) fail(new DomainError('unsupported_file_type', { param: name }));
        }
      });
      stream.on('limit', () => fail(new DomainError('file_too_large', { param: name })));
      stream.on('end', () => {
        if (settled) return;
        const bytes = Buffer.concat(chunks, size);
        format ??= sniffImage(bytes);
        if (format === null) {
          fail(new DomainError('unsupported_file_type', { param: name }));
          return;
        }
        files.set(name, { bytes, format });
      });
    });

    bb.on('field', (name, value, info) => {
      if (settled) return;
      // a file input left empty arrives as a part with an empty file name and no bytes, which busboy reports as
      // an empty field: not sent
      if (value === '' && policy.files.includes(name) && !seen.has(name)) return;
      if (!claim(name, 'field')) return;
      if (info.valueTruncated) {
        fail(issue(name, `${name} is too long`, 'too_big'));
        return;
      }
      fields.set(name, value);
    });

    const tooMany = () => fail(issue('front', 'the upload has more parts than front, back and expected_outcome', 'too_big'));
    bb.on('partsLimit', tooMany);
    bb.on('filesLimit', tooMany);
    bb.on('fieldsLimit', tooMany);
    bb.on('error', () => fail(issue('front', 'the multipart/form-data body is malformed')));
    bb.on('close', () => {
      if (settled) return;
      settled = true;
      cleanup();
      resolve({ files, fields });
    });

    body.on('data', count);
    body.on('error', aborted);
    body.on('aborted', aborted);
    body.pipe(bb);
  });
}
