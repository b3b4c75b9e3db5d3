/**
 * Email signals, computed offline: a disposable-address domain (a list shipped in an npm package), a
 * machine-generated-looking domain, and a part before the at-sign that does not read like a name. The two
 * heuristics are lexical, deterministic and documented in docs/screening.md ("Device intelligence").
 */
import { createRequire } from 'node:module';
import { domainToASCII } from 'node:url';

const require = createRequire(import.meta.url);

/** The disposable-domain list of `disposable-email-domains-js` (CC0-1.0), read once, on first use. */
let disposable: ReadonlySet<string> | undefined;

function disposableDomains(): ReadonlySet<string> {
  if (disposable === undefined) {
    const list = require('disposable-email-domains-js/dist/dict/disposable_email_blocklist.json') as unknown;
    if (!Array.isArray(list)) throw new Error('disposable-email-domains-js: the domain list is not an array');
    disposable = new Set(list.filter((d): d is string => typeof d === 'string').map((d) => d.toLowerCase()));
  }
  return disposable;
}

/** How many domains the shipped disposable list holds (for tests and the docs). */
export function disposableDomainCount(): number {
  return disposableDomains().size;
}

export interface EmailParts {
  /** The part before the last `@`, as sent. */
  local: string;
  /** The part after the last `@`: lowercased, ASCII (IDNA), without a trailing dot. */
  domain: string;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** The two parts of an address, or undefined when it has no usable local part or domain. */
export function emailParts(email: string | null | undefined): EmailParts | undefined {
  if (typeof email !== 'string') return undefined;
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1) return undefined;
  let domain = email.slice(at + 1).trim().toLowerCase();
  if (domain.endsWith('.')) domain = domain.slice(0, -1);
  // Non-ASCII domains are compared in their ASCII (punycode) form, as the list stores them.
  if (/[^\x20-\x7e]/.test(domain)) domain = domainToASCII(domain);
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return undefined;
  return { local: email.slice(0, at), domain };
}

/** `fraud.emailDisposable`: the domain, or a domain it belongs to, is on the disposable list. */
export function isDisposableDomain(domain: string): boolean {
  const set = disposableDomains();
  const labels = domain.split('.');
  // `inbox.mailinator.com` is as disposable as `mailinator.com`; the top-level label alone is never matched.
  for (let i = 0; i <= labels.length - 2; i++) {
    if (set.has(labels.slice(i).join('.'))) return true;
  }
  return false;
}

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u', 'y']);

function isLetter(c: string): boolean {
  return c >= 'a' && c <= 'z';
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

/** Consonant groups that spell one sound (`sch`, `ch`, `th`, `ck`…): each counts as one consonant in a run. */
const DIGRAPHS = /sch|[cgkpstwz]h|ck/g;

/**
 * Longest run of ASCII consonants: `y` counts as a vowel, anything but a consonant breaks the run, and a group
 * that spells one sound (`sch`, `ch`, `sh`, `th`, `ph`, `gh`, `kh`, `wh`, `zh`, `ck`) counts as one consonant, so
 * `deutschland` has a run of 3, not 7.
 */
export function longestConsonantRun(text: string): number {
  const s = text.toLowerCase().replace(DIGRAPHS, 'x');
  let best = 0;
  let run = 0;
  for (const c of s) {
    if (isLetter(c) && !VOWELS.has(c)) {
      run++;
      if (run > best) best = run;
    } else {
      run = 0;
    }
  }
  return best;
}

/** Switches between letters and digits, separators ignored: `a8f3` has 3. */
export function letterDigitSwitches(s: string): number {
  let prev: 'l' | 'd' | undefined;
  let n = 0;
  for (const c of s) {
    const k = isDigit(c) ? 'd' : /\p{L}/u.test(c) ? 'l' : undefined;
    if (k === undefined) continue;
    if (prev !== undefined && k !== prev) n++;
    prev = k;
  }
  return n;
}

/** Shannon entropy of the characters of `s`, in bits per character. */
export function shannonEntropy(s: string): number {
  const chars = [...s];
  if (chars.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / chars.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * Second-level labels under which registrations are made (`example.co.uk`): such a label is not itself judged.
 * A short, fixed list rather than the public-suffix list: a label it misses is short and so never judged anyway.
 */
const REGISTRY_LABELS = new Set(['ac', 'co', 'com', 'edu', 'gov', 'gob', 'go', 'ltd', 'me', 'mil', 'ne', 'net', 'nic', 'or', 'org', 'plc', 'sch']);

/** Shortest label (letters and digits, hyphens not counted) the DGA heuristic judges. */
export const DGA_MIN_LENGTH = 8;

/**
 * Whether one domain label looks machine-generated: a long consonant run, many switches between letters and
 * digits, too few vowels, or high entropy with few vowels (the thresholds: docs/screening.md, "Computed
 * fields"). Labels shorter than {@link DGA_MIN_LENGTH} letters and digits, and IDNA (`xn--`) labels, are never
 * judged.
 */
export function labelLooksGenerated(label: string): boolean {
  if (label.startsWith('xn--')) return false;
  const alnum = label.replace(/-/g, '');
  if (alnum.length < DGA_MIN_LENGTH) return false;
  const letters = [...alnum].filter(isLetter);
  const digits = alnum.length - letters.length;
  const vowels = letters.filter((c) => VOWELS.has(c)).length;
  const vowelRatio = letters.length === 0 ? 0 : vowels / letters.length;
  if (longestConsonantRun(label) >= 6) return true;
  if (digits >= 3 && letterDigitSwitches(alnum) >= 3) return true;
  if (letters.length >= 8 && vowelRatio < 0.1) return true;
  if (alnum.length >= 12 && shannonEntropy(alnum) >= 3.5 && vowelRatio < 0.25) return true;
  return false;
}

/**
 * `fraud.emailDomainDga`: some label of the domain other than the top-level one (and other than a registry label
 * such as the `co` of `co.uk`) looks machine-generated ({@link labelLooksGenerated}).
 */
export function domainLooksGenerated(domain: string): boolean {
  const labels = domain.split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const l = labels[i];
    if (i === labels.length - 2 && labels.length > 2 && REGISTRY_LABELS.has(l)) continue;
    if (labelLooksGenerated(l)) return true;
  }
  return false;
}

/** Keyboard walks and filler that no name contains. */
const KEYBOARD_RUNS = ['qwert', 'asdf', 'zxcv', 'qazwsx', 'wasd', 'azerty', 'qwertz', 'yxcv', 'hjkl'];

/**
 * `fraud.emailUsernameGrammarInvalid`: the part before the at-sign, without its `+tag` and quotes, does not read
 * like a name: no letter, more digits than letters, many switches between letters and digits, a long consonant
 * run, a word without vowels, a character repeated, or a keyboard walk (the rules: docs/screening.md, "Computed
 * fields"). Letters outside ASCII count as letters (names in any script) and break consonant runs.
 */
export function usernameGrammarInvalid(localPart: string): boolean {
  let local = localPart.trim();
  if (local.length >= 2 && local.startsWith('"') && local.endsWith('"')) local = local.slice(1, -1);
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  local = local.toLowerCase();
  const chars = [...local];
  const letters = chars.filter((c) => /\p{L}/u.test(c)).length;
  const digits = chars.filter(isDigit).length;
  if (letters === 0) return true;
  if (digits > letters) return true;
  if (letterDigitSwitches(local) >= 4) return true;
  if (longestConsonantRun(local) >= 6) return true;
  for (const word of local.match(/[a-z]+/g) ?? []) {
    if (word.length >= 8 && [...word].filter((c) => VOWELS.has(c)).length / word.length < 0.1) return true;
  }
  if (/(.)\1{3}/u.test(local)) return true;
  return KEYBOARD_RUNS.some((k) => local.includes(k));
}
