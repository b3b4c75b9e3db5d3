import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A console person disabled without being removed (docs/console.md, "Team"): while `disabled_at` is set they cannot
 * sign in, and disabling moves their session epoch on, so every session of theirs ends at its next request.
 */
export class ConsoleUserDisabled1764900000000 implements MigrationInterface {
  name = 'ConsoleUserDisabled1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts.console_users ADD COLUMN disabled_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts.console_users DROP COLUMN disabled_at`);
  }
}
