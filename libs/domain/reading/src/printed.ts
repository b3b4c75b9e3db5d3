import { isoDate, type DocumentRead } from './fields.js';

/** A word OCR found, with its box in the image's pixels. */
export interface Word {
  text: string;
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The fields of a document's printed (visual) zone that are compared with its machine-readable data. */
export const PRINTED_FIELDS = ['family_name', 'given_names', 'date_of_birth', 'document_number'] as const;
export type PrintedFieldName = (typeof PRINTED_FIELDS)[number];

/**
 * One printed field: what was read there (null when its label or value was not found), and whether it agrees
 * with the machine-readable data: true, false (a clear disagreement), or null (not read, or too blurred to say).
 */
export interface PrintedField {
  printed: string | null;
  agrees: boolean | null;
}

export type PrintedFields = Record<PrintedFieldName, PrintedField>;

/** The words of a line, grouped into phrases: runs of words no further apart than a word's height or so. */
export function phrases(words: Word[]): Word[] {
  // rows: words whose middles lie within each other's height
  const rows: Word[][] = [];
  for (const w of [...words].filter((w) => w.text.trim()).sort((a, b) => a.top + a.height / 2 - (b.top + b.height / 2))) {
    const mid = w.top + w.height / 2;
    const row = rows.find((r) => r.some((p) => Math.abs(p.top + p.height / 2 - mid) < Math.max(p.height, w.height) * 0.5));
    if (row) row.push(w);
    else rows.push([w]);
  }
  const out: Word[] = [];
  for (const row of rows) {
    let prev: Word | null = null;
    for (const w of row.sort((a, b) => a.left - b.left)) {
      const gap = prev ? w.left - (prev.left + prev.width) : Infinity;
      if (prev && gap < Math.max(prev.height, w.height) * 1.3) {
        const right = Math.max(prev.left + prev.width, w.left + w.width);
        const bottom = Math.max(prev.top + prev.height, w.top + w.height);
        prev.text = `${prev.text} ${w.text}`;
        prev.top = Math.min(prev.top, w.top);
        prev.width = right - prev.left;
        prev.height = bottom - prev.top;
      } else {
        prev = { ...w };
        out.push(prev);
      }
    }
  }
  return out;
}

/** Upper case, diacritics dropped, only letters, digits and single spaces. */
function plain(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, ' ')
    .trim();
}

/**
 * Labels of the fields, as documents print them (several languages; ICAO and EU cards, AAMVA's abbreviations).
 * A label may carry a field number (`1.`, `4d`) and be bilingual (`Surname / Nom`): each part is tried.
 */
const LABELS: Record<PrintedFieldName, string[]> = {
  family_name: ['SURNAME', 'SURNAMES', 'FAMILY NAME', 'LAST NAME', 'NAME', 'NOM', 'APELLIDOS', 'NACHNAME', 'ACHTERNAAM', 'COGNOME', 'LN'],
  given_names: ['GIVEN NAMES', 'GIVEN NAME', 'FIRST NAME', 'FIRST NAMES', 'FORENAMES', 'PRENOMS', 'PRENOM', 'VORNAMEN', 'VOORNAMEN', 'NOMBRE', 'NOME', 'FN'],
  date_of_birth: ['DATE OF BIRTH', 'BIRTH DATE', 'DOB', 'DATE DE NAISSANCE', 'GEBURTSDATUM', 'FECHA DE NACIMIENTO', 'GEBOORTEDATUM', 'DATA DI NASCITA'],
  document_number: ['PASSPORT NO', 'PASSPORT NUMBER', 'DOCUMENT NO', 'DOCUMENT NUMBER', 'CARD NO', 'CARD NUMBER', 'NO', 'DL', 'DLN', 'LICENSE NO', 'LICENCE NO', 'DOCUMENTO', 'NUMERO', 'NUMMER', 'AUSWEISNUMMER'],
};

/** Edit distance (Levenshtein) between two strings. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur.push(Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[b.length];
}

/** Which field a phrase labels, if it is a label: OCR noise forgiven in long labels, none in short ones. */
export function labelOf(text: string): PrintedFieldName | null {
  for (const part of text.split('/')) {
    const whole = plain(part);
    // a field number before the label, spaced or not (`1. Surname`, `4d DL`, `1LN`)
    for (const p of new Set([whole, whole.replace(/^\d+[A-Z]?\s+/, ''), whole.replace(/^\d+\s*/, '')])) {
      if (!p) continue;
      for (const field of PRINTED_FIELDS) {
        for (const label of LABELS[field]) {
          const slack = label.length >= 8 ? 2 : label.length >= 5 ? 1 : 0;
          if (editDistance(p, label) <= slack) return field;
        }
      }
    }
  }
  return null;
}

/**
 * The printed fields of a side, from its OCR words: each field's label, then its value, the nearest phrase just
 * below the label and aligned with it, or else the rest of the label's line. A value that is itself a label is
 * none. Fields not found are null.
 */
export function printedFields(words: Word[]): Record<PrintedFieldName, string | null> {
  const ps = phrases(words);
  const found: Record<PrintedFieldName, string | null> = { family_name: null, given_names: null, date_of_birth: null, document_number: null };
  for (const label of ps) {
    const field = labelOf(label.text);
    if (!field || found[field] !== null) continue;
    const h = label.height;
    const below = ps
      .filter((v) => v !== label && v.top >= label.top + h * 0.6 && v.top <= label.top + h * 3.5 && Math.abs(v.left - label.left) <= h * 1.5)
      .sort((a, b) => a.top - b.top)[0];
    const right = ps
      .filter((v) => v !== label && Math.abs(v.top + v.height / 2 - (label.top + h / 2)) < h * 0.5 && v.left > label.left + label.width && v.left - (label.left + label.width) < h * 6)
      .sort((a, b) => a.left - b.left)[0];
    const value = below ?? right;
    if (value && !labelOf(value.text)) found[field] = value.text.trim();
  }
  return found;
}

/** Ways a printed name may be spelled in an MRZ or a barcode: ICAO 9303 part 3's transliterations, only letters. */
export function spellings(name: string): string[] {
  const up = name.toUpperCase();
  const expanded = up
    .replace(/[ÄÆ]/g, 'AE')
    .replace(/[ÖØŒ]/g, 'OE')
    .replace(/Ü/g, 'UE')
    .replace(/ß/g, 'SS')
    .replace(/Å/g, 'AA')
    .replace(/Þ/g, 'TH')
    .replace(/Đ/g, 'D');
  const letters = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').replace(/ß/g, 'SS').replace(/Ø/g, 'O').replace(/[^A-Z]/g, '');
  return [...new Set([letters(up), letters(expanded)])];
}

/**
 * Printed name against machine-readable name, letters only (spaces, hyphens and apostrophes dropped: an MRZ has
 * none). The MRZ may have cut a long name short (`truncated`): then the printed name's start is compared. Agrees
 * within OCR noise (no change in up to 4 letters, one in up to 9, two beyond); disagrees when further apart than
 * a third of the name; between the two, or when nothing was printed, says nothing.
 */
export function namesAgree(printed: string | null, read: string, truncated: boolean): boolean | null {
  const want = read.replace(/[^A-Z]/g, '');
  if (printed === null || !want) return null;
  let best = Infinity;
  for (const s of spellings(printed)) {
    if (!s) continue;
    const got = truncated && s.length > want.length ? s.slice(0, want.length) : s;
    best = Math.min(best, editDistance(got, want));
  }
  if (best === Infinity) return null;
  const allowed = want.length <= 4 ? 0 : want.length <= 9 ? 1 : 2;
  if (best <= allowed) return true;
  return best >= Math.max(allowed + 2, Math.ceil(want.length / 3)) ? false : null;
}

const MONTHS: Record<string, number> = {
  JAN: 1, FEB: 2, FEV: 2, MAR: 3, MRZ: 3, APR: 4, AVR: 4, ABR: 4, MAY: 5, MAI: 5, MAG: 5, JUN: 6, JUIN: 6, JUL: 7, JUIL: 7, LUG: 7,
  AUG: 8, AOU: 8, AGO: 8, SEP: 9, SET: 9, OCT: 10, OKT: 10, OTT: 10, NOV: 11, DEC: 12, DEZ: 12, DIC: 12,
};

/**
 * The date a printed value gives, as `YYYY-MM-DD`: `12 AUG 1974` (and `12 AUG/AOUT 74`), `12.08.1974`,
 * `1974-08-12`, `1974/08/12` (Canadian licences), and `08/12/1974`, which is month first on US licences
 * (`monthFirst`) and day first elsewhere. Two-digit years are in the past century when they would be in the future.
 */
export function printedDate(value: string | null, monthFirst: boolean, today: string): string | null {
  if (!value) return null;
  const v = plain(value.replace(/[Oo](?=\d)|(?<=\d)[Oo]/g, '0'));
  const year = (y: string) => {
    if (y.length === 4) return Number(y);
    const yy = Number(y);
    const thisYear = Number(today.slice(0, 4));
    return 2000 + yy > thisYear ? 1900 + yy : 2000 + yy;
  };
  let m = /(\d{1,2}) ([A-Z]{3,4})[A-Z]*(?: [A-Z]{3,5})? (\d{4}|\d{2})\b/.exec(v);
  if (m && MONTHS[m[2]] !== undefined) return isoDate(year(m[3]), MONTHS[m[2]], Number(m[1]));
  m = /\b(\d{4}) (\d{1,2}) (\d{1,2})\b/.exec(v);
  if (m) return isoDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /\b(\d{1,2}) (\d{1,2}) (\d{4}|\d{2})\b/.exec(v);
  if (m) return monthFirst ? isoDate(year(m[3]), Number(m[1]), Number(m[2])) : isoDate(year(m[3]), Number(m[2]), Number(m[1]));
  m = /\b(\d{2})(\d{2})(\d{4})\b/.exec(v);
  if (m) return monthFirst ? isoDate(Number(m[3]), Number(m[1]), Number(m[2])) : isoDate(Number(m[3]), Number(m[2]), Number(m[1]));
  return null;
}

/** Dates agree when equal; one digit apart is a blur, not a verdict; more is a different date. */
export function datesAgree(printed: string | null, read: string): boolean | null {
  if (printed === null) return null;
  if (printed === read) return true;
  let differ = 0;
  for (let i = 0; i < read.length; i++) if (printed[i] !== read[i]) differ++;
  return differ >= 2 ? false : null;
}

/** OCR's look-alikes in a document number, folded to one spelling. */
function numberKey(s: string): string {
  return plain(s).replace(/ /g, '').replace(/[OQD]/g, '0').replace(/[IL]/g, '1').replace(/S/g, '5').replace(/B/g, '8').replace(/Z/g, '2').replace(/G/g, '6');
}

/**
 * Document numbers agree when equal but for look-alikes. A number is arbitrary letters and digits, which OCR
 * reads worse than words (a 9 read as I and a stray S in one number of the bench's matrix): up to two
 * characters apart says nothing; three or more, and a third of the number, is another number.
 */
export function numbersAgree(printed: string | null, read: string): boolean | null {
  if (printed === null) return null;
  const got = numberKey(printed), want = numberKey(read);
  if (!got) return null;
  // a number printed with a prefix or a space inside it (`No. 123 456`) holds the number
  if (got === want || (got.length > want.length && got.endsWith(want))) return true;
  return editDistance(got, want) >= Math.max(3, Math.ceil(want.length / 3)) ? false : null;
}

/**
 * The printed fields of a side's OCR words compared with a read. Each field is taken from its label's value
 * (`printedFields`); a field whose label was not read is looked for among all the phrases, and counts only if a
 * phrase agrees (a disagreement needs the label: unlabelled text could be anything). `monthFirst`: dates are
 * printed month first (US licences); `truncated`: the MRZ's name field is full, so its names may be cut short.
 */
export function comparePrinted(words: Word[], read: DocumentRead, o: { monthFirst: boolean; truncated: boolean; today: string }): PrintedFields {
  const h = read.holder;
  const labelled = printedFields(words);
  const ps = phrases(words).map((p) => p.text.trim());
  const field = (value: string | null, agrees: (v: string | null) => boolean | null): PrintedField => {
    if (value !== null) return { printed: value, agrees: agrees(value) };
    const hit = ps.find((p) => agrees(p) === true);
    return hit ? { printed: hit, agrees: true } : { printed: null, agrees: null };
  };
  const mononym = h.given_names.length === 0;
  // a licence prints the suffix after the family name (`TANAKA III`); the barcode has it apart
  const suffix = h.name_suffix;
  const withoutSuffix = (v: string) => {
    const words = v.trim().split(/\s+/);
    const last = plain(words.at(-1)!).replace(/[L1]/g, 'I'); // OCR's I, l and 1 look alike in `III`
    return suffix && words.length > 1 && editDistance(last, suffix.replace(/[L1]/g, 'I')) <= 1 ? words.slice(0, -1).join(' ') : v;
  };
  return {
    family_name: field(labelled.family_name, (v) => (v === null ? null : namesAgree(withoutSuffix(v), h.family_name, o.truncated))),
    // a mononym has no given names: a dash or nothing is printed there
    given_names: mononym
      ? { printed: labelled.given_names, agrees: labelled.given_names === null || !/[A-Z]{2}/i.test(labelled.given_names) }
      : field(labelled.given_names, (v) => namesAgree(v, h.given_names.join(''), o.truncated)),
    date_of_birth: field(labelled.date_of_birth, (v) => datesAgree(printedDate(v, o.monthFirst, o.today), h.date_of_birth)),
    document_number: field(labelled.document_number, (v) => numbersAgree(v, read.document.number)),
  };
}

/**
 * What the printed fields say of the read: `data_mismatch` when any clearly disagrees; nothing when the family
 * name and the date of birth or the document number agree and none disagrees; otherwise
 * `printed_data_unreadable`: too little was read to tie the printed side to the machine-readable data.
 */
export function printedVerdict(f: PrintedFields): 'data_mismatch' | 'printed_data_unreadable' | null {
  if (PRINTED_FIELDS.some((k) => f[k].agrees === false)) return 'data_mismatch';
  if (f.family_name.agrees === true && (f.date_of_birth.agrees === true || f.document_number.agrees === true)) return null;
  return 'printed_data_unreadable';
}
