import { parse, type ParseResult } from 'mrz';
import { countryOfIcao, mrzDate, reasonsFor, type DocumentRead, type DocumentType } from './fields.js';

/** The three ICAO 9303 layouts: lines × characters. */
const LAYOUTS = [
  { format: 'TD1', lines: 3, length: 30 },
  { format: 'TD2', lines: 2, length: 36 },
  { format: 'TD3', lines: 2, length: 44 },
] as const;

/** Which line of each layout holds the names, and where. */
const NAME_FIELD = { TD1: { line: 2, start: 0 }, TD2: { line: 0, start: 5 }, TD3: { line: 0, start: 5 } } as const;

/** How an OCR read of a zone ended. */
export type MrzParse =
  | { ok: true; read: DocumentRead }
  /** Lines of an MRZ's shape were read, but a check digit or the name field's structure does not hold. */
  | { ok: false; why: 'check_digit_mismatch' | 'unsupported_document'; lines: string[] }
  /** Nothing of an MRZ's shape. */
  | { ok: false; why: 'not_found' };

/**
 * Fits OCR lines to an MRZ layout. OCR of long runs of `<` fillers gains or loses a chevron now and then; a line
 * within two characters of the layout's length is mended by growing or shrinking its longest filler run, which
 * is where such errors happen. Check digits decide afterwards whether the mend was right.
 */
export function fitLines(raw: string[]): string[][] {
  const lines = raw.map((l) => l.replace(/[«‹]/g, '<').replace(/[^A-Z0-9<]/g, '')).filter((l) => l.length >= 20);
  const fits: string[][] = [];
  for (const layout of LAYOUTS) {
    for (let i = 0; i + layout.lines <= lines.length; i++) {
      const group = lines.slice(i, i + layout.lines);
      if (group.every((l) => Math.abs(l.length - layout.length) <= 2)) fits.push(group.map((l) => mend(l, layout.length)));
    }
  }
  return fits;
}

function mend(line: string, length: number): string {
  if (line.length === length) return line;
  const runs = [...line.matchAll(/<{2,}/g)];
  if (runs.length === 0) return line.length > length ? line.slice(0, length) : line.padEnd(length, '<');
  const longest = runs.reduce((a, b) => (b[0].length > a[0].length ? b : a));
  const at = longest.index + longest[0].length;
  const delta = length - line.length;
  return delta > 0 ? line.slice(0, at) + '<'.repeat(delta) + line.slice(at) : line.slice(0, at + delta) + line.slice(at);
}

const CHECK_FIELDS = new Set(['documentNumberCheckDigit', 'birthDateCheckDigit', 'expirationDateCheckDigit', 'compositeCheckDigit', 'personalNumberCheckDigit']);
/** Fields whose failure means the read (or the print) is wrong; state codes are judged separately. */
const STRUCTURE_FIELDS = new Set(['documentCode', 'documentNumber', 'birthDate', 'expirationDate', 'sex', 'lastName', 'firstName', ...CHECK_FIELDS]);

/** ICAO 9303: one `<<` between primary and secondary identifiers, single `<` inside each, fillers to the end. */
const NAME_FIELD_SHAPE = /^[A-Z]+(<[A-Z]+)*(<<[A-Z]+(<[A-Z]+)*)?<*$/;

function documentType(code: string): DocumentType | null {
  if (code.startsWith('P')) return 'passport';
  if (/^[IAC]/.test(code)) return 'identity_card';
  return null; // visas (V) and anything else: not an identity document this reader accepts
}

/**
 * Where letters and digits are both allowed and a check digit guards them: the document number and the optional
 * data (which carries the end of a long number). In numeric and alphabetic fields the parser mends look-alikes
 * itself (`O` in a date is `0`); here only the check digits can tell.
 */
const ALPHANUMERIC: Record<'TD1' | 'TD2' | 'TD3', [line: number, start: number, end: number][]> = {
  TD1: [[0, 5, 14], [0, 15, 30], [1, 18, 29]],
  TD2: [[1, 0, 9], [1, 28, 35]],
  TD3: [[1, 0, 9], [1, 28, 42]],
};

/** At most this many look-alike places are weighed (2^8 spellings at most). */
const MAX_AMBIGUOUS = 8;

function layoutOf(lines: string[]): 'TD1' | 'TD2' | 'TD3' | null {
  for (const l of LAYOUTS) if (lines.length === l.lines && lines.every((x) => x.length === l.length)) return l.format;
  return null;
}

/** A place in a guarded field holding one of OCR-B's two worst look-alike pairs, and its two spellings. */
interface Ambiguity {
  line: number;
  col: number;
  /** The spelling tried first, and the other. */
  first: string;
  other: string;
}

/**
 * Parses MRZ lines into a read, if every check digit and the name field hold. In the guarded alphanumeric
 * fields, the look-alikes `0`/`O` and `5`/`S` are spelled both ways in rounds of fewest changes; the first round
 * in which exactly one spelling holds every check digit gives the read, and a round with two leaves the zone
 * unread (why this is sound, and what stays out of reach: docs/reading.md, "Look-alikes in the document number").
 */
export function parseMrz(lines: string[], today: string): MrzParse {
  const layout = layoutOf(lines);
  if (!layout) return parseExact(lines, today);
  const places: Ambiguity[] = [];
  for (const [line, start, end] of ALPHANUMERIC[layout]) {
    for (let col = start; col < end; col++) {
      const c = lines[line][col];
      if (c === '0' || c === 'O') places.push({ line, col, first: '0', other: 'O' });
      else if (c === '5' || c === 'S') places.push({ line, col, first: c, other: c === '5' ? 'S' : '5' });
    }
  }
  if (places.length > MAX_AMBIGUOUS) return parseExact(lines, today);
  const variant = [...lines];
  for (let changes = 0; changes <= places.length; changes++) {
    const valid: MrzParse[] = [];
    for (const changed of combinations(places.length, changes)) {
      places.forEach((p, i) => {
        variant[p.line] = variant[p.line].slice(0, p.col) + (changed.has(i) ? p.other : p.first) + variant[p.line].slice(p.col + 1);
      });
      const parsed = parseExact(variant, today);
      if (parsed.ok) valid.push(parsed);
    }
    if (valid.length === 1) return valid[0];
    if (valid.length > 1) return { ok: false, why: 'check_digit_mismatch', lines };
  }
  return parseExact(lines, today);
}

/** Every set of `k` indexes out of `n`. */
function* combinations(n: number, k: number, from = 0, chosen: number[] = []): Generator<Set<number>> {
  if (chosen.length === k) {
    yield new Set(chosen);
    return;
  }
  for (let i = from; i < n; i++) yield* combinations(n, k, i + 1, [...chosen, i]);
}

function parseExact(lines: string[], today: string): MrzParse {
  // visas (MRV-A and MRV-B, code V) share the TD3 and TD2 shapes; they are not identity documents
  if (lines[0]?.startsWith('V')) return { ok: false, why: 'unsupported_document', lines };
  let result: ParseResult;
  try {
    result = parse(lines, { autocorrect: true });
  } catch {
    return { ok: false, why: 'not_found' };
  }
  const format = result.format;
  if (format !== 'TD1' && format !== 'TD2' && format !== 'TD3') return { ok: false, why: 'not_found' };
  const broken = result.details.some((d) => d.field && STRUCTURE_FIELDS.has(d.field) && !d.valid);
  const nameField = nameText(lines, format, result);
  if (broken || !NAME_FIELD_SHAPE.test(nameField)) return { ok: false, why: 'check_digit_mismatch', lines };
  const f = result.fields;
  const type = documentType(f.documentCode ?? '');
  if (!type) return { ok: false, why: 'unsupported_document', lines };
  const [primary, secondary = ''] = nameField.replace(/<+$/, '').split('<<');
  const dob = mrzDate(f.birthDate ?? '', 'birth', today);
  const expiry = mrzDate(f.expirationDate ?? '', 'expiry', today);
  if (!dob || !expiry) return { ok: false, why: 'check_digit_mismatch', lines };
  const issuingState = lines[0].slice(2, 5);
  const nationalityCode = format === 'TD1' ? lines[1].slice(15, 18) : lines[1].slice(10, 13);
  const issuing_country = countryOfIcao(issuingState);
  const nationality = countryOfIcao(nationalityCode);
  const read: Omit<DocumentRead, 'reasons'> = {
    document: { type, format, issuing_country, number: (result.documentNumber ?? f.documentNumber ?? '').replace(/</g, ''), expiry_date: expiry },
    holder: {
      family_name: primary.replace(/</g, ' '),
      given_names: secondary ? secondary.split('<') : [],
      name_suffix: null,
      date_of_birth: dob,
      nationality,
      sex: f.sex === 'male' ? 'M' : f.sex === 'female' ? 'F' : 'X',
    },
  };
  return { ok: true, read: { ...read, reasons: reasonsFor(read, issuing_country !== null, nationality !== null, today) } };
}

/** The name field with the parser's alphabetic corrections (0 → O, 1 → I…) applied. */
function nameText(lines: string[], format: 'TD1' | 'TD2' | 'TD3', result: ParseResult): string {
  const { line, start } = NAME_FIELD[format];
  let text = lines[line].slice(start);
  for (const d of result.details) {
    if (d.field !== 'lastName') continue;
    for (const a of d.autocorrect) {
      if (a.line === line && a.column >= start) text = text.slice(0, a.column - start) + a.corrected + text.slice(a.column - start + 1);
    }
  }
  return text;
}
