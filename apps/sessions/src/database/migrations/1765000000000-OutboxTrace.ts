import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An outbox event keeps the W3C `traceparent` of the work that wrote it, and the relay sends it with the event, so
 * that its webhook deliveries join that trace (docs/observability.md).
 */
export class OutboxTrace1765000000000 implements MigrationInterface {
  name = 'OutboxTrace1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions.outbox ADD COLUMN trace_context text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions.outbox DROP COLUMN trace_context`);
  }
}
