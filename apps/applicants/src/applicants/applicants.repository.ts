import { Inject, Injectable } from '@nestjs/common';
import type { Address, Applicant, Owner } from '@verity/contracts';
import { MicroBatch, Sql, unnestColumns, type WithDates } from '@verity/platform';

/** A row of `applicants.applicants`: the applicant's fields as stored, and when it was erased (the wire's `erased`). */
export interface ApplicantRow extends WithDates<Omit<Applicant, 'object' | 'erased'>, 'created_at'> {
  seq: string;
  erased_at: Date | null;
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

/** The rows of a batched insert, and the deadline of each (by the database's clock). */
const NEW_APPLICANTS = unnestColumns({
  id: 'text',
  org_id: 'text',
  mode: 'text',
  family_name: 'text',
  // a JSON array: an array of arrays of different lengths cannot be a parameter
  given_names: 'jsonb',
  name_suffix: 'text',
  email: 'text',
  phone: 'text',
  date_of_birth: 'date',
  address: 'jsonb',
  external_id: 'text',
  deadline: 'timestamptz',
});

/** The keys of a batched read: every read is scoped by its owner. */
const LOOKUPS = unnestColumns({ id: 'text', org_id: 'text', mode: 'text' });

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
    const rows = await this.db.prepared<ApplicantRow>(
      'applicants_insert',
      `INSERT INTO applicants.applicants
         (id, org_id, mode, family_name, given_names, name_suffix, email, phone, date_of_birth, address, external_id)
       SELECT r.id, r.org_id, r.mode, r.family_name, ARRAY(SELECT e FROM jsonb_array_elements_text(r.given_names) WITH ORDINALITY AS g(e, i) ORDER BY i), r.name_suffix,
              r.email, r.phone, r.date_of_birth, r.address, r.external_id
         FROM ${NEW_APPLICANTS.sql}
        WHERE clock_timestamp() < r.deadline
       RETURNING ${COLUMNS}`,
      NEW_APPLICANTS.params(
        batch.map(({ owner, a, deadline }) => ({
          id: a.id,
          org_id: owner.org_id,
          mode: owner.mode,
          family_name: a.family_name,
          given_names: JSON.stringify(a.given_names),
          name_suffix: a.name_suffix ?? null,
          email: a.email ?? null,
          phone: a.phone ?? null,
          date_of_birth: a.date_of_birth ?? null,
          address: a.address ? JSON.stringify(a.address) : null,
          external_id: a.external_id ?? null,
          deadline,
        })),
      ),
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return batch.map((x) => byId.get(x.a.id) ?? null);
  }

  private async findMany(batch: Array<{ owner: Owner; id: string }>): Promise<Array<ApplicantRow | null>> {
    const rows = await this.db.prepared<ApplicantRow & { org_id: string }>(
      'applicants_find',
      `SELECT a.seq, a.id, a.mode, a.family_name, a.given_names, a.name_suffix, a.email, a.phone,
              to_char(a.date_of_birth, 'YYYY-MM-DD') AS date_of_birth, a.address, a.external_id, a.erased_at, a.created_at, a.org_id
         FROM ${LOOKUPS.sql}
         JOIN applicants.applicants a ON a.id = r.id AND a.org_id = r.org_id AND a.mode = r.mode`,
      LOOKUPS.params(batch.map((x) => ({ id: x.id, org_id: x.owner.org_id, mode: x.owner.mode }))),
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

  /** The names of the owner's applicants among `ids`; another owner's id, or an unknown one, is not there. */
  async names(owner: Owner, ids: string[]): Promise<NameRow[]> {
    return this.db.rows<NameRow>(
      `SELECT id, family_name, given_names, erased_at FROM applicants.applicants WHERE org_id = $1 AND mode = $2 AND id = ANY($3::text[])`,
      [owner.org_id, owner.mode, ids],
    );
  }

  /**
   * The owner's applicants, newest first, each of whose names has a word starting with every term (terms lower case,
   * `%`, `_` and `\\` escaped by the caller); `limit + 1` rows so the caller can tell there were more. Erased applicants
   * have no name left to match.
   */
  async searchNames(owner: Owner, terms: string[], limit: number): Promise<NameRow[]> {
    return this.db.rows<NameRow>(
      `SELECT id, family_name, given_names, erased_at FROM applicants.applicants a
        WHERE org_id = $1 AND mode = $2 AND erased_at IS NULL
          AND NOT EXISTS (
            SELECT 1 FROM unnest($3::text[]) t
             WHERE NOT EXISTS (
               SELECT 1 FROM unnest(array_append(a.given_names, a.family_name)) w
                WHERE lower(w) LIKE t || '%' OR lower(w) LIKE '% ' || t || '%' OR lower(w) LIKE '%-' || t || '%'))
        ORDER BY seq DESC LIMIT $4`,
      [owner.org_id, owner.mode, terms, limit + 1],
    );
  }
}

export interface NameRow {
  id: string;
  family_name: string | null;
  given_names: string[] | null;
  erased_at: Date | null;
}
