import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An organization's owners can require two-factor sign-in of everyone of it in the region's console (docs/console.md,
 * "Two-factor sign-in"): a person without it is sent to set it up right after their password, and can do nothing else.
 */
export class ConsoleRequireTwoFactor1765200000000 implements MigrationInterface {
  name = 'ConsoleRequireTwoFactor1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts.organizations ADD COLUMN console_require_two_factor boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts.organizations DROP COLUMN console_require_two_factor`);
  }
}
