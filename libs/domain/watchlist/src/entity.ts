import { createRequire } from 'node:module';
import countries from 'i18n-iso-countries';

/**
 * One party of a published sanctions or PEP list, as every format is read into: the list's own id of it, what kind
 * of party it is, every name it is known by (the primary name first), its dates of birth (as precise as the list
 * gives them) and its nationalities.
 */
export interface ListEntity {
  /** The publisher's id of the party (OFAC `uid`, EU `logicalId`, UN `DATAID`, UK `UniqueID`, OpenSanctions `id`). */
  entity_id: string;
  kind: EntityKind;
  /** Primary name first, then the aliases; each once, as published (any script). */
  names: string[];
  /** `YYYY-MM-DD`, `YYYY-MM` or `YYYY`: as precise as the list says, each once. */
  dates_of_birth: string[];
  /** ISO 3166-1 alpha-2, upper case, each once. */
  nationalities: string[];
}

export const ENTITY_KINDS = ['person', 'organization', 'vessel', 'other'] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

/** The published formats `lists load` reads (docs/watchlist.md). */
export const LIST_FORMATS = ['opensanctions-ftm', 'opensanctions-csv', 'ofac-sdn', 'eu-fsf', 'un-sc', 'uk-sanctions'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

export function isListFormat(s: string): s is ListFormat {
  return (LIST_FORMATS as readonly string[]).includes(s);
}

/** The most a party keeps of each: beyond it the rest is dropped (a list record is not allowed to grow without bound). */
export const ENTITY_LIMITS = { idLength: 200, names: 100, nameLength: 500, datesOfBirth: 20, nationalities: 20 } as const;

/**
 * A file that is not the format it was said to be, or not well formed: where (line, column when known, and the
 * element or record) and what is wrong. Nothing of such a file is loaded.
 */
export class ListParseError extends Error {
  constructor(
    readonly detail: string,
    readonly where: { line?: number; column?: number; element?: string } = {},
  ) {
    const at = [where.line !== undefined ? `line ${where.line}` : '', where.column !== undefined ? `column ${where.column}` : '', where.element ? `<${where.element}>` : '']
      .filter(Boolean)
      .join(', ');
    super(at ? `${at}: ${detail}` : detail);
    this.name = 'ListParseError';
  }
}

const MONTHS: Record<string, number> = { JAN: 1, FEB: 2, MAR: 3, APR: 4, MAY: 5, JUN: 6, JUL: 7, AUG: 8, SEP: 9, OCT: 10, NOV: 11, DEC: 12 };

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function validDay(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

function plausibleYear(y: number): boolean {
  return y >= 1850 && y <= 2100;
}

/** `YYYY-MM-DD`, `YYYY-MM` or `YYYY` from its parts, or null when they are no date. */
export function partialDate(y: number, m?: number | null, d?: number | null): string | null {
  if (!Number.isInteger(y) || !plausibleYear(y)) return null;
  if (!m) return String(y);
  if (!Number.isInteger(m) || m < 1 || m > 12) return String(y);
  if (!d) return `${y}-${pad(m)}`;
  return validDay(y, m, d) ? `${y}-${pad(m)}-${pad(d)}` : `${y}-${pad(m)}`;
}

/**
 * The dates a list's free text of a date of birth means, as partial ISO dates: `1937-04-28`, `28 Apr 1937`,
 * `Apr 1937`, `1937`, `circa 1937`, `28/04/1937` (day first, as the UK list writes it, with `dd`/`mm` for an unknown
 * part), `1960 to 1962` (each year). Nothing for text that is no date: lists hold notes there too, and a record is
 * not refused for them.
 */
export function parseListDate(text: string): string[] {
  const s = text.trim().toUpperCase().replace(/^(CIRCA|CA\.?|APPROX\.?|APPROXIMATELY|ABOUT)\s+/, '');
  if (s === '') return [];
  let m = /^(\d{4})\s*(?:TO|-|–)\s*(\d{4})$/.exec(s);
  if (m) {
    const from = Number(m[1]);
    const to = Number(m[2]);
    if (!plausibleYear(from) || to < from || to - from > 10) return [];
    return Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
  }
  m = /^(\d{4})-(\d{2})-(\d{2})(?:T.*)?$/.exec(s);
  if (m) return one(partialDate(Number(m[1]), Number(m[2]), Number(m[3])));
  m = /^(\d{4})-(\d{2})$/.exec(s);
  if (m) return one(partialDate(Number(m[1]), Number(m[2])));
  m = /^(\d{4})$/.exec(s);
  if (m) return one(partialDate(Number(m[1])));
  m = /^(\d{1,2})\s+([A-Z]{3})[A-Z]*\.?\s+(\d{4})$/.exec(s);
  if (m) return one(partialDate(Number(m[3]), MONTHS[m[2]!], Number(m[1])));
  m = /^([A-Z]{3})[A-Z]*\.?\s+(\d{4})$/.exec(s);
  if (m) return one(partialDate(Number(m[2]), MONTHS[m[1]!]));
  m = /^(\d{1,2}|DD|00)\/(\d{1,2}|MM|00)\/(\d{4})$/.exec(s);
  if (m) {
    const d = /^\d+$/.test(m[1]!) ? Number(m[1]) : 0;
    const mo = /^\d+$/.test(m[2]!) ? Number(m[2]) : 0;
    return one(partialDate(Number(m[3]), mo, mo ? d : 0));
  }
  return [];
}

function one(d: string | null): string[] {
  return d === null ? [] : [d];
}

const require = createRequire(import.meta.url);
countries.registerLocale(require('i18n-iso-countries/langs/en.json') as Parameters<typeof countries.registerLocale>[0]);

/** Spellings of the lists that the country names of i18n-iso-countries do not know. */
const COUNTRY_ALIASES: Record<string, string> = {
  "DEMOCRATIC PEOPLE'S REPUBLIC OF KOREA": 'KP',
  'KOREA, NORTH': 'KP',
  'NORTH KOREA': 'KP',
  'KOREA, SOUTH': 'KR',
  'SOUTH KOREA': 'KR',
  'REPUBLIC OF KOREA': 'KR',
  SYRIA: 'SY',
  'CONGO (DEMOCRATIC REPUBLIC)': 'CD',
  'DEMOCRATIC REPUBLIC OF THE CONGO': 'CD',
  'CONGO, DEMOCRATIC REPUBLIC OF THE': 'CD',
  'IRAN (ISLAMIC REPUBLIC OF)': 'IR',
  PALESTINIAN: 'PS',
  PALESTINE: 'PS',
  BURMA: 'MM',
  RUSSIA: 'RU',
  'THE GAMBIA': 'GM',
  'UNITED STATES': 'US',
  'UNITED STATES OF AMERICA': 'US',
  'UNITED KINGDOM': 'GB',
  VIETNAM: 'VN',
  LAOS: 'LA',
  'CZECH REPUBLIC': 'CZ',
  'IVORY COAST': 'CI',
  "COTE D'IVOIRE": 'CI',
};

/** A country as an ISO 3166-1 alpha-2 code, from a code (any case) or an English name; null when unknown. */
export function countryCode(text: string): string | null {
  const s = text.trim();
  if (s === '') return null;
  if (/^[A-Za-z]{2}$/.test(s)) {
    const c = s.toUpperCase();
    return countries.isValid(c) ? c : null;
  }
  const upper = s.toUpperCase().replace(/\s+/g, ' ');
  const alias = COUNTRY_ALIASES[upper];
  if (alias) return alias;
  const code = countries.getAlpha2Code(s, 'en') ?? countries.getAlpha2Code(s.replace(/\s*\(.*\)\s*$/, ''), 'en');
  return code ?? null;
}

/** Collects a party's names, dates and nationalities, each once and within `ENTITY_LIMITS`. */
export class EntityBuilder {
  private readonly names = new Set<string>();
  private readonly dates = new Set<string>();
  private readonly nations = new Set<string>();

  constructor(
    readonly entity_id: string,
    readonly kind: EntityKind,
  ) {}

  /** A name; blank ones and those beyond the limits are dropped. Parts are joined by single spaces. */
  name(...parts: Array<string | null | undefined>): this {
    const n = parts
      .filter((p): p is string => typeof p === 'string')
      .map((p) => p.trim())
      .filter((p) => p !== '')
      .join(' ')
      .replace(/\s+/g, ' ');
    if (n !== '' && n.length <= ENTITY_LIMITS.nameLength && this.names.size < ENTITY_LIMITS.names) this.names.add(n);
    return this;
  }

  /** Dates of birth from a list's text (see `parseListDate`). */
  dateOfBirth(text: string | null | undefined): this {
    if (!text) return this;
    for (const d of parseListDate(text)) if (this.dates.size < ENTITY_LIMITS.datesOfBirth) this.dates.add(d);
    return this;
  }

  /** A date of birth already in its parts. */
  dateOfBirthParts(y: number, m?: number | null, d?: number | null): this {
    const date = partialDate(y, m, d);
    if (date && this.dates.size < ENTITY_LIMITS.datesOfBirth) this.dates.add(date);
    return this;
  }

  /** A nationality from a code or an English country name; unknown ones are dropped. */
  nationality(text: string | null | undefined): this {
    const c = text ? countryCode(text) : null;
    if (c && this.nations.size < ENTITY_LIMITS.nationalities) this.nations.add(c);
    return this;
  }

  get hasName(): boolean {
    return this.names.size > 0;
  }

  build(): ListEntity {
    return { entity_id: this.entity_id, kind: this.kind, names: [...this.names], dates_of_birth: [...this.dates], nationalities: [...this.nations] };
  }
}

/** A record's id: present, at most `ENTITY_LIMITS.idLength` characters; otherwise the file is refused. */
export function requireId(id: string | null | undefined, where: ConstructorParameters<typeof ListParseError>[1], what: string): string {
  const s = (id ?? '').trim();
  if (s === '') throw new ListParseError(`${what} has no id`, where);
  if (s.length > ENTITY_LIMITS.idLength) throw new ListParseError(`${what} has an id longer than ${ENTITY_LIMITS.idLength} characters`, where);
  return s;
}
