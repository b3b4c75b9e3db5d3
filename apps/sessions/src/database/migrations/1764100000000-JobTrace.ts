import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A job keeps the W3C `traceparent` of the request that queued it, so that its run joins the request's trace (docs/observability.md). */
export class JobTrace1764100000000 implements MigrationInterface {
  name = 'JobTrace1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions.jobs ADD COLUMN trace_context text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions.jobs DROP COLUMN trace_context`);
  }
}
