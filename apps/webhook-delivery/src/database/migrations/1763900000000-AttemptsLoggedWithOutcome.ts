import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An attempt's row is now written once, with its outcome; a claimed attempt is known by its delivery's lease
 * until then. Rows an earlier version left `in_progress` are attempts whose outcome was never seen: they are
 * closed as interrupted (failed, `connection_error`), as the sweeper closes them now, and the status can no
 * longer be `in_progress`. Stop the earlier version's replicas before running this migration.
 */
export class AttemptsLoggedWithOutcome1763900000000 implements MigrationInterface {
  name = 'AttemptsLoggedWithOutcome1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE webhook_delivery.attempts a
         SET status = 'failed', error_code = 'connection_error', finished_at = now(), latency_ms = coalesce(a.latency_ms, 20000),
             next_attempt_at = CASE WHEN d.status = 'pending' THEN now() END
        FROM webhook_delivery.deliveries d
       WHERE a.status = 'in_progress' AND d.id = a.delivery_id`);
    await q.query(`ALTER TABLE webhook_delivery.attempts DROP CONSTRAINT attempts_status_check`);
    await q.query(`ALTER TABLE webhook_delivery.attempts ADD CONSTRAINT attempts_status_check CHECK (status IN ('succeeded', 'failed'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_delivery.attempts DROP CONSTRAINT attempts_status_check`);
    await q.query(`ALTER TABLE webhook_delivery.attempts ADD CONSTRAINT attempts_status_check CHECK (status IN ('in_progress', 'succeeded', 'failed'))`);
  }
}
