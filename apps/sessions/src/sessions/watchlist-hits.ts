import type { SessionWatchlistHit, WatchlistHitDecision, WatchlistMatchFeatures } from '@verity/contracts';
import type { StoredFinding, WatchlistDecisionRow } from './sessions.repository.js';

/** The `findingType` of a watchlist hit stored as a finding of a live run (apps/sessions/src/runs/live-run.ts). */
export const WATCHLIST_MATCH = 'watchlist_match';

export function decisionOf(d: WatchlistDecisionRow): WatchlistHitDecision {
  return {
    outcome: d.outcome,
    reason: d.reason,
    decided_by: { id: d.decided_by, email: d.decided_by_email },
    decided_at: d.decided_at instanceof Date ? d.decided_at.toISOString() : new Date(d.decided_at).toISOString(),
  };
}

/**
 * The watchlist hits of a run's findings, in their order (best first), each with the decision on it if there is one
 * (docs/watchlist.md, "Reviewing hits"). Findings of other kinds (test mode's synthetic ones) are not hits.
 */
export function hitsOf(findings: readonly StoredFinding[], decisions: readonly WatchlistDecisionRow[]): SessionWatchlistHit[] {
  const byFinding = new Map(decisions.map((d) => [d.finding_id, d]));
  return findings
    .filter((f) => f.findingType === WATCHLIST_MATCH)
    .map((f): SessionWatchlistHit => {
      const e = f.evidence;
      const decided = byFinding.get(f.id);
      return {
        finding_id: f.id,
        list: typeof e['listId'] === 'string' ? e['listId'] : f.sourceAuthority,
        entity_id: typeof e['entityId'] === 'string' ? e['entityId'] : '',
        matched_name: typeof e['matchedName'] === 'string' ? e['matchedName'] : '',
        score: typeof e['matchScore'] === 'number' ? e['matchScore'] : 0,
        features: (e['features'] ?? null) as WatchlistMatchFeatures,
        decision: decided ? decisionOf(decided) : null,
      };
    });
}
