/**
 * Machine-readable zones as ICAO 9303 prints them: check digits (weights 7-3-1), names transliterated and
 * folded into the name field, and the line layouts of TD1 (3 × 30), TD2 (2 × 36) and TD3 (2 × 44).
 */

const WEIGHTS = [7, 3, 1];

function charValue(c: string): number {
  if (c === '<') return 0;
  const code = c.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 90) return code - 55;
  throw new Error(`not an MRZ character: ${JSON.stringify(c)}`);
}

/** ICAO 9303 part 3 §4.9: the check digit of a field. */
export function checkDigit(field: string): string {
  let sum = 0;
  for (let i = 0; i < field.length; i++) sum += charValue(field[i]) * WEIGHTS[i % 3];
  return String(sum % 10);
}

/**
 * How an issuer writes letters outside A–Z in an MRZ: `plain` drops the diacritics (`MÜLLER` → `MULLER`), `icao`
 * uses ICAO 9303 part 3's transliterations where it has one (`Ü` → `UE`, `ß` → `SS`, `Å` → `AA`, `Ø` → `OE`),
 * as German documents do (`MUELLER`). Both are allowed.
 */
export type Transliteration = 'plain' | 'icao';

/**
 * A name component in MRZ characters: transliterated, apostrophes removed, every other separator (space, hyphen)
 * a filler.
 */
export function mrzText(s: string, style: Transliteration = 'plain'): string {
  const icao = style === 'icao' ? s.toUpperCase().replace(/[ÄÆ]/g, 'AE').replace(/[ÖØŒ]/g, 'OE').replace(/Ü/g, 'UE').replace(/ß/g, 'SS').replace(/Å/g, 'AA') : s;
  return icao
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/ß/g, 'SS')
    .replace(/['’]/g, '')
    .replace(/[^A-Z0-9]+/g, '<');
}

function pad(s: string, width: number): string {
  if (s.length > width) return s.slice(0, width);
  return s + '<'.repeat(width - s.length);
}

/** The name field: primary identifier, `<<`, secondary identifiers separated by `<`, truncated to `width`. */
export function mrzName(familyName: string, givenNames: readonly string[], width: number, style: Transliteration = 'plain'): string {
  const primary = mrzText(familyName, style);
  const secondary = givenNames.map((g) => mrzText(g, style)).join('<');
  return pad(secondary ? `${primary}<<${secondary}` : primary, width);
}

/** `YYYY-MM-DD` → `YYMMDD`. */
export function mrzDate(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) throw new Error(`not a date: ${iso}`);
  return m[1].slice(2) + m[2] + m[3];
}

export interface MrzInput {
  /** `P`, `I`, `ID`, `AC`… (one or two letters). */
  documentCode: string;
  issuingState: string;
  familyName: string;
  givenNames: readonly string[];
  number: string;
  nationality: string;
  dateOfBirth: string;
  sex: 'F' | 'M' | 'X';
  expiryDate: string;
  optionalData?: string;
  /** How the names are transliterated (default `plain`). */
  transliteration?: Transliteration;
}

function withCheck(field: string): string {
  return field + checkDigit(field);
}

function sexChar(sex: MrzInput['sex']): string {
  return sex === 'X' ? '<' : sex;
}

/** A document number longer than 9 characters does not fit this generator's layouts. */
function docNumber(n: string): string {
  const s = mrzText(n);
  if (s.length > 9) throw new Error('document numbers of more than 9 characters are not generated');
  return pad(s, 9);
}

/** TD3 (passport booklets): two lines of 44. */
export function td3(d: MrzInput): [string, string] {
  const line1 = pad(pad(d.documentCode, 2) + pad(d.issuingState, 3) + mrzName(d.familyName, d.givenNames, 39, d.transliteration), 44);
  const num = withCheck(docNumber(d.number));
  const dob = withCheck(mrzDate(d.dateOfBirth));
  const exp = withCheck(mrzDate(d.expiryDate));
  const opt = pad(mrzText(d.optionalData ?? ''), 14);
  const optField = opt === '<'.repeat(14) ? opt + '<' : withCheck(opt);
  const composite = checkDigit(num + dob + exp + optField);
  const line2 = num + pad(d.nationality, 3) + dob + sexChar(d.sex) + exp + optField + composite;
  return [line1, line2];
}

/** TD1 (identity cards): three lines of 30. */
export function td1(d: MrzInput): [string, string, string] {
  const num = withCheck(docNumber(d.number));
  const line1 = pad(d.documentCode, 2) + pad(d.issuingState, 3) + num + pad(mrzText(d.optionalData ?? ''), 15);
  const dob = withCheck(mrzDate(d.dateOfBirth));
  const exp = withCheck(mrzDate(d.expiryDate));
  const head = dob + sexChar(d.sex) + exp + pad(d.nationality, 3) + '<'.repeat(11);
  const composite = checkDigit(line1.slice(5, 30) + head.slice(0, 7) + head.slice(8, 15) + head.slice(18, 29));
  return [line1, head + composite, mrzName(d.familyName, d.givenNames, 30, d.transliteration)];
}

/** TD2 (older identity cards and some residence permits): two lines of 36. */
export function td2(d: MrzInput): [string, string] {
  const line1 = pad(d.documentCode, 2) + pad(d.issuingState, 3) + mrzName(d.familyName, d.givenNames, 31, d.transliteration);
  const num = withCheck(docNumber(d.number));
  const dob = withCheck(mrzDate(d.dateOfBirth));
  const exp = withCheck(mrzDate(d.expiryDate));
  const opt = pad(mrzText(d.optionalData ?? ''), 7);
  const composite = checkDigit(num + dob + exp + opt);
  return [line1, num + pad(d.nationality, 3) + dob + sexChar(d.sex) + exp + opt + composite];
}
