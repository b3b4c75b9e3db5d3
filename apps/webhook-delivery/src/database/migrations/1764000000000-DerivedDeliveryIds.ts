import type { MigrationInterface, QueryRunner } from 'typeorm';

const S = 'webhook_delivery';

/**
 * Deliveries get ids derived from their event and subscription (`deliveryId`), so the primary key alone
 * keeps fan-out idempotent (docs/decisions.md, "Webhooks"):
 * - The unique index on (event_id, subscription_id) goes: with the primary key it was a second index entry
 *   for every delivery written and for every change of its state.
 * - Deliveries written before keep their random ids (`whd_` and 24 characters; they are public, in the
 *   delivery log). A partial index by event holds only those, so replay by event still finds them; new rows
 *   are never in it.
 * - Attempts lose their foreign key to their delivery: they are only ever written from their delivery's row
 *   (a join on it, in the same statement), deliveries are never deleted, and the key's check ran a lookup and
 *   locked the delivery row for every attempt logged.
 * Stop webhook-delivery before running it (docs/operations.md): an event whose deliveries were written but
 * not yet acknowledged would otherwise be fanned out again under the new ids.
 */
export class DerivedDeliveryIds1764000000000 implements MigrationInterface {
  name = 'DerivedDeliveryIds1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE ${S}.attempts DROP CONSTRAINT attempts_delivery_id_fkey`);
    await q.query(`CREATE INDEX deliveries_random_id_event_idx ON ${S}.deliveries (event_id) WHERE length(id) = 28`);
    await q.query(`DROP INDEX ${S}.deliveries_event_subscription_uq`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNIQUE INDEX deliveries_event_subscription_uq ON ${S}.deliveries (event_id, subscription_id)`);
    await q.query(`DROP INDEX ${S}.deliveries_random_id_event_idx`);
    await q.query(`ALTER TABLE ${S}.attempts ADD CONSTRAINT attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES ${S}.deliveries (id)`);
  }
}
