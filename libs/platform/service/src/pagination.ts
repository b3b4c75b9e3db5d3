import { DomainError, type Issue } from '@verity/errors';

/** Parsed list parameters (docs/authentication.md, "Requests and answers"): `limit` 1–100 (default 20) and an opaque cursor. */
export interface ListParams {
  limit: number;
  /** Position after which the next page starts (exclusive), or null for the first page. */
  after: bigint | null;
  filters: Record<string, string>;
}

const CURSOR_RE = /^c1\.([0-9]{1,19})$/;
/** Positions are Postgres bigint: a larger number was never issued, and would fail the query. */
const MAX_POSITION = 9_223_372_036_854_775_807n;

/** Cursors are opaque to clients: a version tag and a position, base64url encoded. */
export function encodeCursor(position: bigint | string | number): string {
  return Buffer.from(`c1.${String(position)}`).toString('base64url');
}

function decodeCursor(raw: string): bigint | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(raw)) return null;
  const m = CURSOR_RE.exec(Buffer.from(raw, 'base64url').toString());
  if (!m) return null;
  const position = BigInt(m[1]!);
  return position <= MAX_POSITION ? position : null;
}

/**
 * Validates list query parameters; `allowedFilters` maps a filter name to its validator. A bad `limit`, a
 * bad `cursor`, a bad filter value or an unknown parameter is 422 validation_error naming it.
 */
export function parseListQuery(
  query: Record<string, unknown>,
  allowedFilters: Record<string, (v: string) => boolean> = {},
): ListParams {
  const issues: Issue[] = [];
  let limit = 20;
  let after: bigint | null = null;
  const filters: Record<string, string> = {};
  for (const [name, raw] of Object.entries(query)) {
    if (raw === undefined) continue;
    const value = typeof raw === 'string' ? raw : null;
    if (name === 'limit') {
      if (value === null || !/^[0-9]{1,3}$/.test(value) || Number(value) < 1 || Number(value) > 100) {
        issues.push({ code: 'invalid_value', message: 'limit must be a whole number from 1 to 100', path: ['limit'] });
      } else limit = Number(value);
    } else if (name === 'cursor') {
      const pos = value === null ? null : decodeCursor(value);
      if (pos === null) issues.push({ code: 'invalid_value', message: 'cursor is not a cursor returned by this list', path: ['cursor'] });
      else after = pos;
    } else if (Object.prototype.hasOwnProperty.call(allowedFilters, name)) {
      if (value === null || !allowedFilters[name]!(value)) {
        issues.push({ code: 'invalid_value', message: `${name} is not a valid value for this filter`, path: [name] });
      } else filters[name] = value;
    } else {
      issues.push({ code: 'unrecognized_keys', message: `unknown query parameter: ${name.slice(0, 100)}`, path: [name.slice(0, 100)] });
    }
  }
  if (issues.length > 0) throw DomainError.validation(issues);
  return { limit, after, filters };
}

/**
 * The most a page's items may weigh as JSON (UTF-8). A reply travels as one NATS message (1 MiB at most), and one
 * row can weigh hundreds of KiB (a session's notes): a page stops early, with a `next_cursor`, rather than not
 * arrive. At least one item is always served, so every row is reachable (each row's own caps keep it far smaller).
 */
export const PAGE_MAX_BYTES = 512 * 1024;

/** An item's size as JSON (UTF-8); 0 for what JSON cannot write (a page of in-process values). */
function weight(item: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(item) ?? '');
  } catch {
    return 0;
  }
}

/** Builds a page from rows fetched with `limit + 1`: the extra row only tells whether a next page exists. */
export function toPage<R, T>(
  rows: R[],
  limit: number,
  position: (r: R) => bigint | string,
  map: (r: R) => T,
  maxBytes = PAGE_MAX_BYTES,
): { data: T[]; next_cursor: string | null } {
  const data: T[] = [];
  let bytes = 0;
  let last: R | undefined;
  for (const r of rows.slice(0, limit)) {
    const item = map(r);
    bytes += weight(item);
    if (bytes > maxBytes && data.length > 0) return { data, next_cursor: encodeCursor(position(last!)) };
    data.push(item);
    last = r;
  }
  return { data, next_cursor: rows.length > limit && last !== undefined ? encodeCursor(position(last)) : null };
}
