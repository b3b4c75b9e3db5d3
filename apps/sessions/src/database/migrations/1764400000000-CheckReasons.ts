import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Checks with their reasons and score (contract §20): a session's `checks` and a run's `checks` hold, per check,
 * `{ type, outcome, reasons, score }`. Rows written before hold `{ type, outcome }`; they are given what they would
 * have read: no reasons, no score. Both columns are `jsonb`, so nothing changes in the tables' shape; the rows are
 * completed in batches, so that no statement holds many row locks for long. A row written meanwhile by the release
 * still serving reads the same way (the read fills in what it lacks: `sessions/checks.ts`).
 */
export class CheckReasons1764400000000 implements MigrationInterface {
  name = 'CheckReasons1764400000000';

  async up(q: QueryRunner): Promise<void> {
    const complete = `(SELECT COALESCE(jsonb_agg(
        CASE WHEN jsonb_typeof(c) = 'object' THEN jsonb_build_object('reasons', '[]'::jsonb, 'score', NULL) || c ELSE c END
        ORDER BY i), '[]'::jsonb)
       FROM jsonb_array_elements(checks) WITH ORDINALITY AS e(c, i))`;
    const lacking = `jsonb_typeof(checks) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements(checks) c WHERE jsonb_typeof(c) = 'object' AND NOT (c ? 'reasons' AND c ? 'score'))`;
    for (const [table, key] of [['sessions.sessions', 'id'], ['sessions.runs', 'id']] as const) {
      for (;;) {
        const [done] = (await q.query(
          `WITH u AS (
             UPDATE ${table} SET checks = ${complete}
              WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE ${lacking} LIMIT 1000 FOR UPDATE SKIP LOCKED)
             RETURNING 1)
           SELECT count(*)::int AS n FROM u`,
        )) as Array<{ n: number }>;
        if (!done || done.n === 0) break;
      }
    }
  }

  async down(): Promise<void> {
    // the extra members are ignored by the release before: nothing to undo
  }
}
