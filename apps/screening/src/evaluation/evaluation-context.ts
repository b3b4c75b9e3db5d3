import type { EvaluationContextWire } from '@verity/contracts';
import { DomainError, type Issue } from '@verity/errors';
import type { EvaluationContext } from '@verity/screening-engine';

/** An instant in ISO 8601 with an explicit offset, as `Date.prototype.toISOString()` writes it. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** The date part names a real day (Date would roll 2026-02-30 over into March). */
function onCalendar(iso: string): boolean {
  const y = Number(iso.slice(0, 4));
  const m = Number(iso.slice(5, 7));
  const d = Number(iso.slice(8, 10));
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The engine's view of a run from its wire form (sent by the sessions service): `now` becomes a Date;
 * containers of the wrong kind are refused (422, paths under `context`). The engine itself tolerates
 * malformed values inside them (they resolve to nothing).
 */
export function toEvaluationContext(wire: unknown): EvaluationContext & { now: Date } {
  const issues: Issue[] = [];
  if (!isObject(wire)) {
    throw DomainError.validation([{ code: 'invalid_type', message: 'context must be an object', path: ['context'] }]);
  }
  const w = wire as Partial<Record<keyof EvaluationContextWire, unknown>>;
  const objectMember = (key: 'applicant' | 'checks' | 'fraud' | 'device' | 'document' | 'watchlist', required: boolean) => {
    const v = w[key];
    if (v === undefined && !required) return;
    if (!isObject(v)) issues.push({ code: 'invalid_type', message: `context.${key} must be an object`, path: ['context', key] });
  };
  objectMember('applicant', true);
  objectMember('checks', true);
  objectMember('fraud', false);
  objectMember('device', false);
  objectMember('document', false);
  objectMember('watchlist', false);
  if (!Array.isArray(w.findings)) issues.push({ code: 'invalid_type', message: 'context.findings must be an array', path: ['context', 'findings'] });
  const now = typeof w.now === 'string' && ISO_INSTANT.test(w.now) && onCalendar(w.now) ? new Date(w.now) : null;
  if (now === null || Number.isNaN(now.getTime())) {
    issues.push({ code: 'invalid_value', message: 'context.now must be an ISO 8601 instant with an offset', path: ['context', 'now'] });
  }
  if (issues.length > 0) throw DomainError.validation(issues);
  const ctx: EvaluationContext & { now: Date } = {
    applicant: w.applicant as EvaluationContext['applicant'],
    findings: w.findings as EvaluationContext['findings'],
    checks: w.checks as EvaluationContext['checks'],
    now: now!,
  };
  if (w.fraud !== undefined) ctx.fraud = w.fraud as EvaluationContext['fraud'];
  if (w.device !== undefined) ctx.device = w.device as EvaluationContext['device'];
  if (w.document !== undefined) ctx.document = w.document as EvaluationContext['document'];
  if (w.watchlist !== undefined) ctx.watchlist = w.watchlist as EvaluationContext['watchlist'];
  return ctx;
}
