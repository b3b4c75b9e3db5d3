import { Inject, Injectable } from '@nestjs/common';
import type { Address, Owner } from '@verity/contracts';
import type { Mode } from '@verity/keys';
import { MicroBatch, Sql } from '@verity/platform';

export interface ApplicantRow {
  seq: string;
  id: string;
  mode: Mode;
  family_name: string | null;
  given_names: string[] | null;
  name_suffix: string | null;
  email: string | null;
  phone: string | null;
  date_of_birth: string | null;
  address: Address | null;
  external_id: string | null;
  erased_at: Date | null;
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
  to_char(date_of_birth, 'YYYY-MM-DD') AS date_of_birth, address, external_id, erased_at, created_at`;

/** Statements of one batch at most (rows written or read together), and batches running at once. */
const BATCH = 64;
const IN_FLIGHT = 4;

interface PendingInsert {
  owner: Owner;
  a: NewApplicant;
  deadline: Date;
}

/** Every query is scoped by organization and mode: a row of another owner does not exist for the caller. */
@Injectable()
export class ApplicantsRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /**
   * The hot paths, batched: inserts arriving in the same turn of the event loop are written by one statement
   * (one round trip and one commit for the lot), reads by one query. A failed batch goes again one by one, so
   * one insert's failure is its own.
   */
  private readonly inserts = new MicroBatch((b: PendingInsert[]) => this.insertMany(b), BATCH, IN_FLIGHT, { retryAlone: true });
  private readonly finds = new MicroBatch((b: Array<{ owner: Owner; id: string }>) => this.findMany(b), BATCH, IN_FLIGHT);

  /** The new row; null, with nothing written, when `deadline` has passed by the database's clock as the statement runs. */
  insert(owner: Owner, a: NewApplicant, deadline: Date): Promise<ApplicantRow | null> {
    return this.inserts.add({ owner, a, deadline });
  }

  find(owner: Owner, id: string): Promise<ApplicantRow | null> {
    return this.finds.add({ owner, id });
  }

  private async insertMany(batch: PendingInsert[]): Promise<Array<ApplicantRow | null>> {
    const col = <T>(f: (x: PendingInsert) => T) => batch.map(f);
    const rows = await this.db.prepared<ApplicantRow>(
      'applicants_insert',
      `INSERT INTO applicants.applicants
         (id, org_id, mode, family_name, given_names, name_suffix, email, phone, date_of_birth, address, external_id)
       SELECT r.id, r.org_id, r.mode, r.family_name, ARRAY(SELECT e FROM jsonb_array_elements_text(r.given_names) WITH ORDINALITY AS g(e, i) ORDER BY i), r.name_suffix,
              r.email, r.phone, r.date_of_birth, r.address, r.external_id
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::text[], $7::text[], $8::text[], $9::date[], $10::jsonb[], $11::text[], $12::timestamptz[])
           AS r(id, org_id, mode, family_name, given_names, name_suffix, email, phone, date_of_birth, address, external_id, deadline)
        WHERE clock_timestamp() < r.deadline
       RETURNING ${COLUMNS}`,
      [
        col((x) => x.a.id),
        col((x) => x.owner.org_id),
        col((x) => x.owner.mode),
        col((x) => x.a.family_name),
        col((x) => JSON.stringify(x.a.given_names)),
        col((x) => x.a.name_suffix ?? null),
        col((x) => x.a.email ?? null),
        col((x) => x.a.phone ?? null),
        col((x) => x.a.date_of_birth ?? null),
        col((x) => (x.a.address ? JSON.stringify(x.a.address) : null)),
        col((x) => x.a.external_id ?? null),
        col((x) => x.deadline),
      ],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return batch.map((x) => byId.get(x.a.id) ?? null);
  }

  private async findMany(batch: Array<{ owner: Owner; id: string }>): Promise<Array<ApplicantRow | null>> {
    const rows = await this.db.prepared<ApplicantRow & { org_id: string }>(
      'applicants_find',
      `SELECT a.seq, a.id, a.mode, a.family_name, a.given_names, a.name_suffix, a.email, a.phone,
              to_char(a.date_of_birth, 'YYYY-MM-DD') AS date_of_birth, a.address, a.external_id, a.erased_at, a.created_at, a.org_id
         FROM unnest($1::text[], $2::text[], $3::text[]) AS r(id, org_id, mode)
         JOIN applicants.applicants a ON a.id = r.id AND a.org_id = r.org_id AND a.mode = r.mode`,
      [batch.map((x) => x.id), batch.map((x) => x.owner.org_id), batch.map((x) => x.owner.mode)],
    );
    // the same id may be asked for by its owner and by another organization in one batch: match all three
    const key = (id: string, o: Owner) => `${id} ${o.org_id} ${o.mode}`;
    const found = new Map(rows.map((r) => [key(r.id, r), r]));
    return batch.map((x) => found.get(key(x.id, x.owner)) ?? null);
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
