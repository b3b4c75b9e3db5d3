import { Inject, Injectable } from '@nestjs/common';
import type { BillingDebitRequest, BillingPricing, CheckType, ConsoleBilling, Organization, Principal, WalletDebit } from '@verity/contracts';
import { DomainError, type ErrorData } from '@verity/errors';
import { isId } from '@verity/keys';
import { CONFIG, MicroBatch, type RpcContext } from '@verity/platform';
import type { AccountsConfig } from '../config.js';
import { debitRequestProblem, decideDebits } from './debits.js';
import { minorUnitDigits, priceOf } from './pricing.js';
import { toWalletDebit, WalletDebitsRepository, type DebitRow } from './wallet-debits.repository.js';

interface PendingDebit {
  session_id: string;
  org_id: string;
  key_id: string;
  amount: number;
  checks: CheckType[];
  deadline: number;
}

type DebitResult = { ok: true; row: DebitRow } | { ok: false; error: ErrorData };

/** Debits decided together: one read, and one write statement (one commit) per wallet. */
const DEBIT_BATCH = 64;
const DEBIT_BATCHES_IN_FLIGHT = 4;
/** Rounds of a batch against wallets changing under it; past them, what is still undecided is refused (503). */
const MAX_ATTEMPTS = 20;

/**
 * Billing of live session creates (docs/sessions.md, "Billing"), the accounts half of a reserve-and-settle saga: sessions
 * debits the price of a verification's checks before it writes the session and refunds what it then did not
 * write; the settle sweep (`SettleDebitsJob`, `settle-debits.job.ts`) closes whatever a crash left open.
 *
 * No `org-changed` event is published for a balance change: gateways cache the wallet only to refuse a locked or
 * absent one, never the balance, and an event per live create would empty every gateway's key cache for the
 * organization at the rate of its creates (docs/decisions.md).
 */
@Injectable()
export class BillingService {
  constructor(
    private readonly repo: WalletDebitsRepository,
    @Inject(CONFIG) private readonly cfg: AccountsConfig,
  ) {}

  /** What a verification costs and in what: the region's prices, in minor units of its currency. */
  pricing(): BillingPricing {
    return { currency: this.cfg.BILLING_CURRENCY, minor_unit_digits: minorUnitDigits(this.cfg.BILLING_CURRENCY) ?? 2, check_prices: { ...this.cfg.CHECK_PRICES } };
  }

  /** The console's Billing page: the organization's wallet, the prices, and its live spend per day over `days` (1 to 90). */
  async consoleBilling(org: Organization, days: unknown): Promise<ConsoleBilling> {
    const n = days === undefined ? 30 : typeof days === 'number' && Number.isInteger(days) && days >= 1 && days <= 90 ? days : null;
    if (n === null) throw DomainError.validation([{ code: 'invalid_value', message: 'days is a whole number from 1 to 90', path: ['days'] }]);
    const today = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
    const spend = await this.repo.spendPerDay(org.id, new Date(today.getTime() - (n - 1) * 86_400_000));
    return {
      ...this.pricing(),
      wallet_balance: org.billing.wallet_balance,
      wallet_locked: org.billing.wallet_locked,
      subscription_status: org.billing.subscription_status,
      spend,
    };
  }

  // one debit's failure must not fail the others decided with it: a failed batch goes again one by one
  private readonly debits = new MicroBatch((batch: PendingDebit[]) => this.debitMany(batch), DEBIT_BATCH, DEBIT_BATCHES_IN_FLIGHT, { retryAlone: true });

  /**
   * Debits the price of `checks` for `session_id`, or answers the debit already made for it (idempotent). With
   * the wallet locked, absent or short of the price: 402 `payment_required` with `details.price`, and nothing
   * written. Nothing is taken once the caller has stopped waiting.
   */
  async debit(p: Principal, req: BillingDebitRequest, ctx: RpcContext): Promise<WalletDebit> {
    const problem = debitRequestProblem(p, req);
    if (problem) throw DomainError.fromData(problem);
    const r = await this.debits.add({
      session_id: req.session_id,
      org_id: p.org_id,
      key_id: p.key_id,
      amount: priceOf(req.checks, this.cfg.CHECK_PRICES),
      checks: [...new Set(req.checks)],
      deadline: ctx.deadline,
    });
    if (!r.ok) throw DomainError.fromData(r.error);
    return toWalletDebit(r.row);
  }

  /**
   * The debits that arrived together. Those the common case (`debitCovered`) did not settle: their wallets and
   * any debits already recorded are read (two statements at once), each debit is decided in arrival order (`decideDebits`), then each wallet's new debits are written by
   * one statement that takes their total only if the wallet still holds it (no lock is held between round trips,
   * so the debits of one organization queue only for that statement and its commit). A wallet changed in between
   * has its debits decided again on what it holds then; every retry follows another debit's success or an
   * operator's change, and a caller's deadline ends its wait (503).
   */
  private async debitMany(batch: PendingDebit[]): Promise<DebitResult[]> {
    const results = new Array<DebitResult>(batch.length);
    await this.debitCovered(batch, results);
    let pending = batch.map((_, i) => i).filter((i) => !results[i]);
    for (let attempt = 1; pending.length > 0; attempt++) {
      const asks = pending.map((i) => batch[i]!);
      const [wallets, found] = await Promise.all([
        this.repo.wallets([...new Set(asks.map((a) => a.org_id))]),
        this.repo.findMany(asks.map((a) => a.session_id)),
      ]);
      const existing = new Map(found.map((r) => [r.session_id, r]));
      // past the last round, every deadline counts as passed: what is not yet debited is refused (503)
      const now = attempt > MAX_ATTEMPTS ? Number.POSITIVE_INFINITY : Date.now();
      const { outcomes, taken } = decideDebits(wallets, existing, asks, now);
      const written = new Map<string, DebitRow>();
      await Promise.all(
        [...taken].map(async ([orgId, total]) => {
          const fresh = asks.filter((a, k) => a.org_id === orgId && outcomes[k]!.kind === 'new');
          for (const r of await this.repo.debitWallet(orgId, total, fresh)) written.set(r.session_id, r);
        }),
      );
      const again: number[] = [];
      outcomes.forEach((o, k) => {
        const a = asks[k]!;
        const row = written.get(a.session_id) ?? existing.get(a.session_id);
        if (o.kind === 'refused') results[pending[k]!] = { ok: false, error: o.error };
        else if (row) results[pending[k]!] = { ok: true, row };
        else again.push(pending[k]!); // its wallet changed before the write: decided again
      });
      pending = again;
    }
    return results;
  }

  /**
   * The common case, without reading anything first: all of a wallet's debits in the batch are new sessions,
   * their callers still wait, and the wallet covers them together. Each wallet's debits are then written by the
   * one statement that takes their total only if it is covered (`debitWallet`); a wallet that does not (short,
   * locked, absent, unknown) or a session already debited (the statement fails on its key) writes nothing and
   * leaves its debits to be decided one by one, on what was read (`decideDebits`), exactly as they would be here.
   */
  private async debitCovered(batch: PendingDebit[], results: DebitResult[]): Promise<void> {
    const now = Date.now();
    const byOrg = new Map<string, number[]>();
    batch.forEach((d, i) => {
      if (d.deadline > now) byOrg.set(d.org_id, [...(byOrg.get(d.org_id) ?? []), i]);
    });
    await Promise.all(
      [...byOrg.values()].map(async (indexes) => {
        const debits = indexes.map((i) => batch[i]!);
        // a session asked twice is decided the long way
        if (new Set(debits.map((d) => d.session_id)).size !== debits.length) return;
        const total = debits.reduce((sum, d) => sum + d.amount, 0);
        const rows = await this.repo.debitWallet(debits[0]!.org_id, total, debits).catch(() => [] as DebitRow[]);
        if (rows.length !== debits.length) return;
        const byId = new Map(rows.map((r) => [r.session_id, r]));
        for (const i of indexes) results[i] = { ok: true, row: byId.get(batch[i]!.session_id)! };
      }),
    );
  }

  /**
   * Gives the amount of an open debit of the caller's organization back, once. A debit already refunded is
   * answered as it is; so is a settled one, which is never refunded (its session exists). Unknown: 404.
   */
  async refund(p: Principal, sessionId: string): Promise<WalletDebit> {
    if (!isId('session', sessionId)) throw DomainError.notFound();
    const row = (await this.repo.refund(sessionId, p.org_id)) ?? (await this.repo.findOf(sessionId, p.org_id));
    if (!row) throw DomainError.notFound();
    return toWalletDebit(row);
  }
}
