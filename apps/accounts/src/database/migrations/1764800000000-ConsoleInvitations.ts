import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Invitations to the console (docs/console.md, "Team"): an owner invites an address with a role; the person opens
 * the link, sets their own password and is signed in. The link's token is kept as its SHA-256 only; an invitation
 * is used once, can be revoked, and expires.
 */
export class ConsoleInvitations1764800000000 implements MigrationInterface {
  name = 'ConsoleInvitations1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts.console_invitations (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES accounts.organizations(id),
        email text NOT NULL CHECK (email = lower(email)),
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'reviewer')),
        token_hash text NOT NULL,
        invited_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_user_id text,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX console_invitations_token_uq ON accounts.console_invitations (token_hash)`);
    // the Team page's pending invitations, and the one a new invitation of the same address replaces
    await q.query(`CREATE INDEX console_invitations_pending_idx ON accounts.console_invitations (org_id, email) WHERE accepted_at IS NULL AND revoked_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE accounts.console_invitations`);
  }
}
