import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The region's console (docs/console.md): the people who sign in to it, one address per region, with an Argon2id
 * hash of their password (docs/decisions.md, "Console users"), and the log of the changes they made, newest first.
 */
export class ConsoleUsers1764500000000 implements MigrationInterface {
  name = 'ConsoleUsers1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts.console_users (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES accounts.organizations(id),
        email text NOT NULL CHECK (email = lower(email)),
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'reviewer')),
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // one address per region, whatever the organization: a sign-in names the address alone
    await q.query(`CREATE UNIQUE INDEX console_users_email_uq ON accounts.console_users (email)`);
    await q.query(`CREATE INDEX console_users_org_idx ON accounts.console_users (org_id, created_at)`);
    await q.query(`
      CREATE TABLE accounts.console_activity (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        org_id text NOT NULL REFERENCES accounts.organizations(id),
        mode text CHECK (mode IN ('test', 'live')),
        actor_id text NOT NULL,
        actor_email text NOT NULL,
        action text NOT NULL,
        target_id text,
        details jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // an organization's log, newest first, paged by the entry last seen
    await q.query(`CREATE INDEX console_activity_org_seq_idx ON accounts.console_activity (org_id, seq DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE accounts.console_activity`);
    await q.query(`DROP TABLE accounts.console_users`);
  }
}
