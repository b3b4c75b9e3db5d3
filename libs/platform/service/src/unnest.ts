/** Postgres types a column of a batched statement may have (each is sent as an array of that type). */
export type UnnestType = 'text' | 'int' | 'bigint' | 'numeric' | 'boolean' | 'date' | 'timestamptz' | 'json' | 'jsonb';

export interface UnnestColumns<C extends Record<string, UnnestType>> {
  /** `unnest($n::text[], …) AS r(col, …)`: a row source of the columns, in their order, for a FROM clause. */
  readonly sql: string;
  /** The column names, in their order (for an INSERT's column list). */
  readonly names: ReadonlyArray<keyof C & string>;
  /** The statement's parameters for these columns, one array per column, from one object per row. */
  params(rows: ReadonlyArray<{ readonly [K in keyof C]: unknown }>): unknown[][];
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * Many rows in one statement: Postgres's `unnest` of one array parameter per column. The columns are declared once
 * with their types; the fragment numbers its parameters from `from` (the statement's own come first) and names
 * the row source `as`.
 *
 * ```ts
 * const DEBITS = unnestColumns({ session_id: 'text', amount: 'bigint' }, { from: 3, as: 'd' });
 * // DEBITS.sql: unnest($3::text[], $4::bigint[]) AS d(session_id, amount)
 * db.rows(`INSERT INTO t (org_id, total, session_id, amount) SELECT $1, $2, d.* FROM ${DEBITS.sql}`, [org, total, ...DEBITS.params(debits)]);
 * ```
 */
export function unnestColumns<C extends Record<string, UnnestType>>(columns: C, opts: { from?: number; as?: string } = {}): UnnestColumns<C> {
  const from = opts.from ?? 1;
  const alias = opts.as ?? 'r';
  const names = Object.keys(columns) as Array<keyof C & string>;
  for (const n of [...names, alias]) if (!IDENTIFIER.test(n)) throw new Error(`unnestColumns: "${n}" is not a plain identifier`);
  const arrays = names.map((n, i) => `$${from + i}::${columns[n]}[]`).join(', ');
  return {
    sql: `unnest(${arrays}) AS ${alias}(${names.join(', ')})`,
    names,
    params: (rows) => names.map((n) => rows.map((r) => r[n])),
  };
}
