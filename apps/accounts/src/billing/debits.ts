import { CHECK_TYPES, type Owner } from '@verity/contracts';
import { ERROR_CATALOGUE, type ErrorData } from '@verity/errors';
import { isId } from '@verity/keys';

/** A wallet as the debit sees it under its lock: `balance` null when the organization has no wallet. */
export interface Wallet {
  balance: number | null;
  locked: boolean;
}

export type DebitDecision = { ok: true; balance: number } | { ok: false; error: ErrorData };

/**
 * Whether `price` may be taken from the wallet (docs/sessions.md, "Billing"), and the balance after it. A refusal never tells
 * the balance: only the price, which the caller's own template decides.
 */
export function decideDebit(wallet: Wallet, price: number): DebitDecision {
  if (wallet.balance === null) {
    return { ok: false, error: { code: 'payment_required', message: 'The organization has no wallet to pay this verification from.', details: { price } } };
  }
  if (wallet.locked) {
    return { ok: false, error: { code: 'payment_required', message: 'The wallet is locked.', details: { price } } };
  }
  if (wallet.balance < price) {
    return { ok: false, error: { code: 'payment_required', message: "The wallet balance does not cover this verification's price.", details: { price } } };
  }
  return { ok: true, balance: wallet.balance - price };
}

/**
 * The refusal of a debit request that no gateway-fronted create would send (a caller's bug): only live
 * sessions are billed, by id, for known checks.
 */
export function debitRequestProblem(owner: Owner, req: { session_id?: unknown; checks?: unknown }): ErrorData | null {
  if (owner.mode !== 'live') return { code: 'validation_error', message: 'Test mode is never billed.', param: 'mode' };
  if (!isId('session', req.session_id)) return { code: 'validation_error', message: 'session_id must be a session id.', param: 'session_id' };
  if (!Array.isArray(req.checks) || req.checks.some((c) => !(CHECK_TYPES as readonly unknown[]).includes(c))) {
    return { code: 'validation_error', message: `checks must be a list of ${CHECK_TYPES.join(', ')}.`, param: 'checks' };
  }
  return null;
}

/** One debit asked, as the batch decides it. */
export interface DebitAsk {
  session_id: string;
  org_id: string;
  amount: number;
  /** The caller's deadline (epoch ms): past it, nothing is taken. */
  deadline: number;
}

/** A debit already recorded for a session. */
export interface ExistingDebit {
  session_id: string;
  org_id: string;
}

/** Per debit asked: the debit already recorded, a new one to record, or a refusal. */
export type DebitOutcome = { kind: 'existing' } | { kind: 'new' } | { kind: 'refused'; error: ErrorData };

/**
 * The debits that arrived together, decided against their wallets as read (docs/sessions.md, "Billing"), in arrival order: a
 * session already debited answers its debit (idempotent; another organization's session id is refused); an
 * absent organization is 404; a caller whose deadline has passed gets 503 and pays nothing; each other debit is
 * taken from what the earlier ones left, or refused. A session asked twice in the batch is decided once.
 * Returns an outcome per ask and what is taken from each wallet in all (to be written only while the wallet
 * still holds at least that much and is open: see `WalletDebitsRepository.debitWallet`).
 */
export function decideDebits(
  wallets: ReadonlyMap<string, Wallet>,
  existing: ReadonlyMap<string, ExistingDebit>,
  asks: readonly DebitAsk[],
  now: number,
): { outcomes: DebitOutcome[]; taken: Map<string, number> } {
  const left = new Map<string, Wallet>(wallets);
  const taken = new Map<string, number>();
  const decided = new Map<string, { org_id: string; outcome: DebitOutcome }>();
  const outcomes = asks.map((a): DebitOutcome => {
    const before = existing.get(a.session_id) ?? decided.get(a.session_id);
    if (before) {
      if (before.org_id !== a.org_id) return { kind: 'refused', error: { code: 'validation_error', message: 'session_id cannot be billed.', param: 'session_id' } };
      if ('outcome' in before) return before.outcome.kind === 'new' ? { kind: 'existing' } : before.outcome;
      return { kind: 'existing' };
    }
    const outcome = decideOne(left, a, now);
    if (outcome.kind === 'new') {
      const wallet = left.get(a.org_id)!;
      left.set(a.org_id, { ...wallet, balance: wallet.balance! - a.amount });
      taken.set(a.org_id, (taken.get(a.org_id) ?? 0) + a.amount);
    }
    decided.set(a.session_id, { org_id: a.org_id, outcome });
    return outcome;
  });
  return { outcomes, taken };
}

function decideOne(wallets: ReadonlyMap<string, Wallet>, a: DebitAsk, now: number): DebitOutcome {
  const wallet = wallets.get(a.org_id);
  if (!wallet) return { kind: 'refused', error: { code: 'resource_not_found', message: ERROR_CATALOGUE.resource_not_found.message } };
  if (now >= a.deadline) return { kind: 'refused', error: { code: 'service_unavailable', message: ERROR_CATALOGUE.service_unavailable.message } };
  const d = decideDebit(wallet, a.amount);
  return d.ok ? { kind: 'new' } : { kind: 'refused', error: d.error };
}
