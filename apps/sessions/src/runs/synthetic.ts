/**
 * Synthetic results of a test-mode run (docs/sessions.md, "Test-mode runs"). Pure: the
 * expected outcome chosen at create decides every result; no name, date of birth, document number or email
 * address is read here, so none can change a result.
 */
import type { CheckOutcome, CheckType, EvaluateReply, EvaluationContextWire, EvidenceArtifact, EvidenceAvailability, ExpectedOutcome, SessionOutcome, SessionStatus } from '@verity/contracts';
import creditDocQuality from './fixtures/credit-history/doc_quality.json' with { type: 'json' };
import creditFail from './fixtures/credit-history/fail.json' with { type: 'json' };
import creditPass from './fixtures/credit-history/pass.json' with { type: 'json' };
import creditReview from './fixtures/credit-history/review.json' with { type: 'json' };

export type Finding = EvaluationContextWire['findings'][number];
/** A check as a run decided it (contract §20): its outcome, the codes of what it found, and its score. */
export type CheckResult = { type: CheckType; outcome: CheckOutcome; reasons: string[]; score: number | null };
/** A recorded credit bureau response, replayed as is. */
export interface CreditRecording {
  recording: string;
  recorded_at: string;
  bureau: string;
  product: string;
  hit: boolean;
  report: {
    score: { model: string; value: number; min: number; max: number };
    tradelines: { open: number; closed: number };
    delinquencies_90d: number;
    defaults: number;
    public_records: number;
    inquiries_12m: number;
  };
}

/** The recorded file each expected outcome replays (apps/sessions/src/runs/fixtures/credit-history). */
export const CREDIT_RECORDINGS: Record<ExpectedOutcome, CreditRecording> = {
  pass: creditPass,
  review: creditReview,
  fail: creditFail,
  doc_quality: creditDocQuality,
};

/**
 * The credit-history check outcome of a bureau response, by the same rules a live report would meet:
 * a default, a public record or a score under 580 fails; a 90-day delinquency, a score under 670 or no
 * file at all needs review; anything else passes.
 */
export function creditOutcome(r: CreditRecording): CheckOutcome {
  if (!r.hit) return 'review';
  const x = r.report;
  if (x.defaults > 0 || x.public_records > 0 || x.score.value < 580) return 'fail';
  if (x.delinquencies_90d > 0 || x.score.value < 670) return 'review';
  return 'pass';
}

export const IDENTITY_CHECKS: readonly CheckType[] = ['document', 'face_match', 'liveness'];

export function hasIdentityCheck(checks: readonly CheckType[]): boolean {
  return checks.some((c) => IDENTITY_CHECKS.includes(c));
}

/**
 * Outcome of every check of the template: `pass`, `fail` and `review` apply to every check; `doc_quality`
 * makes `document` and `face_match` `review` and every other check `pass`. Credit history replays its
 * recorded file. Synthetic results carry no reasons and no score (contract §20).
 */
export function syntheticChecks(expected: ExpectedOutcome, checks: readonly CheckType[]): CheckResult[] {
  const outcomeOf = (type: CheckType): CheckOutcome => {
    if (type === 'credit_history') return creditOutcome(CREDIT_RECORDINGS[expected]);
    if (expected === 'doc_quality') return type === 'document' || type === 'face_match' ? 'review' : 'pass';
    return expected;
  };
  return checks.map((type) => ({ type, outcome: outcomeOf(type), reasons: [], score: null }));
}

/**
 * Findings of the watchlist and adverse-media checks: none when the check passes; a medium-severity
 * possible match for `review`; a high-severity confirmed match for `fail`. Evidence names synthetic
 * sources only and never repeats applicant data.
 */
export function syntheticFindings(sessionId: string, results: readonly CheckResult[]): Finding[] {
  const out: Finding[] = [];
  for (const { type, outcome } of results) {
    if (outcome !== 'review' && outcome !== 'fail') continue;
    const high = outcome === 'fail';
    if (type === 'watchlist') {
      out.push({
        id: `fnd_${sessionId.slice(4)}_w1`,
        subjectType: high ? 'sanction' : 'pep',
        severity: high ? 'high' : 'medium',
        sourceAuthority: high ? 'Synthetic Consolidated Sanctions List' : 'Synthetic PEP Register',
        findingType: high ? 'sanction_match' : 'pep_possible_match',
        evidence: { matchScore: high ? 0.97 : 0.74, matchedFields: ['name', 'date_of_birth'], listedSince: '2019-06-01', synthetic: true },
      });
    } else if (type === 'adverse_media') {
      out.push({
        id: `fnd_${sessionId.slice(4)}_m1`,
        subjectType: 'adverse_media',
        severity: high ? 'high' : 'medium',
        sourceAuthority: 'Synthetic News Index',
        findingType: high ? 'financial_crime' : 'negative_news',
        evidence: { articleCount: high ? 4 : 1, categories: high ? ['fraud', 'money_laundering'] : ['litigation'], synthetic: true },
      });
    }
  }
  return out;
}

/**
 * What a test run's `watchlist.*` rule fields read (docs/screening.md, "Watchlist"): no hit for `pass`, the synthetic
 * finding's score and one hit for `review` and `fail`; nothing without a watchlist check.
 */
export function syntheticWatchlist(results: ReadonlyArray<{ type: CheckType; outcome: CheckOutcome | undefined }>): { bestScore: number; hitCount: number } | undefined {
  const w = results.find((r) => r.type === 'watchlist');
  if (!w) return undefined;
  if (w.outcome === 'review') return { bestScore: 0.74, hitCount: 1 };
  if (w.outcome === 'fail') return { bestScore: 0.97, hitCount: 1 };
  return { bestScore: 0, hitCount: 0 };
}

/**
 * Synthetic evidence of a run with an identity check (docs/sessions.md): `front` always; `portrait` unless
 * `doc_quality` (no usable face); `selfie` when the template has `face_match` or `liveness`. The capture is
 * simulated, as with the device camera. Null without an identity check.
 */
export function syntheticIdv(expected: ExpectedOutcome, checks: readonly CheckType[]): EvidenceAvailability | null {
  if (!hasIdentityCheck(checks)) return null;
  const images: EvidenceArtifact[] = [];
  if (expected !== 'doc_quality') images.push('portrait');
  images.push('front');
  if (checks.includes('face_match') || checks.includes('liveness')) images.push('selfie');
  return { capture_acquisition: 'camera', available_images: images };
}

export type Resting =
  | { status: Extract<SessionStatus, 'completed'>; outcome: Exclude<SessionOutcome, null> }
  | { status: Extract<SessionStatus, 'manual_review'>; outcome: null }
  | { status: Extract<SessionStatus, 'errored'>; outcome: null; reason: string };

/**
 * Where a run rests (docs/sessions.md, docs/capture.md): screening that sends the run to review (a fired `review`, a floored
 * `decline`, or a score at or above the template's `review_threshold`, all folded into `decision` by the
 * engine) or any check in `review` or `error` → `manual_review`; otherwise any `fail` → `completed`/`declined`;
 * otherwise `completed`/`approved`. A fired `approve` never overrides a check result. A template metadata
 * value that screening cannot evaluate sends the run to `errored`.
 */
export function restingOf(results: readonly CheckResult[], screening: EvaluateReply): Resting {
  if (screening.status === 'errored') {
    return {
      status: 'errored',
      outcome: null,
      reason: `Screening could not evaluate the workflow template: its metadata value "${screening.key}" is not a string, number, boolean or array of strings or numbers.`,
    };
  }
  // a check that could not run (`error`: a data provider the region has not configured) is for a person to judge
  if (screening.decision === 'review' || screening.decline_floored || results.some((r) => r.outcome === 'review' || r.outcome === 'error')) {
    return { status: 'manual_review', outcome: null };
  }
  if (results.some((r) => r.outcome === 'fail')) return { status: 'completed', outcome: 'declined' };
  return { status: 'completed', outcome: 'approved' };
}
