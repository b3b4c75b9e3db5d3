import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Billing of live session creates (docs/sessions.md, "Billing"): one row per debited session (its id is the idempotency key),
 * settled once the sweep has seen the session, or refunded when it never came; a wallet never goes below zero.
 */
export class WalletDebits1764100000000 implements MigrationInterface {
  name = 'WalletDebits1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts.organizations ADD CONSTRAINT organizations_wallet_balance_check CHECK (wallet_balance >= 0)`);
    await q.query(`
      CREATE TABLE accounts.wallet_debits (
        session_id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES accounts.organizations(id),
        key_id text NOT NULL,
        amount bigint NOT NULL CHECK (amount >= 0),
        checks text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        settled_at timestamptz,
        refunded_at timestamptz,
        CHECK (settled_at IS NULL OR refunded_at IS NULL)
      )`);
    await q.query(`CREATE INDEX wallet_debits_org_idx ON accounts.wallet_debits (org_id, created_at)`);
    // the settle sweep: open debits, oldest first
    await q.query(`CREATE INDEX wallet_debits_open_idx ON accounts.wallet_debits (created_at) WHERE settled_at IS NULL AND refunded_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE accounts.wallet_debits`);
    await q.query(`ALTER TABLE accounts.organizations DROP CONSTRAINT organizations_wallet_balance_check`);
  }
}
