/**
 * `location`: one display line, at most 500 characters after trimming.
 *
 * Decisions (see docs/metadata.md):
 * - Trimming is `String.prototype.trim()`: leading and trailing white space. Because control
 *   characters and line separators are refused anyway, what it removes in an accepted value is
 *   the space characters (U+0020, U+00A0, U+1680, U+2000–U+200A, U+202F, U+205F, U+3000) and
 *   U+FEFF.
 * - Characters are counted as Unicode code points (an emoji outside the BMP counts as one).
 * - Refused anywhere in the value, including the part that trimming would remove: C0 controls
 *   (U+0000–U+001F, so tab and newlines too), DEL (U+007F), C1 controls (U+0080–U+009F); the
 *   bidirectional marks U+200E, U+200F, U+061C, U+202A–U+202E, U+2066–U+2069; `<` and `>`; the
 *   line and paragraph separators U+2028 and U+2029 (they break "one display line"); lone UTF-16
 *   surrogates (not text; a JSON store refuses them).
 */

export const LOCATION_MAX_CHARACTERS = 500;

/** One refused class of characters: the issue message names the class, never the value. */
export interface LocationCharRule {
  readonly name: string;
  readonly re: RegExp;
}

// Built from escapes so that the source holds no invisible characters.
export const LOCATION_CHAR_RULES: readonly LocationCharRule[] = [
  { name: 'control characters', re: /[\u0000-\u001F\u007F-\u009F]/u },
  { name: 'bidirectional marks', re: /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u },
  { name: 'angle brackets (< or >)', re: /[<>]/u },
  { name: 'line or paragraph separators (U+2028, U+2029)', re: /[\u2028\u2029]/u },
  { name: 'unpaired UTF-16 surrogates', re: /\p{Cs}/u },
];

/** Length in Unicode code points. */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

export function trimLocation(s: string): string {
  return s.trim();
}
