/**
 * `location`: one display line, at most 500 Unicode code points after `String.prototype.trim()`. Control
 * characters, bidirectional marks, `<` and `>`, line and paragraph separators and lone surrogates are refused
 * anywhere in the value, the trimmed part included (each class: docs/metadata.md, "`location`").
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
