import { SUBJECTS, type EvaluateReply, type TemplateVersion } from '@verity/contracts';
import type { RpcServer } from '@verity/platform';

/**
 * Accounts as a peer that accepts every debit of a live create (docs/sessions.md, "Billing") for nothing: for the tests of
 * what comes after the create. Billing itself is tested in billing.int-spec.ts.
 */
export function acceptEveryDebit(peers: RpcServer): void {
  peers.handle(SUBJECTS.accountsBillingDebit, async (p, ctx) => ({
    session_id: p.session_id,
    org_id: ctx.principal!.org_id,
    amount: 0,
    checks: p.checks,
    created_at: new Date().toISOString(),
    settled_at: null,
    refunded_at: null,
  }));
}

/** A screening reply that decides nothing: no rule fired. */
export const cleanScreening = (): EvaluateReply => ({ status: 'ok', decision: 'none', score: 0, review_threshold: 0.5, tags: [], decline_floored: false, fired: [], trace: [] });

/** The document policy of a template that sets none (docs/screening.md, "Document policy"). */
export const NO_DOCUMENT_POLICY = {
  minimum_age: null,
  accepted_document_types: null,
  accepted_issuing_countries: null,
  applicant_mismatch: 'review',
  thresholds: {},
  watchlist_thresholds: {},
} as const satisfies Partial<TemplateVersion>;
