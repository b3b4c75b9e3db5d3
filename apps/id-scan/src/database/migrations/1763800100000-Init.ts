import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * ID scan is stateless: it stores no image and no extracted field. Its schema holds only the organization's
 * audit trail of scans that reached a result, which is where test-mode `fail` and `doc_quality` (identical
 * on the wire) are told apart.
 */
export class Init1763800100000 implements MigrationInterface {
  name = 'Init1763800100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE id_scan.audit (
        seq bigserial NOT NULL,
        id text PRIMARY KEY,
        org_id text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('test', 'live')),
        action text NOT NULL CHECK (action IN ('kyc.idv.document_scanned')),
        outcome text NOT NULL,
        request_id text NOT NULL,
        key_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX audit_seq_uq ON id_scan.audit (seq)`);
    await q.query(`CREATE INDEX audit_org_seq_idx ON id_scan.audit (org_id, seq DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE id_scan.audit`);
  }
}
