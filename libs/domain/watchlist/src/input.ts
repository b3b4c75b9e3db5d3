import { ListParseError } from './entity.js';

/** What a list is read from: the chunks of a file as they arrive (a `fs.createReadStream`, a test's strings). */
export type ListInput = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** The text of a UTF-8 file chunk by chunk, a character split across two chunks decoded whole, the BOM dropped. */
export async function* textChunks(input: ListInput): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let bytes = 0;
  const decode = (chunk?: Uint8Array) => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new ListParseError(`not UTF-8 text (near byte ${bytes})`);
    }
  };
  for await (const chunk of input) {
    const text = typeof chunk === 'string' ? chunk : decode(chunk);
    if (typeof chunk !== 'string') bytes += chunk.length;
    if (text !== '') yield text;
  }
  const rest = decode();
  if (rest !== '') yield rest;
}

/** The longest line a line-based format may have (one JSON entity): longer is refused, never held whole. */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

/** The lines of a text file, numbered from 1, without their line endings; a file's last line needs no newline. */
export async function* textLines(input: ListInput, tooLong: (line: number) => Error): AsyncGenerator<{ line: number; text: string }> {
  let carry = '';
  let n = 0;
  for await (const text of textChunks(input)) {
    let from = 0;
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      const line = carry + text.slice(from, nl);
      carry = '';
      n++;
      yield { line: n, text: line.endsWith('\r') ? line.slice(0, -1) : line };
      from = nl + 1;
      nl = text.indexOf('\n', from);
    }
    carry += text.slice(from);
    if (carry.length > MAX_LINE_CHARS) throw tooLong(n + 1);
  }
  if (carry !== '') yield { line: n + 1, text: carry.endsWith('\r') ? carry.slice(0, -1) : carry };
}
