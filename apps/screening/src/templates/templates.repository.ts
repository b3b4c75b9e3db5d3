import { Inject, Injectable } from '@nestjs/common';
import type { Owner, WorkflowTemplate } from '@verity/contracts';
import { Sql, type Queryable, type WithDates } from '@verity/platform';
import type { TemplateFields } from './template.validation.js';

/**
 * One version of a template (its fields as validated), with the template's own columns; `updated_at` is when this
 * version was written.
 */
export interface TemplateVersionRow
  extends TemplateFields,
    WithDates<Pick<WorkflowTemplate, 'id' | 'mode' | 'version' | 'created_at' | 'updated_at'>, 'created_at' | 'updated_at'> {
  seq: string;
}

const COLUMNS = `t.seq, t.id, t.mode, v.version, v.name, v.checks, v.screening_rules, v.metadata,
  v.device_intelligence, v.photo_upload, v.review_threshold, v.signing_document,
  v.minimum_age, v.accepted_document_types, v.accepted_issuing_countries, v.applicant_mismatch, v.thresholds, v.watchlist_thresholds,
  t.created_at, v.created_at AS updated_at`;

/** The current version of each template: the join every read of a template goes through. */
const CURRENT = `screening.templates t
  JOIN screening.template_versions v ON v.template_id = t.id AND v.version = t.current_version`;

function versionParams(id: string, version: number, owner: Owner, f: TemplateFields): unknown[] {
  return [
    id,
    version,
    owner.org_id,
    owner.mode,
    f.name,
    f.checks,
    JSON.stringify(f.screening_rules),
    JSON.stringify(f.metadata),
    f.device_intelligence,
    f.photo_upload,
    f.review_threshold,
    f.signing_document === null ? null : JSON.stringify(f.signing_document),
    f.minimum_age,
    f.accepted_document_types,
    f.accepted_issuing_countries,
    f.applicant_mismatch,
    JSON.stringify(f.thresholds),
    JSON.stringify(f.watchlist_thresholds),
  ];
}

const INSERT_VERSION = `INSERT INTO screening.template_versions
  (template_id, version, org_id, mode, name, checks, screening_rules, metadata, device_intelligence,
   photo_upload, review_threshold, signing_document,
   minimum_age, accepted_document_types, accepted_issuing_countries, applicant_mismatch, thresholds, watchlist_thresholds, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`;

export function fieldsOf(row: TemplateVersionRow): TemplateFields {
  return {
    name: row.name,
    checks: row.checks,
    screening_rules: row.screening_rules,
    metadata: row.metadata,
    device_intelligence: row.device_intelligence,
    photo_upload: row.photo_upload,
    review_threshold: row.review_threshold,
    signing_document: row.signing_document,
    minimum_age: row.minimum_age,
    accepted_document_types: row.accepted_document_types,
    accepted_issuing_countries: row.accepted_issuing_countries,
    applicant_mismatch: row.applicant_mismatch,
    thresholds: row.thresholds,
    watchlist_thresholds: row.watchlist_thresholds,
  };
}

/**
 * Every statement is scoped by organization and mode: a template of another owner does not exist for the
 * caller. Versions are only ever inserted; a write of a template is one transaction.
 */
@Injectable()
export class TemplatesRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /** A new template and its version 1, in one transaction. */
  async insert(owner: Owner, id: string, f: TemplateFields, beforeCommit: () => void): Promise<TemplateVersionRow> {
    return this.db.tx(async (q) => {
      const now = new Date();
      await q.rows(
        `INSERT INTO screening.templates (id, org_id, mode, current_version, created_at, updated_at) VALUES ($1, $2, $3, 1, $4, $4)`,
        [id, owner.org_id, owner.mode, now],
      );
      await q.rows(INSERT_VERSION, [...versionParams(id, 1, owner, f), now]);
      const row = await this.current(q, owner, id);
      beforeCommit();
      return row!;
    });
  }

  async find(owner: Owner, id: string): Promise<TemplateVersionRow | null> {
    return this.current(this.db, owner, id);
  }

  /** One version (immutable), or the current one when `version` is undefined. */
  async findVersion(owner: Owner, id: string, version: number | undefined): Promise<TemplateVersionRow | null> {
    if (version === undefined) return this.find(owner, id);
    const rows = await this.db.rows<TemplateVersionRow>(
      `SELECT ${COLUMNS} FROM screening.templates t
         JOIN screening.template_versions v ON v.template_id = t.id
        WHERE t.id = $1 AND t.org_id = $2 AND t.mode = $3 AND v.version = $4 AND v.org_id = $2 AND v.mode = $3`,
      [id, owner.org_id, owner.mode, version],
    );
    return rows[0] ?? null;
  }

  /** Newest first, `limit + 1` rows so the caller can tell whether another page exists. */
  async list(owner: Owner, after: bigint | null, limit: number): Promise<TemplateVersionRow[]> {
    return this.db.rows<TemplateVersionRow>(
      `SELECT ${COLUMNS} FROM ${CURRENT}
        WHERE t.org_id = $1 AND t.mode = $2 AND ($3::bigint IS NULL OR t.seq < $3::bigint)
        ORDER BY t.seq DESC LIMIT $4`,
      [owner.org_id, owner.mode, after === null ? null : after.toString(), limit + 1],
    );
  }

  /**
   * Writes the next version: locks the template, derives the new snapshot from the current one (`next` may
   * refuse by throwing: nothing is written), inserts it and moves the template to it. Null when the template
   * does not exist for the owner.
   */
  async update(
    owner: Owner,
    id: string,
    next: (current: TemplateVersionRow) => TemplateFields,
    beforeCommit: () => void,
  ): Promise<TemplateVersionRow | null> {
    return this.db.tx(async (q) => {
      // Lock the template row on its own, then read its current version in a new statement: a locking
      // read of the join would, after waiting for a concurrent writer, re-check the join against the
      // version it first saw and find nothing.
      const locked = await q.rows(`SELECT 1 FROM screening.templates WHERE id = $1 AND org_id = $2 AND mode = $3 FOR UPDATE`, [
        id,
        owner.org_id,
        owner.mode,
      ]);
      if (locked.length === 0) return null;
      const current = await this.current(q, owner, id);
      if (!current) return null;
      const f = next(current);
      const version = current.version + 1;
      const now = new Date();
      await q.rows(INSERT_VERSION, [...versionParams(id, version, owner, f), now]);
      await q.rows(
        `UPDATE screening.templates SET current_version = $4, updated_at = $5 WHERE id = $1 AND org_id = $2 AND mode = $3`,
        [id, owner.org_id, owner.mode, version, now],
      );
      const row = await this.current(q, owner, id);
      beforeCommit();
      return row!;
    });
  }

  /**
   * Deletes the organization's test-mode templates with all their versions (the screening rules are part of
   * each version), in one transaction. The templates are locked first, so an update in progress commits
   * before (its version is deleted too) or finds the template gone after.
   */
  async purgeTestData(orgId: string, beforeCommit: () => void): Promise<{ ids: string[]; templates: number; template_versions: number }> {
    return this.db.tx(async (q) => {
      const locked = await q.rows<{ id: string }>(`SELECT id FROM screening.templates WHERE org_id = $1 AND mode = 'test' ORDER BY id FOR UPDATE`, [orgId]);
      const ids = locked.map((r) => r.id);
      const [v] = await q.rows<{ n: number }>(
        `WITH gone AS (DELETE FROM screening.template_versions WHERE template_id = ANY($1::text[]) RETURNING 1) SELECT count(*)::int AS n FROM gone`,
        [ids],
      );
      const [t] = await q.rows<{ n: number }>(
        `WITH gone AS (DELETE FROM screening.templates WHERE id = ANY($1::text[]) RETURNING 1) SELECT count(*)::int AS n FROM gone`,
        [ids],
      );
      beforeCommit();
      return { ids, templates: t!.n, template_versions: v!.n };
    });
  }

  private async current(q: Queryable, owner: Owner, id: string): Promise<TemplateVersionRow | null> {
    const rows = await q.rows<TemplateVersionRow>(
      `SELECT ${COLUMNS} FROM ${CURRENT} WHERE t.id = $1 AND t.org_id = $2 AND t.mode = $3`,
      [id, owner.org_id, owner.mode],
    );
    return rows[0] ?? null;
  }
}
