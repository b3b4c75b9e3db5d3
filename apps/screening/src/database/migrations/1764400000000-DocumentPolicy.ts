import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The document policy of a template version (docs/screening.md, "Document policy"): minimum age, accepted document
 * types and issuers, what an applicant mismatch does, threshold overrides. Versions written before hold none: no
 * limit, `review`, the region's thresholds, exactly what their runs did. Adding columns with constant defaults
 * rewrites no row (and so never meets the trigger that keeps versions immutable).
 */
export class DocumentPolicy1764400000000 implements MigrationInterface {
  name = 'DocumentPolicy1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE screening.template_versions
        ADD COLUMN minimum_age integer CHECK (minimum_age BETWEEN 0 AND 125),
        ADD COLUMN accepted_document_types text[],
        ADD COLUMN accepted_issuing_countries text[],
        ADD COLUMN applicant_mismatch text NOT NULL DEFAULT 'review' CHECK (applicant_mismatch IN ('review', 'fail')),
        ADD COLUMN thresholds json NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE screening.template_versions DROP COLUMN minimum_age, DROP COLUMN accepted_document_types,
        DROP COLUMN accepted_issuing_countries, DROP COLUMN applicant_mismatch, DROP COLUMN thresholds`);
  }
}
