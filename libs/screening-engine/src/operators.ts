/**
 * Operator semantics: the reference definition. The compiler generates specialised code for
 * speed; tests check that it agrees with `holds` on every case.
 *
 * - `undefined` is "resolved to nothing" (resolvers never produce `null`): every operator is
 *   false, `exists` too.
 * - No coercion: `1` never equals `"1"`; string comparisons are case-sensitive.
 * - An array or object resolved value is compared by reference: `eq` and `in` never hold,
 *   `neq` and `not_in` always hold; `contains` on an array is exact membership of one element.
 * - `contains` on a string is a case-sensitive substring test with a string value; any other
 *   combination does not hold.
 * - `gt`/`gte`/`lt`/`lte` hold only when both sides are numbers, or both are strings (compared
 *   by UTF-16 code units, so `YYYY-MM-DD` dates order chronologically); otherwise false.
 */
import type { Operator } from './types.js';

function isOpaque(v: unknown): boolean {
  return typeof v === 'object' || typeof v === 'function';
}

function ordered(op: Operator, v: unknown, c: unknown): boolean {
  if (!((typeof v === 'number' && typeof c === 'number') || (typeof v === 'string' && typeof c === 'string'))) {
    return false;
  }
  switch (op) {
    case 'gt':
      return v > c;
    case 'gte':
      return v >= c;
    case 'lt':
      return v < c;
    default:
      return v <= c;
  }
}

/** Whether `operator` holds between a resolved value `v` and a condition value `c`. */
export function holds(op: Operator, v: unknown, c: unknown): boolean {
  if (op === 'exists') return v !== undefined && v !== null;
  if (v === undefined || v === null) return false;
  switch (op) {
    case 'eq':
      return !isOpaque(v) && !Array.isArray(c) && v === c;
    case 'neq':
      return isOpaque(v) || Array.isArray(c) || v !== c;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return ordered(op, v, c);
    case 'in':
      return Array.isArray(c) && !isOpaque(v) && c.includes(v);
    case 'not_in':
      return Array.isArray(c) && (isOpaque(v) || !c.includes(v));
    case 'contains':
      if (Array.isArray(v)) return !Array.isArray(c) && v.includes(c);
      return typeof v === 'string' && typeof c === 'string' && v.includes(c);
  }
}
