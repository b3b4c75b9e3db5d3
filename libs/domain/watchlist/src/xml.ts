import { SaxesParser } from 'saxes';
import { ListParseError } from './entity.js';
import { textChunks, type ListInput } from './input.js';

/** One element of a record: its local name (no namespace prefix), attributes, own text (trimmed) and children. */
export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  text: string;
  children: XmlNode[];
  /** Where its start tag ends in the file (1-based line). */
  line: number;
}

export interface XmlRecordsOptions {
  /** What the file should be (`an OFAC SDN file`), for the refusal of another root element. */
  format: string;
  /** Accepted root elements (local names). */
  roots: readonly string[];
  /** Whether an element, by its parent's local name and its own, is a record: read whole, then handed over. */
  isRecord(parent: string, name: string): boolean;
  /** The root element's attributes (a publication date), when it opens. */
  onRoot?(attrs: Record<string, string>): void;
}

/** The most characters one record may hold and the deepest nesting: past either the file is refused, never held whole. */
export const MAX_RECORD_CHARS = 4 * 1024 * 1024;
export const MAX_DEPTH = 64;

function local(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
}

/** saxes writes `<file>:<line>:<column>: <message>`; the refusal says where in its own words. */
function saxesDetail(message: string): string {
  const m = /^(?:[^:]*:)?\d+:\d+: (.*)$/s.exec(message);
  return (m ? m[1]! : message).trim();
}

/**
 * The records of an XML file, streamed: the file is read chunk by chunk and only the record being read is held
 * (an element the options call a record, with everything inside it), so memory stays constant whatever the file's
 * size. A file that is not well formed, has another root element, nests too deep or holds an oversized record is
 * refused with a `ListParseError` naming the line and column.
 */
export async function* xmlRecords(input: ListInput, opts: XmlRecordsOptions): AsyncGenerator<XmlNode> {
  const parser = new SaxesParser<{ position: true; xmlns: false }>({ position: true, xmlns: false });
  const stack: string[] = [];
  let open: XmlNode[] | null = null;
  let chars = 0;
  let sawRoot = false;
  const ready: XmlNode[] = [];
  const at = () => ({ line: parser.line, column: parser.column });

  parser.on('opentag', (tag) => {
    const name = local(tag.name);
    if (stack.length === 0) {
      if (sawRoot) throw new ListParseError('a second root element', { ...at(), element: name });
      if (!opts.roots.includes(name)) {
        throw new ListParseError(`the root element is <${name}>, not <${opts.roots.join('> or <')}>: this is not ${opts.format}`, { ...at(), element: name });
      }
      sawRoot = true;
      opts.onRoot?.(tag.attributes);
    }
    if (stack.length >= MAX_DEPTH) throw new ListParseError(`elements nested deeper than ${MAX_DEPTH}`, { ...at(), element: name });
    const attrs: Record<string, string> = {};
    for (const [k, v] of Object.entries(tag.attributes)) attrs[local(k)] = v;
    if (open) {
      const node: XmlNode = { name, attrs, text: '', children: [], line: parser.line };
      open[open.length - 1]!.children.push(node);
      open.push(node);
    } else if (stack.length > 0 && opts.isRecord(stack[stack.length - 1]!, name)) {
      open = [{ name, attrs, text: '', children: [], line: parser.line }];
      chars = 0;
    }
    stack.push(name);
  });
  parser.on('text', (text) => {
    if (!open) return;
    chars += text.length;
    if (chars > MAX_RECORD_CHARS) throw new ListParseError(`a record of more than ${MAX_RECORD_CHARS} characters`, { ...at(), element: open[0]!.name });
    open[open.length - 1]!.text += text;
  });
  parser.on('cdata', (text) => {
    if (open) open[open.length - 1]!.text += text;
  });
  parser.on('closetag', () => {
    stack.pop();
    if (!open) return;
    const node = open.pop()!;
    node.text = node.text.trim();
    if (open.length === 0) {
      ready.push(node);
      open = null;
    }
  });

  const run = (f: () => void) => {
    try {
      f();
    } catch (e) {
      if (e instanceof ListParseError) throw e;
      throw new ListParseError(`not well-formed XML: ${saxesDetail((e as Error).message)}`, at());
    }
  };
  for await (const text of textChunks(input)) {
    run(() => parser.write(text));
    while (ready.length > 0) yield ready.shift()!;
  }
  run(() => parser.close());
  while (ready.length > 0) yield ready.shift()!;
  if (!sawRoot) throw new ListParseError(`no XML element at all: this is not ${opts.format}`);
}

/** The first child of that name, if any. */
export function child(n: XmlNode | undefined, name: string): XmlNode | undefined {
  return n?.children.find((c) => c.name === name);
}

/** Every child of that name (none of a node that is not there). */
export function children(n: XmlNode | undefined, name: string): XmlNode[] {
  return n ? n.children.filter((c) => c.name === name) : [];
}

/** Every descendant of that name, depth first (none of a node that is not there). */
export function descendants(n: XmlNode | undefined, name: string): XmlNode[] {
  const out: XmlNode[] = [];
  if (!n) return out;
  const walk = (x: XmlNode) => {
    for (const c of x.children) {
      if (c.name === name) out.push(c);
      walk(c);
    }
  };
  walk(n);
  return out;
}

/** The text of the first child of that name, or '' when there is none. */
export function textOf(n: XmlNode, name: string): string {
  return child(n, name)?.text ?? '';
}
