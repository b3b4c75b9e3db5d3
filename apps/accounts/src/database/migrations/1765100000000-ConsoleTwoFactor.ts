import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two-factor sign-in to the console (docs/console.md, "Two-factor sign-in"): a person's TOTP secret (RFC 6238), the
 * one shown for enrolment until its first code confirms it, the step of the last code taken (a code is good once),
 * and their one-time recovery codes, kept as SHA-256 hashes.
 */
export class ConsoleTwoFactor1765100000000 implements MigrationInterface {
  name = 'ConsoleTwoFactor1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE accounts.console_users
        ADD COLUMN totp_secret text,
        ADD COLUMN totp_enabled_at timestamptz,
        ADD COLUMN totp_last_step bigint,
        ADD COLUMN totp_pending_secret text,
        ADD COLUMN totp_pending_at timestamptz`);
    await q.query(`
      CREATE TABLE accounts.console_recovery_codes (
        user_id text NOT NULL REFERENCES accounts.console_users(id) ON DELETE CASCADE,
        code_hash text NOT NULL,
        used_at timestamptz,
        PRIMARY KEY (user_id, code_hash)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE accounts.console_recovery_codes`);
    await q.query(`
      ALTER TABLE accounts.console_users
        DROP COLUMN totp_secret, DROP COLUMN totp_enabled_at, DROP COLUMN totp_last_step, DROP COLUMN totp_pending_secret, DROP COLUMN totp_pending_at`);
  }
}
