import type { MigrationInterface, QueryRunner } from 'typeorm';

const S = 'webhook_delivery';
/** The identifier columns of each table, compared byte by byte from now on. */
const ID_COLUMNS: Record<string, string[]> = {
  subscriptions: ['id', 'org_id', 'mode'],
  deliveries: ['id', 'event_id', 'subscription_id', 'org_id', 'mode', 'session_id'],
  attempts: ['id', 'delivery_id', 'org_id', 'mode', 'event_id', 'session_id', 'subscription_id'],
};

/**
 * The delivery ledger with fewer writes per delivery (docs/decisions.md, "Webhooks"):
 * - An attempt's row is written once, with its outcome; a claimed attempt is known by its delivery's lease
 *   until then. Rows an earlier version left `in_progress` are attempts whose outcome was never seen: they
 *   are closed as interrupted (failed, `connection_error`), as the sweeper closes them now, and the status
 *   can no longer be `in_progress`.
 * - Identifier columns use the "C" collation: ids are opaque ASCII, and byte order spares every index
 *   comparison the locale's rules.
 * - Deliveries no longer carry a foreign key to their subscription: fan-out writes them from the
 *   subscription rows it just read, subscriptions are never deleted, and the key's check locked the
 *   subscription row for every delivery written.
 * Stop webhook-delivery before running it (events wait in JetStream meanwhile).
 */
export class LeanerLedger1763900000000 implements MigrationInterface {
  name = 'LeanerLedger1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE ${S}.attempts a
         SET status = 'failed', error_code = 'connection_error', finished_at = now(), latency_ms = coalesce(a.latency_ms, 20000),
             next_attempt_at = CASE WHEN d.status = 'pending' THEN now() END
        FROM ${S}.deliveries d
       WHERE a.status = 'in_progress' AND d.id = a.delivery_id`);
    await q.query(`ALTER TABLE ${S}.attempts DROP CONSTRAINT attempts_status_check`);
    await q.query(`ALTER TABLE ${S}.attempts ADD CONSTRAINT attempts_status_check CHECK (status IN ('succeeded', 'failed'))`);
    await q.query(`ALTER TABLE ${S}.deliveries DROP CONSTRAINT deliveries_subscription_id_fkey`);
    await q.query(`ALTER TABLE ${S}.attempts DROP CONSTRAINT attempts_delivery_id_fkey`);
    await this.collate(q, '"C"');
    await q.query(`ALTER TABLE ${S}.attempts ADD CONSTRAINT attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES ${S}.deliveries (id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE ${S}.attempts DROP CONSTRAINT attempts_delivery_id_fkey`);
    await this.collate(q, 'pg_catalog."default"');
    await q.query(`ALTER TABLE ${S}.attempts ADD CONSTRAINT attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES ${S}.deliveries (id)`);
    await q.query(`ALTER TABLE ${S}.deliveries ADD CONSTRAINT deliveries_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES ${S}.subscriptions (id)`);
    await q.query(`ALTER TABLE ${S}.attempts DROP CONSTRAINT attempts_status_check`);
    await q.query(`ALTER TABLE ${S}.attempts ADD CONSTRAINT attempts_status_check CHECK (status IN ('in_progress', 'succeeded', 'failed'))`);
  }

  private async collate(q: QueryRunner, collation: string): Promise<void> {
    for (const [table, columns] of Object.entries(ID_COLUMNS)) {
      await q.query(`ALTER TABLE ${S}.${table} ${columns.map((c) => `ALTER COLUMN ${c} TYPE text COLLATE ${collation}`).join(', ')}`);
    }
  }
}
