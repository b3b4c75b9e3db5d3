import { CHECK_TYPES, type CheckOutcome, type CheckType, type SessionCheck } from '@verity/contracts';

const OUTCOMES: ReadonlySet<unknown> = new Set<CheckOutcome>(['pass', 'fail', 'review', 'error']);

/**
 * The checks of a session row as the read shows them (contract §20). Rows written before reasons and scores were
 * recorded (or by a release still rolling out) hold only `{ type, outcome }`: they read with no reasons and no
 * score. A score outside [0, 1] is never shown.
 */
export function sessionChecks(raw: unknown): SessionCheck[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((c: unknown): SessionCheck[] => {
    if (typeof c !== 'object' || c === null) return [];
    const r = c as Record<string, unknown>;
    if (!(CHECK_TYPES as readonly unknown[]).includes(r.type)) return [];
    const reasons = Array.isArray(r.reasons) ? r.reasons.filter((x): x is string => typeof x === 'string') : [];
    const score = typeof r.score === 'number' && Number.isFinite(r.score) && r.score >= 0 && r.score <= 1 ? r.score : null;
    return [{ type: r.type as CheckType, outcome: OUTCOMES.has(r.outcome) ? (r.outcome as CheckOutcome) : null, reasons, score }];
  });
}
