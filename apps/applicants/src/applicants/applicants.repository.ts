import { Inject, Injectable } from '@nestjs/common';
import type { Address, Owner } from '@verity/contracts';
import type { Mode } from '@verity/keys';
import { Sql } from '@verity/platform';

export interface ApplicantRow {
  seq: string;
  id: string;
  mode: Mode;
  family_name: string;
  given_names: string[];
  name_suffix: string | null;
  email: string | null;
  phone: string | null;
  date_of_birth: string | null;
  address: Address | null;
  external_id: string | null;
  created_at: Date;
}

export interface NewApplicant {
  id: string;
  family_name: string;
  given_names: string[];
  name_suffix?: string;
  email?: string;
  phone?: string;
  date_of_birth?: string;
  address?: Address;
  external_id?: string;
}

const COLUMNS = `seq, id, mode, family_name, given_names, name_suffix, email, phone,
  to_char(date_of_birth, 'YYYY-MM-DD') AS date_of_birth, address, external_id, created_at`;

/** Every query is scoped by organization and mode: a row of another owner does not exist for the caller. */
@Injectable()
export class ApplicantsRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  async insert(owner: Owner, a: NewApplicant): Promise<ApplicantRow> {
    const rows = await this.db.prepared<ApplicantRow>(
      'applicants_insert',
      `INSERT INTO applicants.applicants
         (id, org_id, mode, family_name, given_names, name_suffix, email, phone, date_of_birth, address, external_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
      [
        a.id,
        owner.org_id,
        owner.mode,
        a.family_name,
        a.given_names,
        a.name_suffix ?? null,
        a.email ?? null,
        a.phone ?? null,
        a.date_of_birth ?? null,
        a.address ? JSON.stringify(a.address) : null,
        a.external_id ?? null,
      ],
    );
    return rows[0]!;
  }

  async find(owner: Owner, id: string): Promise<ApplicantRow | null> {
    const rows = await this.db.prepared<ApplicantRow>(
      'applicants_find',
      `SELECT ${COLUMNS} FROM applicants.applicants WHERE id = $1 AND org_id = $2 AND mode = $3`,
      [id, owner.org_id, owner.mode],
    );
    return rows[0] ?? null;
  }

  /** Newest first, `limit + 1` rows so the caller can tell whether another page exists. */
  async list(owner: Owner, after: bigint | null, limit: number): Promise<ApplicantRow[]> {
    return this.db.rows<ApplicantRow>(
      `SELECT ${COLUMNS} FROM applicants.applicants
        WHERE org_id = $1 AND mode = $2 AND ($3::bigint IS NULL OR seq < $3::bigint)
        ORDER BY seq DESC LIMIT $4`,
      [owner.org_id, owner.mode, after === null ? null : after.toString(), limit + 1],
    );
  }
}
