/**
 * `start_datetime` / `end_datetime`: ISO 8601 extended format with an explicit offset,
 * `YYYY-MM-DDThh:mm[:ss[.f{1,9}]](Z|+hh:mm|-hh:mm)`, on the calendar, offsets from -12:00 to +14:00 (what is
 * refused: docs/metadata.md). `-00:00` is refused because RFC 3339 gives it the meaning "offset unknown", which
 * cannot be printed as a time zone.
 */

/** The accepted shape (the calendar and the offset range are checked after it); the API schema describes it. */
export const DATETIME_RE =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/** Offsets in use worldwide run from UTC-12:00 to UTC+14:00. */
export const MIN_OFFSET_MINUTES = -12 * 60;
export const MAX_OFFSET_MINUTES = 14 * 60;

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;

/** Every field of a valid offset datetime, as sent. */
export interface ParsedDatetime {
  /** `YYYY-MM-DD` exactly as sent (the local date in the sent offset). */
  readonly date: string;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  /** Fraction-of-second digits as sent, without the dot; `''` when absent. */
  readonly fraction: string;
  /** Offset east of UTC in minutes; `Z` is 0. */
  readonly offsetMinutes: number;
  /** The instant in whole milliseconds since the epoch (fraction beyond milliseconds dropped). */
  readonly instantMs: number;
  /** Nanoseconds below the millisecond (0–999999), so instants compare at full precision. */
  readonly subMsNanos: number;
}

export type DatetimeParse = { ok: true; value: ParsedDatetime } | { ok: false; reason: string };

export function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** `YYYY-MM-DD` naming a day of the calendar (not `2026-02-30`, not year 0000): a day as the API takes one. */
export function isCalendarDay(v: unknown): v is string {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const [y, m, d] = [Number(v.slice(0, 4)), Number(v.slice(5, 7)), Number(v.slice(8, 10))];
  return y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to the given proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

const EXPECTED = 'an ISO 8601 date and time with an explicit offset (Z or ±hh:mm), for example 2026-03-14T09:30:00+01:00';

/** Parse with a reason on refusal (used for issue messages). */
export function parseDatetimeDetailed(s: string): DatetimeParse {
  const m = DATETIME_RE.exec(s);
  if (m === null) {
    if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return { ok: false, reason: `a date alone is refused; send ${EXPECTED}` };
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(s)) {
      return { ok: false, reason: `a date and time without offset is refused; send ${EXPECTED}` };
    }
    if (/T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?[+-]\d{2}(?:\d{2})?$/.test(s)) {
      return { ok: false, reason: `the offset must be written ±hh:mm with a colon; send ${EXPECTED}` };
    }
    return { ok: false, reason: `must be ${EXPECTED}` };
  }
  const [, ys, mos, ds, hs, mis, ss, frac, zulu, sign, ohs, oms] = m;
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs);
  const minute = Number(mis);
  const second = ss === undefined ? 0 : Number(ss);
  if (month < 1 || month > 12) return { ok: false, reason: `month ${mos} does not exist` };
  if (day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, reason: `day ${ds} does not exist in ${ys}-${mos}` };
  }
  if (hour > 23) return { ok: false, reason: `hour ${hs} is out of range (00 to 23)` };
  if (minute > 59) return { ok: false, reason: `minute ${mis} is out of range (00 to 59)` };
  if (second > 59) return { ok: false, reason: `second ${ss} is out of range (00 to 59)` };

  let offsetMinutes = 0;
  if (zulu === undefined) {
    const oh = Number(ohs);
    const om = Number(oms);
    if (om > 59) return { ok: false, reason: `offset minutes ${oms} are out of range (00 to 59)` };
    if (sign === '-' && oh === 0 && om === 0) return { ok: false, reason: 'offset -00:00 is refused; send Z or +00:00' };
    offsetMinutes = (sign === '-' ? -1 : 1) * (oh * 60 + om);
    if (offsetMinutes < MIN_OFFSET_MINUTES || offsetMinutes > MAX_OFFSET_MINUTES) {
      return { ok: false, reason: `offset ${sign}${ohs}:${oms} is out of range (-12:00 to +14:00)` };
    }
  }

  const fraction = frac ?? '';
  const nanos = fraction === '' ? 0 : Number(fraction.padEnd(9, '0'));
  const localMs =
    daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + Math.floor(nanos / 1e6);
  return {
    ok: true,
    value: {
      date: `${ys}-${mos}-${ds}`,
      hour,
      minute,
      second,
      fraction,
      offsetMinutes,
      instantMs: localMs - offsetMinutes * MS_PER_MINUTE,
      subMsNanos: nanos % 1e6,
    },
  };
}

/**
 * Parse an offset datetime as accepted in metadata. `instantMs` is milliseconds since the epoch
 * (digits of the fraction beyond milliseconds are dropped); `offsetMinutes` is the sent offset
 * east of UTC (`Z` → 0, `-05:30` → -330). `null` when the string is refused.
 */
export function parseOffsetDatetime(s: string): { instantMs: number; offsetMinutes: number } | null {
  if (typeof s !== 'string') return null;
  const r = parseDatetimeDetailed(s);
  return r.ok ? { instantMs: r.value.instantMs, offsetMinutes: r.value.offsetMinutes } : null;
}

/** Compare two parsed datetimes as instants, at full (nanosecond) precision: <0, 0 or >0. */
export function compareInstants(a: ParsedDatetime, b: ParsedDatetime): number {
  if (a.instantMs !== b.instantMs) return a.instantMs < b.instantMs ? -1 : 1;
  return a.subMsNanos === b.subMsNanos ? 0 : a.subMsNanos < b.subMsNanos ? -1 : 1;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** `(UTC+hh:mm)` / `(UTC-hh:mm)`; `Z` and `+00:00` print `(UTC+00:00)`. */
export function offsetLabel(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `(UTC${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)})`;
}

/**
 * The printed form in a signed document, always in the sent offset:
 * - `YYYY-MM-DD hh:mm (UTC±hh:mm)` when seconds and fraction are zero;
 * - `YYYY-MM-DD hh:mm:ss (UTC±hh:mm)` when seconds are not zero;
 * - `YYYY-MM-DD hh:mm:ss.fff (UTC±hh:mm)` when the fraction is not zero (digits as sent, trailing
 *   zeros dropped);
 * - `YYYY-MM-DD (UTC±hh:mm)` at exactly local midnight (00:00:00, fraction zero).
 */
export function formatDatetimeForDocument(p: ParsedDatetime): string {
  const label = offsetLabel(p.offsetMinutes);
  const fraction = p.fraction.replace(/0+$/, '');
  if (p.hour === 0 && p.minute === 0 && p.second === 0 && fraction === '') return `${p.date} ${label}`;
  let time = `${pad2(p.hour)}:${pad2(p.minute)}`;
  if (p.second !== 0 || fraction !== '') time += `:${pad2(p.second)}`;
  if (fraction !== '') time += `.${fraction}`;
  return `${p.date} ${time} ${label}`;
}
