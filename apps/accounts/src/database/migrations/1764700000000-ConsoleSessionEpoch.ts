import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A console person's session epoch (docs/console.md, "Your account"): a session opens pages only while the epoch it
 * was made under is the person's; "sign out everywhere" and a password change move it on, ending every session.
 * A counter rather than a time, so that the console's clock and Postgres's never have to agree.
 */
export class ConsoleSessionEpoch1764700000000 implements MigrationInterface {
  name = 'ConsoleSessionEpoch1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts.console_users ADD COLUMN session_epoch integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts.console_users DROP COLUMN session_epoch`);
  }
}
