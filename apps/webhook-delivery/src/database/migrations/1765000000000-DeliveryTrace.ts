import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery keeps the W3C `traceparent` its event arrived with, so that each attempt joins the trace of the work
 * that made the event (docs/observability.md). Additive: the previous release neither reads nor writes it.
 */
export class DeliveryTrace1765000000000 implements MigrationInterface {
  name = 'DeliveryTrace1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_delivery.deliveries ADD COLUMN trace_context text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_delivery.deliveries DROP COLUMN trace_context`);
  }
}
