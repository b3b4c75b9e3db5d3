import { jaroWinkler } from '@skyra/jaro-winkler';
import { fold, normalize } from '@verity/names';
import { doubleMetaphone } from 'double-metaphone';
import countries from 'i18n-iso-countries';
import { countryCode } from './entity.js';

/**
 * Name matching for watchlist screening (docs/watchlist.md, "How matching scores"). Pure: no I/O, no state.
 *
 * A name is written in Latin capitals first (`@verity/names`: transliteration of any script, diacritics and case
 * folded away), then split into words. Two names are compared word by word, whatever their order: each word of one
 * is paired with at most one word of the other, best pairs first, and each pair says why it matched (`exact`,
 * `transliteration`, `phonetic`, `spelling`, `initial`). The name's score weighs the pairs against the words left
 * unpaired; the date of birth and the nationality then raise or lower it.
 */

/** Name particles: a pair of them proves little, and one left unpaired costs little. */
const PARTICLES = new Set([
  'AL', 'EL', 'UL', 'BIN', 'BEN', 'IBN', 'BINT', 'ABU', 'UMM', 'BAR', 'DE', 'DA', 'DI', 'DO', 'DOS', 'DAS', 'DU', 'DEL', 'DELLA', 'DELA', 'LA', 'LE', 'VAN', 'VON', 'DER', 'DEN', 'TER', 'Y',
]);

/** Particles that begin a family name (`AL MANSOURI`, `VAN DER BERG`, `DE LA CRUZ`), unlike those of a father's name (`BIN`, `ABU`). */
const FAMILY_PARTICLES = new Set([...PARTICLES].filter((p) => !['BIN', 'BEN', 'IBN', 'BINT', 'ABU', 'UMM', 'BAR', 'Y'].includes(p)));

/**
 * Whether word `i` is marked a family name: by an article or particle before it, or, written in Arabic script, by
 * the article written into it (`المنصوري`, `LMNSWRY`).
 */
function familyMarked(tokens: readonly NameToken[], i: number): boolean {
  const t = tokens[i]!;
  if (i > 0 && FAMILY_PARTICLES.has(tokens[i - 1]!.text)) return true;
  return t.vowelless && t.variantSkeleton.length >= 4 && t.variantSkeleton.startsWith('L') && /^L/.test(t.text);
}

/** One word of a name, with what its comparisons need. */
export interface NameToken {
  /** Latin capitals (`MUHAMMAD`). */
  text: string;
  /** The transliteration-neutral skeleton of `@verity/names` (`Y` as `I`, `AE` as `A`, …). */
  folded: string;
  /** Double Metaphone codes (one or two). */
  phonetic: string[];
  /** Consonant skeletons (`MHMD`), with an Arabic article or final `ه` dropped where the word may carry one. */
  skeletons: string[];
  /** Written without vowels, as Arabic script transliterates (`MHMD`): compared by skeleton. */
  vowelless: boolean;
  /** `folded` with the spellings of one Cyrillic letter by the ICAO, BGN/PCGN and German systems made one (`variantSpelling`). */
  variant: string;
  /** The consonant skeleton of `variant` (`SCHTSCHERBAKOW`, `SHCHERBAKOV`: `SHRBKV`). */
  variantSkeleton: string;
  particle: boolean;
  /** Marked a family name by the article or particle before it, or written into it (`familyMarked`). */
  family?: boolean;
}

export interface PreparedName {
  /** The name as given (any script). */
  original: string;
  tokens: NameToken[];
  /** The same words with each particle joined to the word after it (`AL MANSOURI` → `ALMANSOURI`); null when there is none. */
  joined: NameToken[] | null;
}

const VOWELS = /[AEIOU]/;
const ARABIC = /[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff]/;

/** Consonants only, doubled letters once, `Q` as `K`: what a name keeps across vowel-less transliteration. */
function skeleton(word: string): string {
  return word
    .replace(/Q/g, 'K')
    .replace(/[AEIOUYW]/g, '')
    .replace(/(.)\1+/g, '$1');
}

/**
 * A word's spelling with the differences between transliteration systems folded away, for the index keys and the
 * `transliteration` pair only (the document check's `fold` of `@verity/names` stays strict): German spellings of
 * Cyrillic (`SCHTSCH`/`SHCH` щ, `TSCH`/`CH` ч, `SCH`/`SH`/`ZH` ш ж, `CH`/`KH` х, `Z`/`TS` ц, `S`/`Z` з, `W`/`V` в,
 * `J`/`Y`/`I` й, `IJ`/`IY` ий, `JO`/`YO`/`E` ё), `OU`/`U`, `PH`/`F`, `X`/`KS`, Greek `NT`/`D`, `MP`/`B`, `GK`/`G`, doubled letters once.
 */
export function variantSpelling(folded: string): string {
  return folded
    .replace(/SCHTSCH/g, 'SHCH')
    .replace(/TSCH/g, 'CH')
    .replace(/SCH/g, 'SH')
    .replace(/ZH/g, 'SH')
    .replace(/[KC]H/g, 'H')
    .replace(/TS|TZ|Z/g, 'S')
    .replace(/J/g, 'I')
    // ё after a consonant: `E` (ICAO), `YO` (BGN/PCGN), `JO` (German): `PETR`, `PYOTR`, `PJOTR`
    .replace(/([B-DF-HK-NP-TV-Z])IO/g, '$1E')
    .replace(/W/g, 'V')
    .replace(/OU/g, 'U')
    .replace(/PH/g, 'F')
    .replace(/X/g, 'KS')
    // Greek by ELOT 743 and as spoken (`ANTONIOU`/`ADONIOU` ντ, `LAMPRAKIS`/`LABRAKIS` μπ, `GK`/`G` γκ)
    .replace(/NT/g, 'D')
    .replace(/MP/g, 'B')
    .replace(/GK/g, 'G')
    .replace(/(.)\1+/g, '$1');
}

/**
 * A word's skeletons for the initial, typo and year keys: the transliteration-folded one (`variantSkeleton`), and a
 * vowel-less word's also without its article or final `ه`. The same fold on both sides, so that a name listed in
 * Arabic script and screened in Latin letters shares them (`الخزاشي`, `KHUZASHI`: `HSH`).
 */
const keySkeletons = (t: NameToken): string[] => {
  const sk = t.variantSkeleton;
  const out = [sk];
  if (t.vowelless) {
    if (sk.length >= 4 && sk.startsWith('L')) out.push(sk.slice(1));
    if (sk.length >= 3 && sk.endsWith('H')) out.push(sk.slice(0, -1));
  }
  return [...new Set(out)].filter((k) => k.length >= 2);
};

/** The class of a word's first letter for the initial keys: vowels (and `J`, `Y`) one class, as transliterations of one letter begin either. */
function initialClass(t: NameToken): string {
  const c = (t.text.length === 1 ? variantSpelling(fold(t.text)) : t.variant)[0] ?? '';
  return /[AEIOU]/.test(c) ? 'A' : c === 'C' ? 'H' : c;
}

function token(text: string, abjad: boolean): NameToken {
  const vowelless = text.length >= 2 && (abjad || !VOWELS.test(text));
  const sk = skeleton(text);
  const skeletons = new Set(sk.length >= 2 ? [sk] : []);
  if (vowelless) {
    // Arabic script writes the article into the word (المنصوري → lmnswry) and ends a name in ة (أسامة → smh)
    if (sk.length >= 4 && sk.startsWith('L')) skeletons.add(sk.slice(1));
    if (sk.length >= 3 && sk.endsWith('H')) skeletons.add(sk.slice(0, -1));
  }
  const phonetic = [...new Set(doubleMetaphone(text))].filter((c) => c.length > 0);
  const folded = fold(text);
  // a vowel-less word's W and Y are its vowels (`LMNSWRY`); its consonants are folded as a Latin spelling's are
  const variant = variantSpelling(vowelless ? folded.replace(/W/g, 'U') : folded);
  return { text, folded, phonetic, skeletons: [...skeletons], vowelless, variant, variantSkeleton: skeleton(variant), particle: PARTICLES.has(text) };
}

function joinParticles(tokens: NameToken[], abjad: boolean): NameToken[] | null {
  const joins = (t: NameToken, next: NameToken | undefined): next is NameToken => t.particle && next !== undefined && !next.particle && next.text.length > 1;
  if (!tokens.some((t, i) => joins(t, tokens[i + 1]))) return null;
  const out: NameToken[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (joins(t, next)) {
      out.push({ ...token(t.text + next.text, abjad), family: FAMILY_PARTICLES.has(t.text) });
      i++;
    } else out.push(t);
  }
  return out;
}

/** A name ready for comparison: its words in Latin capitals, with their folded, phonetic and skeleton forms. */
export function prepareName(name: string): PreparedName {
  const abjad = ARABIC.test(name);
  const words = normalize(name)
    .split(' ')
    .filter((w) => w.length > 0);
  const tokens = words.map((w) => token(w, abjad));
  tokens.forEach((t, i) => (t.family = familyMarked(tokens, i)));
  return { original: name, tokens, joined: joinParticles(tokens, abjad) };
}

/**
 * The words of a listed name given pair, typo and year keys: its longest (a family name most often, and the word a
 * typo most often hits); one, so that a list of a million persons keeps about a dozen keys a name.
 */
const KEYED_WORDS = 1;
/** The consonants of a word's start and of its end kept as typo keys. */
const AFFIX = 3;

/**
 * The index keys of a name (docs/watchlist.md, "Finding candidates"), about a dozen: per word its Double Metaphone
 * codes (`p:MHMT`) and its transliteration-folded consonant skeletons (`s:MHMD`); for the keyed word (the family
 * name where an article marks it, else the longest), its folded skeleton with each other word's first letter (`i:PTRVSK:A`: what an initial matches, and what tells a
 * common word's namesakes apart), its first and last three consonants (`a:PTR`, `z:VSK`: a misspelt consonant
 * leaves one of them), and its skeleton with each year of `birthYears` (`y:PTRVSK:1961`: the namesakes of a common
 * name told apart by the year), and so its first and last three consonants (`b:PTR:1961`, `e:VSK:1961`: a misspelt
 * word among them). `query` gives the pair, typo and year keys of every word (the person screened does
 * not know which word of a listed name is keyed).
 */
export function nameKeys(name: PreparedName, query = false, birthYears: readonly number[] = []): string[] {
  const keys = new Set<string>();
  for (const t of [...name.tokens, ...(name.joined ?? [])]) {
    if (t.particle || t.text.length < 2) continue;
    for (const p of t.phonetic) if (p.length >= 2) keys.add(`p:${p}`);
    for (const s of keySkeletons(t)) keys.add(`s:${s}`);
    // a word of fewer consonants (`YULIYA`, `JULIJA`: `L`) by its folded spelling whole
    if (t.variantSkeleton.length < 2) keys.add(`v:${t.variant}`);
  }
  const words = name.tokens.filter((t) => !t.particle);
  const full = name.tokens
    .map((t, i) => ({ t, i, family: t.family === true }))
    .filter(({ t }) => !t.particle && t.text.length >= 2 && t.variantSkeleton.length >= 2)
    // a family name by its article first (the last such), then the longest; of two as long, the later (lists write
    // the family name last more often than first)
    .sort((a, b) => Number(b.family) - Number(a.family) || (a.family ? 0 : b.t.variantSkeleton.length - a.t.variantSkeleton.length) || b.i - a.i)
    .map((x) => x.t);
  for (const t of query ? full : full.slice(0, KEYED_WORDS)) {
    for (const u of words) {
      if (u === t) continue;
      for (const k of keySkeletons(t)) {
        keys.add(`i:${k}:${initialClass(u)}`);
        // Arabic script may write a word's first vowel as a consonant (`علي`, `LY`) or not at all
        if (u.vowelless) keys.add(`i:${k}:A`);
      }
    }
  }
  for (const t of query ? full : full.slice(0, KEYED_WORDS)) {
    // (of a word in Arabic script also without its article: `LMNSR` and `MNSR`, as a Latin spelling begins)
    for (const sk of keySkeletons(t)) {
      if (sk.length > AFFIX) {
        keys.add(`a:${sk.slice(0, AFFIX)}`);
        keys.add(`z:${sk.slice(-AFFIX)}`);
      }
    }
  }
  // the words with a year of birth: what tells apart the many namesakes of a common name
  for (const t of query ? full : full.slice(0, KEYED_WORDS)) for (const y of birthYears) for (const k of keySkeletons(t)) keys.add(`y:${k}:${y}`);
  // and their start or end with the year: a misspelt word among the namesakes of its start or end
  for (const t of query ? full : full.slice(0, KEYED_WORDS)) {
    for (const y of birthYears) {
      for (const sk of keySkeletons(t)) {
        if (sk.length > AFFIX) {
          keys.add(`b:${sk.slice(0, AFFIX)}:${y}`);
          keys.add(`e:${sk.slice(-AFFIX)}:${y}`);
        }
      }
    }
  }
  return [...keys];
}

/** The years of birth of `dates` (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`); with `near`, each with the years either side. */
export function birthYears(dates: ReadonlyArray<string | null | undefined>, near = false): number[] {
  const years = new Set<number>();
  for (const d of dates) {
    const y = d && /^\d{4}/.test(d) ? Number(d.slice(0, 4)) : null;
    if (y === null) continue;
    years.add(y);
    if (near) years.add(y - 1).add(y + 1);
  }
  return [...years];
}

/** The index keys of a listed party: those of each of its names, with its years of birth (`nameKeys`). */
export function partyKeys(names: readonly string[], datesOfBirth: readonly string[]): string[] {
  const years = birthYears(datesOfBirth);
  return [...new Set(names.flatMap((n) => nameKeys(prepareName(n), false, years)))];
}

export type TokenMatch = 'exact' | 'transliteration' | 'phonetic' | 'spelling' | 'initial';

/** Two words paired below this similarity are not a pair (an initial pairs at `INITIAL_SIMILARITY`). */
export const PAIR_MINIMUM = 0.8;
export const INITIAL_SIMILARITY = 0.7;
/** What one word transliterated two ways scores (`YULIYA`/`IULIIA`, `MHMD`/`MUHAMMAD`). */
const TRANSLITERATION_SIMILARITY = 0.95;
const SKELETON_SIMILARITY = 0.9;
/** One word in two transliteration systems (`SCHTSCHERBAKOW` / `SHCHERBAKOV`): `variantSpelling` makes them one. */
const VARIANT_SIMILARITY = 0.92;
/** Words that sound alike score at least this, when their spelling is not far apart either (Jaro-Winkler ≥ 0.75). */
const PHONETIC_SIMILARITY = 0.88;

/** How alike two words are, and why: 0 when they are not one name. */
export function tokenSimilarity(a: NameToken, b: NameToken): { similarity: number; how: TokenMatch | null } {
  if (a.text === b.text) return { similarity: 1, how: 'exact' };
  if (a.text.length === 1 || b.text.length === 1) {
    return a.text[0] === b.text[0] ? { similarity: INITIAL_SIMILARITY, how: 'initial' } : { similarity: 0, how: null };
  }
  if (a.folded === b.folded) return { similarity: TRANSLITERATION_SIMILARITY, how: 'transliteration' };
  // (two words both in Arabic script are transliterated alike: `ZYD` and `SYD` are two names, not two spellings)
  if (a.variant === b.variant && !(a.vowelless && b.vowelless)) return { similarity: VARIANT_SIMILARITY, how: 'transliteration' };
  if (a.vowelless || b.vowelless) {
    // a word of one consonant (`علي`, `LY`: `ALI`) by its folded skeleton whole
    const oneConsonant = a.variantSkeleton.length === 1 && a.variantSkeleton === b.variantSkeleton && !a.particle && !b.particle;
    if (a.skeletons.some((s) => b.skeletons.includes(s)) || oneConsonant) {
      return { similarity: SKELETON_SIMILARITY, how: 'transliteration' };
    }
  }
  const jw = Math.max(jaroWinkler(a.folded, b.folded), jaroWinkler(a.variant, b.variant));
  // one sound written otherwise: the same Double Metaphone code, and the same consonants once transliteration is
  // folded, or one letter apart (`MOHAMMED`/`MUHAMMAD`); the code alone also pairs other names that begin alike
  // (`DUBET`/`DUBADOIS`, both `TPT`), and a syllable more or less is another name (`NOWAKOWSKI`/`NOWAKSKI`)
  const sounds =
    jw >= 0.75 && a.phonetic.some((p) => b.phonetic.includes(p)) && (a.variantSkeleton === b.variantSkeleton || editDistance(a.variant, b.variant, 1) <= 1);
  if (sounds && jw < PHONETIC_SIMILARITY) return { similarity: PHONETIC_SIMILARITY, how: 'phonetic' };
  // a misspelling is one edit past the first letter: Jaro-Winkler alone also pairs different names that share a stem
  // (ROUSSET, ROUSSERIN), and two edits or another first letter other names of a crowded list (SAMI, RAMI)
  // (a short word's one edit weighs more in Jaro-Winkler: `IGOR`/`IROR` 0.75, scored as the minimum of a pair)
  // and a family name is not misspelt into a given name (`MANSOURI`/`MANSOUR`, `BILALI`/`BILAL`: a nisba of it)
  // (two words in Arabic script: their first Latin letter may be the article's, or a vowel's written or not)
  const arabic = a.vowelless && b.vowelless;
  const sameStart = arabic || ((a.variant[0] === b.variant[0] || a.text[0] === b.text[0]) && (a.family ?? false) === (b.family ?? false));
  // (one edit once transliteration is folded counts when it is a consonant's, `PETROWSLY`/`PETROVSKY`; vowels
  // written otherwise are the sound-alikes' above)
  const variantEdit = a.variantSkeleton !== b.variantSkeleton && editDistance(a.variant, b.variant, 1) <= 1;
  const oneEdit = sameStart && (editDistance(a.text, b.text, 1) <= 1 || editDistance(a.folded, b.folded, 1) <= 1 || variantEdit);
  if (oneEdit && (jw >= PAIR_MINIMUM || Math.min(a.text.length, b.text.length) >= 4)) return { similarity: Math.max(jw, PAIR_MINIMUM), how: 'spelling' };
  if (jw < PAIR_MINIMUM) return { similarity: jw, how: null };
  return sounds ? { similarity: PHONETIC_SIMILARITY, how: 'phonetic' } : { similarity: 0, how: null };
}

/**
 * Edits (a letter dropped, added, replaced, or two neighbours swapped) from `a` to `b`; any count above `max` is
 * returned as `max + 1`.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return Math.min(prev[b.length]!, max + 1);
}

export interface TokenPair {
  /** The word of the person's name, and of the listed name, in Latin capitals. */
  query: string;
  listed: string;
  how: TokenMatch;
  similarity: number;
}

export interface NameComparison {
  /** 0 to 1. */
  score: number;
  pairs: TokenPair[];
  /** Words of each name left unpaired. */
  unpaired: { query: number; listed: number };
  /** The paired words stand in another order in the two names (given and family names swapped). */
  reordered: boolean;
}

function weight(t: NameToken): number {
  return t.particle ? 0.3 : t.text.length === 1 ? 0.5 : 1;
}

/** What a misspelt pair counts for after the first of a name (`compareTokens`). */
const MORE_MISSPELT = 0.5;

/** What an unpaired word costs, against a pair's weight of 2 (one on each side). */
const UNPAIRED_COST = 0.5;
/**
 * The most a comparison resting on a single word scores when either name has more (`MUHAMMAD` alone proves little),
 * and on a single word and an initial (`A. PETROVSKY`).
 */
const ONE_WORD_CEILING = 0.6;
/**
 * A word and an initial that agree are all such a name says: the listed person is possible, a reviewer's to clear
 * (at the review threshold of 0.8 by the name alone; a date of birth years apart still takes it below).
 */
const WORD_AND_INITIAL_CEILING = 0.8;

function compareTokens(q: NameToken[], n: NameToken[]): NameComparison {
  const candidates: Array<{ i: number; j: number; similarity: number; how: TokenMatch }> = [];
  for (let i = 0; i < q.length; i++) {
    for (let j = 0; j < n.length; j++) {
      const s = tokenSimilarity(q[i]!, n[j]!);
      if (s.how !== null) candidates.push({ i, j, similarity: s.similarity, how: s.how });
    }
  }
  candidates.sort((x, y) => y.similarity - x.similarity || x.i - y.i || x.j - y.j);
  const usedQ = new Set<number>();
  const usedN = new Set<number>();
  const chosen: typeof candidates = [];
  for (const c of candidates) {
    if (usedQ.has(c.i) || usedN.has(c.j)) continue;
    usedQ.add(c.i);
    usedN.add(c.j);
    chosen.push(c);
  }
  // one misspelt word is a typo; two (`ALINA BELENSKAYA` / `ALYONA BELANSKAYA`) are another name more often than two
  // typos: the misspellings after the best count as half a pair
  // (a vowel written otherwise is a spelling, as Arabic names are written in Latin letters: `KHALID`/`KHALED`,
  // `HUSSEIN`/`HUSSAIN`, `NASSER`/`NASIR`)
  const misspelt = chosen
    .filter((c) => c.how === 'spelling' && q[c.i]!.variantSkeleton !== n[c.j]!.variantSkeleton)
    .sort((x, y) => y.similarity - x.similarity)
    .slice(1);
  let matched = 0;
  let paired = 0;
  for (const c of chosen) {
    const w = weight(q[c.i]!) + weight(n[c.j]!);
    matched += (misspelt.includes(c) ? MORE_MISSPELT : c.similarity) * w;
    paired += w;
  }
  let unpaired = 0;
  q.forEach((t, i) => usedQ.has(i) || (unpaired += weight(t)));
  n.forEach((t, j) => usedN.has(j) || (unpaired += weight(t)));
  // a full word left on each side is a word that differs (another family name), not one the other side leaves out
  // (a middle name): each such two count as a pair of similarity 0
  const left = (ts: NameToken[], used: Set<number>) => ts.filter((t, i) => !used.has(i) && weight(t) === 1).length;
  const conflicts = Math.min(left(q, usedQ), left(n, usedN));
  unpaired -= 2 * conflicts;
  // a family name on one side only is another family, not a name the other side leaves out: it costs as a word
  // that differs, whichever of the unpaired words the conflicts above already counted
  const family = (ts: NameToken[], used: Set<number>) => Math.max(0, ts.filter((t, i) => !used.has(i) && t.family === true && weight(t) === 1).length - conflicts);
  const families = family(q, usedQ) + family(n, usedN);
  let score = paired === 0 ? 0 : matched / (paired + 2 * conflicts + UNPAIRED_COST * unpaired + (2 - UNPAIRED_COST) * families);
  const strong = chosen.filter((c) => !q[c.i]!.particle && c.how !== 'initial').length;
  const words = (ts: NameToken[]) => ts.filter((t) => !t.particle).length;
  if (strong === 0) score = Math.min(score, 0.3);
  else if (strong < 2 && (words(q) > 1 || words(n) > 1)) {
    score = Math.min(score, chosen.some((c) => c.how === 'initial') ? WORD_AND_INITIAL_CEILING : ONE_WORD_CEILING);
  }
  const byQuery = [...chosen].sort((x, y) => x.i - y.i);
  const reordered = byQuery.some((c, k) => k > 0 && c.j < byQuery[k - 1]!.j);
  return {
    score,
    pairs: byQuery.map((c) => ({ query: q[c.i]!.text, listed: n[c.j]!.text, how: c.how, similarity: round(c.similarity) })),
    unpaired: { query: q.length - usedQ.size, listed: n.length - usedN.size },
    reordered,
  };
}

/** Two names compared whatever their order and script; the better of the plain and the particle-joined readings. */
export function compareNames(query: PreparedName, listed: PreparedName): NameComparison {
  let best = compareTokens(query.tokens, listed.tokens);
  for (const q of [query.tokens, query.joined]) {
    for (const n of [listed.tokens, listed.joined]) {
      if (!q || !n || (q === query.tokens && n === listed.tokens)) continue;
      const c = compareTokens(q, n);
      if (c.score > best.score) best = c;
    }
  }
  return best;
}

export type DateAgreement = 'exact' | 'year' | 'near' | 'mismatch' | 'unknown';
export type NationalityAgreement = 'match' | 'mismatch' | 'unknown';

/** What each agreement adds to the name's score (docs/watchlist.md, "How matching scores"). */
export const DATE_ADJUSTMENT: Record<DateAgreement, number> = { exact: 0.1, year: 0.05, near: -0.05, mismatch: -0.3, unknown: 0 };
export const NATIONALITY_ADJUSTMENT: Record<NationalityAgreement, number> = { match: 0.05, mismatch: -0.05, unknown: 0 };

const DATE_RANK: DateAgreement[] = ['exact', 'year', 'near', 'mismatch'];

/**
 * A person's date of birth (`YYYY-MM-DD`) against a listed party's (each as precise as the list gives it): `exact`
 * the same day; `year` the same year (or month) where the list gives no more; `near` within a year either way;
 * `mismatch` further apart; `unknown` when either side has none. The best agreement of the listed dates counts.
 */
export function compareDates(dateOfBirth: string | null | undefined, listed: readonly string[]): DateAgreement {
  const q = dateOfBirth && /^\d{4}(-\d{2}-\d{2})?$/.test(dateOfBirth) ? dateOfBirth : null;
  if (!q || listed.length === 0) return 'unknown';
  let best: DateAgreement = 'mismatch';
  for (const d of listed) {
    let a: DateAgreement;
    if (d.length === 10 && q.length === 10 && d === q) a = 'exact';
    else if (q.startsWith(d) || d.startsWith(q)) a = 'year';
    else a = Math.abs(Number(q.slice(0, 4)) - Number(d.slice(0, 4))) <= 1 ? 'near' : 'mismatch';
    if (DATE_RANK.indexOf(a) < DATE_RANK.indexOf(best)) best = a;
  }
  return best;
}

/** A person's nationality (ISO alpha-2 or alpha-3, or a document's ICAO code) against a listed party's. */
export function compareNationality(nationality: string | null | undefined, listed: readonly string[]): NationalityAgreement {
  const q = nationality ? nationalityCode(nationality) : null;
  if (!q || listed.length === 0) return 'unknown';
  return listed.includes(q) ? 'match' : 'mismatch';
}

/** ICAO 9303 writes Germany `D`; the rest are ISO 3166-1 alpha-3 or alpha-2. */
function nationalityCode(s: string): string | null {
  const t = s.trim().toUpperCase();
  if (t === 'D' || t === 'DEU') return 'DE';
  if (/^[A-Z]{3}$/.test(t)) return countries.alpha3ToAlpha2(t) ?? null;
  return countryCode(t);
}

/** The person screened: the names read from the document, and what else it says. */
export interface ScreenedPerson {
  /** Each a whole name (given names and family name together); the order of the words does not matter. */
  names: string[];
  dateOfBirth?: string | null;
  nationality?: string | null;
}

/** A listed party as it is scored. */
export interface ListedParty {
  names: readonly string[];
  dates_of_birth: readonly string[];
  nationalities: readonly string[];
}

/** Why a party matched (stored with each hit). */
export interface MatchFeatures {
  /** The name's score before the date of birth and nationality. */
  name: number;
  pairs: TokenPair[];
  unpaired: { query: number; listed: number };
  reordered: boolean;
  date_of_birth: DateAgreement;
  nationality: NationalityAgreement;
}

export interface PartyMatch {
  /** 0 to 1, three decimals. */
  score: number;
  /** The listed name that scored best, as the list writes it. */
  matched_name: string;
  features: MatchFeatures;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * How well a listed party matches a person: the best of its names against the person's, then the date of birth and
 * the nationality added (`DATE_ADJUSTMENT`, `NATIONALITY_ADJUSTMENT`), within 0 to 1.
 */
export function scoreParty(person: ScreenedPerson, party: ListedParty, prepared?: { person: PreparedName[]; party?: PreparedName[] }): PartyMatch | null {
  const queries = prepared?.person ?? person.names.map(prepareName);
  const listed = prepared?.party ?? party.names.map(prepareName);
  let best: { c: NameComparison; name: string } | null = null;
  for (const q of queries) {
    for (const n of listed) {
      const c = compareNames(q, n);
      if (!best || c.score > best.c.score) best = { c, name: n.original };
    }
  }
  if (!best) return null;
  const dob = compareDates(person.dateOfBirth, party.dates_of_birth);
  const nat = compareNationality(person.nationality, party.nationalities);
  const score = Math.max(0, Math.min(1, best.c.score + DATE_ADJUSTMENT[dob] + NATIONALITY_ADJUSTMENT[nat]));
  return {
    score: round(score),
    matched_name: best.name,
    features: { name: round(best.c.score), pairs: best.c.pairs, unpaired: best.c.unpaired, reordered: best.c.reordered, date_of_birth: dob, nationality: nat },
  };
}
