import type { MigrationInterface, QueryRunner } from 'typeorm';

const S = 'webhook_delivery';

/**
 * The delivery log's `subscription_id` filter reads one index (docs/decisions.md, "Webhooks"): the index by
 * subscription also carries the owner, `(subscription_id, org_id, mode, seq DESC)`, so the list's conditions
 * (owner, subscription, position) are all index conditions and a page reads only its own rows. With
 * `(subscription_id, seq DESC)` the planner took a subscription's rows and the owner's rows as independent,
 * expected a handful to match both, and read and sorted every attempt of the subscription instead (300 ms for
 * an org with 15,000 attempts, growing with them). The index replaces the old one: one index per attempt, as
 * before, and replay by subscription still reads it by its first column.
 * The build locks the table against writes: stop webhook-delivery before running it (events wait in
 * JetStream meanwhile); it took 80 s for 20 million attempts on the development machine.
 */
export class SubscriptionOwnerIndex1764300000000 implements MigrationInterface {
  name = 'SubscriptionOwnerIndex1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX attempts_subscription_owner_seq_idx ON ${S}.attempts (subscription_id, org_id, mode, seq DESC)`);
    await q.query(`DROP INDEX ${S}.attempts_subscription_seq_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX attempts_subscription_seq_idx ON ${S}.attempts (subscription_id, seq DESC)`);
    await q.query(`DROP INDEX ${S}.attempts_subscription_owner_seq_idx`);
  }
}
