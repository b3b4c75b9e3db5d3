import type { MigrationInterface, QueryRunner } from 'typeorm';

const S = 'webhook_delivery';

/**
 * The test-data purge finds an owner's deliveries through indexes: those ever attempted through the
 * attempts' owner index, pending ones through `deliveries_pending_due_idx`, and cancelled ones (a disabled
 * subscription's, possibly never attempted) through this one. It is partial: only cancelled rows have an
 * entry, and `status` already keeps a delivery's status change from being a HOT update, so the ledger's
 * statements write nothing more. The build reads the table and locks it against writes: stop
 * webhook-delivery before running it (events wait in JetStream meanwhile).
 */
export class CancelledDeliveriesIndex1764500000000 implements MigrationInterface {
  name = 'CancelledDeliveriesIndex1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX deliveries_cancelled_owner_idx ON ${S}.deliveries (org_id, mode) WHERE status = 'cancelled'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ${S}.deliveries_cancelled_owner_idx`);
  }
}
