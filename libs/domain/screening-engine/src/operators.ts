/**
 * Operator semantics: the reference definition of docs/screening.md, "Operators" (`undefined` is "resolved to
 * nothing", and every operator is false on it; no coercion). The compiler generates specialised code for speed;
 * tests check that it agrees with `holds` on every case.
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
