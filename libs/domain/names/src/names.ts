import anyAscii from 'any-ascii';
import { distance } from 'fastest-levenshtein';

/**
 * Names and dates of one person as two sources spell them: what an integrator typed (any script, diacritics,
 * hyphens, initials) and what a document's machine-readable data holds (upper-case Latin, transliterated by the
 * issuer, possibly truncated). Pure: no I/O, no state.
 */

/** A person's name as the applicant model holds it: the family name whole, the given names in order. */
export interface PersonName {
  familyName: string;
  givenNames: readonly string[];
}

/**
 * Any script to ASCII letters, as an issuer's transliteration would come close to: `Müller` → `Muller`,
 * `Юлия` → `Yuliya`, `Παπαδόπουλος` → `Papadopoylos`, `Łukasz` → `Lukasz` (the `any-ascii` package's tables).
 */
export function transliterate(s: string): string {
  return anyAscii(s.normalize('NFKC'));
}

/**
 * A name as comparable text: transliterated, upper case, apostrophes dropped (`O'Connor` → `OCONNOR`, as ICAO
 * 9303 writes it), every other run of non-letters (spaces, hyphens, dots, the MRZ filler `<`) one space, trimmed.
 */
export function normalize(s: string): string {
  return transliterate(s)
    .toUpperCase()
    .replace(/['`\u00b4\u2018\u2019]/g, '')
    .replace(/[^A-Z]+/g, ' ')
    .trim();
}

/** The words of a name (or of several), normalized; empty strings give none. */
export function nameTokens(parts: string | readonly string[]): string[] {
  const all = typeof parts === 'string' ? [parts] : parts;
  return all.flatMap((p) => normalize(p).split(' ')).filter((t) => t.length > 0);
}

/**
 * The skeleton two spellings of one name share once transliteration choices are folded away, applied to both
 * sides alike: German and Nordic letters written out or not (`AE`/`OE`/`UE` → `A`/`O`/`U`, `AA` → `A`), Greek
 * `ΟΥ` as `OY` or `OU`, and `Y` as `I` (Cyrillic `Й`, `Я`, `Ю` are `I`, `IA`, `IU` in ICAO 9303 and `Y`, `Ya`,
 * `Yu` elsewhere).
 */
export function fold(token: string): string {
  return token
    .replace(/OY/g, 'OU')
    .replace(/AE/g, 'A')
    .replace(/OE/g, 'O')
    .replace(/UE/g, 'U')
    .replace(/AA/g, 'A')
    .replace(/Y/g, 'I');
}

/** The edits two folded words may differ by and still be one name: none under 6 letters, one from 6, two from 12. */
function allowance(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  return n >= 12 ? 2 : n >= 6 ? 1 : 0;
}

/** Two words are one name: the same skeleton, or skeletons within the allowance. */
export function sameWord(a: string, b: string): boolean {
  const fa = fold(a);
  const fb = fold(b);
  if (fa === fb) return true;
  const k = allowance(fa, fb);
  return k > 0 && Math.abs(fa.length - fb.length) <= k && distance(fa, fb) <= k;
}

/** A word and an initial (`A` for `ADA`), either way round. */
function initialOf(a: string, b: string): boolean {
  return (a.length === 1 && b.startsWith(a)) || (b.length === 1 && a.startsWith(b));
}

/**
 * Whether every word of `xs` can be paired with a different word of `ys` (a maximum bipartite matching, Kuhn's
 * augmenting paths: polynomial whatever the names).
 */
function fits(xs: readonly string[], ys: readonly string[], match: (x: string, y: string) => boolean): boolean {
  if (xs.length > ys.length) return false;
  const edges = xs.map((x) => ys.map((y, j) => (match(x, y) ? j : -1)).filter((j) => j >= 0));
  const owner = new Array<number>(ys.length).fill(-1);
  const augment = (i: number, seen: boolean[]): boolean => {
    for (const j of edges[i]!) {
      if (seen[j]) continue;
      seen[j] = true;
      if (owner[j] === -1 || augment(owner[j]!, seen)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  return xs.every((_, i) => augment(i, new Array<boolean>(ys.length).fill(false)));
}

/** The shorter list of words fits into the longer one. */
function subset(a: readonly string[], b: readonly string[], match: (x: string, y: string) => boolean): boolean {
  return a.length <= b.length ? fits(a, b, match) : fits(b, a, (x, y) => match(y, x));
}

/**
 * The shortest name field of a machine-readable zone (TD1: 30 characters). A document name that fills at least
 * this many (family, `<<`, given names joined by `<`) may have been cut by its issuer.
 */
export const MRZ_TRUNCATION_LENGTH = 30;

function mrzLength(family: readonly string[], given: readonly string[]): number {
  return family.join('<').length + (given.length > 0 ? 2 + given.join('<').length : 0);
}

/** How the applicant's name and the document holder's compare, part by part and as a whole. */
export interface NameComparison {
  /** The family names are one. */
  family: boolean;
  /** The given names are one; null when the applicant has none to compare. */
  given: boolean | null;
  /** The names are of one person: both parts agree, or the same words in another order across the parts. */
  match: boolean;
}

/**
 * Compares the name an integrator gave an applicant with the name a document holds. Tolerant of what separates
 * two spellings of one name: script and transliteration (`Müller`/`MULLER`/`MUELLER`, Cyrillic or Greek against
 * the zone's Latin), diacritics, case, hyphens and spaces (`O'Connor-Hale` / `OCONNOR HALE`, `DeBruijn` /
 * `DE BRUIJN`), word order, initials (`A. Lovelace`), a middle name on one side only, a name truncated by the
 * zone (when the document's fills the shortest zone field), and one letter in six of residual spelling. Strict
 * otherwise: another family name, another given name, or a given name on one side with none on the other is a
 * mismatch.
 */
export function compareNames(applicant: PersonName, document: PersonName): NameComparison {
  const af = nameTokens(applicant.familyName);
  const ag = nameTokens(applicant.givenNames);
  const df = nameTokens(document.familyName);
  const dg = nameTokens(document.givenNames);
  const truncatable = mrzLength(df, dg) >= MRZ_TRUNCATION_LENGTH;
  // the document's last word, cut by the zone, is a beginning of the applicant's
  const cut = (a: string, d: string, last: string): boolean => truncatable && d === last && d.length >= 1 && fold(a).startsWith(fold(d));

  const family =
    af.length > 0 &&
    df.length > 0 &&
    (sameWord(af.join(''), df.join('')) ||
      subset(af, df, sameWord) ||
      (truncatable && dg.length === 0 && fold(af.join('')).startsWith(fold(df.join('')))));

  const lastGiven = dg[dg.length - 1] ?? '';
  const givenWord = (a: string, d: string) => sameWord(a, d) || initialOf(a, d) || cut(a, d, lastGiven);
  const given = ag.length === 0 ? null : dg.length > 0 && subset(ag, dg, givenWord);

  // the same words, placed differently between family and given names
  const all = [...af, ...ag];
  const docAll = [...df, ...dg];
  const whole = all.length > 0 && all.length === docAll.length && fits(all, docAll, (a, d) => sameWord(a, d) || initialOf(a, d));

  return { family, given, match: (family && given !== false) || whole };
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date `YYYY-MM-DD` that exists (no 31 April, 29 February only in leap years). */
export function isCalendarDate(s: string): boolean {
  const m = ISO_DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** Two dates of birth are one: both real calendar dates, the same day. No tolerance: a date is read exactly or not at all. */
export function compareDates(a: string, b: string): boolean {
  return isCalendarDate(a) && isCalendarDate(b) && a === b;
}

/**
 * Whole years from a date of birth to a day (both `YYYY-MM-DD`): the birthday counts from its own day, and a
 * 29 February birthday from 1 March in other years. Null for a date that is not one, or a birth after the day.
 */
export function ageOn(dateOfBirth: string, day: string): number | null {
  if (!isCalendarDate(dateOfBirth) || !isCalendarDate(day) || dateOfBirth > day) return null;
  const [by, bm, bd] = dateOfBirth.split('-').map(Number) as [number, number, number];
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0);
}
