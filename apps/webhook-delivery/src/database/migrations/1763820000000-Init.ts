import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscriptions, deliveries (one per event and subscription, the queue of attempts) and attempts (one row per
 * attempt, the delivery log). Identifiers use the "C" collation: they are opaque ASCII. A claim changes no indexed
 * column of its delivery and an outcome none of its attempt's, so with the free space the fill factors leave, both
 * are HOT updates. Why there are no foreign keys and no unique index besides the primary keys: docs/decisions.md,
 * "Webhooks".
 */
export class Init1763820000000 implements MigrationInterface {
  name = 'Init1763820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_delivery.subscriptions (
        seq bigserial NOT NULL,
        id text COLLATE "C" PRIMARY KEY,
        org_id text COLLATE "C" NOT NULL,
        mode text COLLATE "C" NOT NULL CHECK (mode IN ('test', 'live')),
        url text NOT NULL,
        event_types text[] NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        secret_sealed text NOT NULL,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX subscriptions_seq_uq ON webhook_delivery.subscriptions (seq)`);
    await q.query(`CREATE INDEX subscriptions_owner_seq_idx ON webhook_delivery.subscriptions (org_id, mode, seq DESC)`);
    // the id is derived from the event and the subscription (fan-out's idempotency)
    await q.query(`
      CREATE TABLE webhook_delivery.deliveries (
        seq bigserial NOT NULL,
        id text COLLATE "C" PRIMARY KEY,
        event_id text COLLATE "C" NOT NULL,
        subscription_id text COLLATE "C" NOT NULL,
        org_id text COLLATE "C" NOT NULL,
        mode text COLLATE "C" NOT NULL CHECK (mode IN ('test', 'live')),
        event_type text NOT NULL,
        session_id text COLLATE "C",
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
        attempts integer NOT NULL DEFAULT 0,
        round integer NOT NULL DEFAULT 1,
        round_base integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        lease_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      ) WITH (fillfactor = 70)`);
    // the dispatcher's claims read this one in due order
    await q.query(`CREATE INDEX deliveries_pending_due_idx ON webhook_delivery.deliveries (next_attempt_at) WHERE status = 'pending'`);
    // the test-data purge finds an owner's cancelled deliveries (possibly never attempted) through this one
    await q.query(`CREATE INDEX deliveries_cancelled_owner_idx ON webhook_delivery.deliveries (org_id, mode) WHERE status = 'cancelled'`);
    await q.query(`
      CREATE TABLE webhook_delivery.attempts (
        seq bigserial NOT NULL,
        -- the public id: random, never looked up (rows are addressed by delivery and attempt number)
        id text COLLATE "C" NOT NULL,
        delivery_id text COLLATE "C" NOT NULL,
        org_id text COLLATE "C" NOT NULL,
        mode text COLLATE "C" NOT NULL CHECK (mode IN ('test', 'live')),
        event_id text COLLATE "C" NOT NULL,
        event_type text NOT NULL,
        session_id text COLLATE "C",
        subscription_id text COLLATE "C" NOT NULL,
        attempt integer NOT NULL CHECK (attempt >= 1),
        status text NOT NULL CHECK (status IN ('succeeded', 'failed')),
        http_status integer,
        latency_ms integer,
        error_code text CHECK (error_code IN ('timeout', 'connection_error', 'dns_error', 'tls_error', 'http_status', 'blocked_destination')),
        next_attempt_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        PRIMARY KEY (delivery_id, attempt)
      ) WITH (fillfactor = 80)`);
    await q.query(`CREATE INDEX attempts_owner_seq_idx ON webhook_delivery.attempts (org_id, mode, seq DESC)`);
    // session and subscription ids are unique across owners: the list filters and replay use these
    await q.query(`CREATE INDEX attempts_session_seq_idx ON webhook_delivery.attempts (session_id, seq DESC)`);
    await q.query(`CREATE INDEX attempts_subscription_owner_seq_idx ON webhook_delivery.attempts (subscription_id, org_id, mode, seq DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_delivery.attempts`);
    await q.query(`DROP TABLE webhook_delivery.deliveries`);
    await q.query(`DROP TABLE webhook_delivery.subscriptions`);
  }
}
