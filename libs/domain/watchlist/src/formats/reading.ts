import type { ListEntity } from '../entity.js';

/** What a list file says about itself, filled in as it is read (complete once its entities are all read). */
export interface ListMeta {
  /** The publication date the file states (`YYYY-MM-DD`), or its newest record's change; null when it says none. */
  published: string | null;
}

/** A list file being read: its parties, streamed, and what it says about itself. */
export interface ListReading {
  entities: AsyncGenerator<ListEntity>;
  meta: ListMeta;
}

/** The later of two `YYYY-MM-DD` dates (either may be null). */
export function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return b > a ? b : a;
}

/** The day of an ISO 8601 date or date-time (`2024-03-01T10:00:00Z` → `2024-03-01`), or of `DD/MM/YYYY`; null otherwise. */
export function dayOf(text: string | null | undefined, order: 'dmy' | 'mdy' = 'dmy'): string | null {
  const s = (text ?? '').trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (m) return `${m[1]}-${m[2]}-${m[3]}`;
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s);
  if (m) {
    const [d, mo] = order === 'dmy' ? [m[1]!, m[2]!] : [m[2]!, m[1]!];
    return `${m[3]}-${mo.padStart(2, '0')}-${d.padStart(2, '0')}`;
  }
  return null;
}
