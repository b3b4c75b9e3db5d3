import { Inject, Injectable } from '@nestjs/common';
import type { CheckType, WalletDebit } from '@verity/contracts';
import { Sql, unnestColumns, type WithDates } from '@verity/platform';
import type { Wallet } from './debits.js';

/** A row of `accounts.wallet_debits`: the debit as on the wire (its `bigint` amount read as text) and the key that made it. */
export interface DebitRow extends WithDates<Omit<WalletDebit, 'amount'>, 'created_at' | 'settled_at' | 'refunded_at'> {
  key_id: string;
  amount: string;
}

export function toWalletDebit(row: DebitRow): WalletDebit {
  return {
    session_id: row.session_id,
    org_id: row.org_id,
    amount: Number(row.amount),
    checks: row.checks,
    created_at: row.created_at.toISOString(),
    settled_at: row.settled_at ? row.settled_at.toISOString() : null,
    refunded_at: row.refunded_at ? row.refunded_at.toISOString() : null,
  };
}

/** The debits a wallet debit writes, after the statement's organization ($1) and total ($2). */
const NEW_DEBITS = unnestColumns({ session_id: 'text', key_id: 'text', amount: 'bigint', checks: 'text' }, { from: 3, as: 'd' });

/** An open debit the settle sweep looks at. */
export type OpenDebit = Pick<DebitRow, 'session_id' | 'org_id' | 'key_id' | 'created_at'>;

/**
 * The wallets and their debits. Every balance change is written by one statement together with the debit rows
 * it concerns, so a debit, a refund and a settlement each happen once, whoever runs them and at whatever time.
 */
@Injectable()
export class WalletDebitsRepository {
  constructor(@Inject(Sql) readonly db: Sql) {}

  /** The wallets of these organizations as they are now; an unknown organization is absent. */
  async wallets(orgIds: string[]): Promise<Map<string, Wallet>> {
    const rows = await this.db.prepared<{ id: string; wallet_balance: string | null; wallet_locked: boolean }>(
      'accounts_wallets',
      `SELECT id, wallet_balance, wallet_locked FROM accounts.organizations WHERE id = ANY($1::text[])`,
      [orgIds],
    );
    return new Map(rows.map((r) => [r.id, { balance: r.wallet_balance === null ? null : Number(r.wallet_balance), locked: r.wallet_locked }]));
  }

  /** The debits recorded for these sessions. */
  async findMany(sessionIds: string[]): Promise<DebitRow[]> {
    return this.db.prepared<DebitRow>('accounts_debits_find', `SELECT * FROM accounts.wallet_debits WHERE session_id = ANY($1::text[])`, [sessionIds]);
  }

  /**
   * Takes `total` from one organization's wallet and records its new debits (whose amounts make `total`), in
   * one statement: only while the wallet is present, not locked and holds at least `total` when the statement
   * runs (the row locked from there to the commit). Otherwise nothing is written and the answer is empty: the
   * wallet changed since it was read (another debit, an operator), and the caller decides again. A session
   * debited meanwhile fails the statement (primary key) and so writes nothing either.
   */
  async debitWallet(orgId: string, total: number, debits: Array<{ session_id: string; key_id: string; amount: number; checks: CheckType[] }>): Promise<DebitRow[]> {
    return this.db.prepared<DebitRow>(
      'accounts_debit_wallet',
      `WITH o AS (
         UPDATE accounts.organizations SET wallet_balance = wallet_balance - $2, updated_at = now()
          WHERE id = $1 AND NOT wallet_locked AND wallet_balance >= $2
         RETURNING id
       )
       INSERT INTO accounts.wallet_debits (session_id, org_id, key_id, amount, checks)
       SELECT d.session_id, o.id, d.key_id, d.amount, ARRAY(SELECT jsonb_array_elements_text(d.checks::jsonb))
         FROM o, ${NEW_DEBITS.sql}
       RETURNING *`,
      [orgId, total, ...NEW_DEBITS.params(debits.map((d) => ({ ...d, checks: JSON.stringify(d.checks) })))],
    );
  }

  /**
   * Gives an open debit's amount back to its wallet and marks it refunded, once: a debit already refunded or
   * settled is left alone (null). An absent wallet stays absent (the operator removed it; the refund is on the
   * debit's row).
   */
  async refund(sessionId: string, orgId: string): Promise<DebitRow | null> {
    const rows = await this.db.rows<DebitRow>(
      `WITH d AS (
         UPDATE accounts.wallet_debits SET refunded_at = now()
          WHERE session_id = $1 AND org_id = $2 AND settled_at IS NULL AND refunded_at IS NULL
         RETURNING *
       ), o AS (
         UPDATE accounts.organizations AS o SET wallet_balance = o.wallet_balance + d.amount, updated_at = now() FROM d WHERE o.id = d.org_id
       )
       SELECT * FROM d`,
      [sessionId, orgId],
    );
    return rows[0] ?? null;
  }

  /** Marks an open debit settled (its session exists), once; null when it was not open. */
  async settle(sessionId: string): Promise<DebitRow | null> {
    const rows = await this.db.rows<DebitRow>(
      `UPDATE accounts.wallet_debits SET settled_at = now() WHERE session_id = $1 AND settled_at IS NULL AND refunded_at IS NULL RETURNING *`,
      [sessionId],
    );
    return rows[0] ?? null;
  }

  /** Debits of an organization's, as stored (refund answers, tests). */
  async findOf(sessionId: string, orgId: string): Promise<DebitRow | null> {
    const rows = await this.db.rows<DebitRow>(`SELECT * FROM accounts.wallet_debits WHERE session_id = $1 AND org_id = $2`, [sessionId, orgId]);
    return rows[0] ?? null;
  }

  /** Open debits created before `before`, oldest first, after the position `after` (a page of the sweep). */
  async open(before: Date, after: { created_at: Date; session_id: string } | null, limit: number): Promise<OpenDebit[]> {
    return this.db.rows<OpenDebit>(
      `SELECT session_id, org_id, key_id, created_at FROM accounts.wallet_debits
        WHERE settled_at IS NULL AND refunded_at IS NULL AND created_at < $1
          AND ($2::timestamptz IS NULL OR (created_at, session_id) > ($2, $3))
        ORDER BY created_at, session_id LIMIT $4`,
      [before, after?.created_at ?? null, after?.session_id ?? null, limit],
    );
  }

  /** Live debits not given back, per UTC day since `from`, newest first. */
  async spendPerDay(orgId: string, from: Date): Promise<Array<{ day: string; amount: number; verifications: number }>> {
    const rows = await this.db.rows<{ day: string; amount: string; verifications: string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(amount)::text AS amount, count(*)::text AS verifications
         FROM accounts.wallet_debits WHERE org_id = $1 AND refunded_at IS NULL AND created_at >= $2
        GROUP BY 1 ORDER BY 1 DESC`,
      [orgId, from],
    );
    return rows.map((r) => ({ day: r.day, amount: Number(r.amount), verifications: Number(r.verifications) }));
  }
}
