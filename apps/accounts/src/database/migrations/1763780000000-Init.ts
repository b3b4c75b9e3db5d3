import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763780000000 implements MigrationInterface {
  name = 'Init1763780000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts.organizations (
        id text PRIMARY KEY,
        name text NOT NULL,
        region text NOT NULL CHECK (region IN ('us', 'eu')),
        tier text NOT NULL DEFAULT 'standard' CHECK (tier IN ('standard', 'elevated', 'enterprise', 'custom')),
        custom_limits jsonb,
        subscription_status text NOT NULL DEFAULT 'active' CHECK (subscription_status IN ('active', 'past_due', 'canceled')),
        past_due_since timestamptz,
        wallet_balance bigint,
        wallet_locked boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE accounts.api_keys (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES accounts.organizations(id),
        type text NOT NULL CHECK (type IN ('sk', 'pk')),
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        scopes text[] NOT NULL,
        key_hash text NOT NULL,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        rotated_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX api_keys_key_hash_uq ON accounts.api_keys (key_hash)`);
    await q.query(`CREATE INDEX api_keys_org_idx ON accounts.api_keys (org_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE accounts.api_keys`);
    await q.query(`DROP TABLE accounts.organizations`);
  }
}
