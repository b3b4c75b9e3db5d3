import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * The shape of a seeded region (`npm run bench -- scale`): `sessions` sessions over `orgs` organizations, one
 * of which (the "big" org) holds `BIG_SHARE` of every table, the others an equal share of the rest. Every
 * applicant has two sessions, every session four webhook attempts (three deliveries, one retried) and one
 * relayed outbox event.
 */
export interface SeedSpec {
  sessions: number;
  orgs: number;
}

export const BIG_SHARE = 0.1;
/** One applicant in seven is in test mode, the rest live (the measured keys are live). */
const TEST_EVERY = 7;

/** The org ids of a seed, by index: 0 is the big org. */
export function orgId(index: number): string {
  return `org_${md5Hex(`scale-org-${index}`).slice(0, 24)}`;
}

function md5Hex(s: string): string {
  // the same function as SQL's md5(), so that ids computed here match the seeded rows
  return createHash('md5').update(s).digest('hex');
}

/** SQL text: the org index of applicant `j` (0 for every tenth applicant, the big org; else spread evenly). */
const orgIndexSql = (j: string, orgs: number) => `(CASE WHEN ${j} % 10 = 0 THEN 0 ELSE 1 + (${j} % ${orgs - 1}) END)`;
const orgSql = (j: string, orgs: number) => `'org_' || substr(md5('scale-org-' || ${orgIndexSql(j, orgs)}), 1, 24)`;
const modeSql = (j: string) => `(CASE WHEN ${j} % ${TEST_EVERY} = 3 THEN 'test' ELSE 'live' END)`;
const idSql = (prefix: string, n: string) => `'${prefix}_' || substr(md5('scale-${prefix}-' || ${n}), 1, 24)`;

/** Secondary indexes (and the attempts' primary key) are dropped before the load and built after it. */
const BULK_TABLES = ['sessions.sessions', 'sessions.outbox', 'applicants.applicants', 'webhook_delivery.attempts'];

interface Saved {
  table: string;
  drop: string;
  create: string;
}

async function dropIndexes(c: pg.Client): Promise<Saved[]> {
  const saved: Saved[] = [];
  for (const table of BULK_TABLES) {
    const [schema, name] = table.split('.') as [string, string];
    const { rows } = await c.query<{ indexname: string; indexdef: string; conname: string | null; condef: string | null; referenced: boolean }>(
      `SELECT i.indexname, i.indexdef, con.conname, pg_get_constraintdef(con.oid) AS condef,
              EXISTS (SELECT 1 FROM pg_constraint f WHERE f.contype = 'f' AND f.conindid = con.conindid) AS referenced
         FROM pg_indexes i
         LEFT JOIN pg_constraint con ON con.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass
        WHERE i.schemaname = $1 AND i.tablename = $2`,
      [schema, name],
    );
    for (const r of rows) {
      if (r.referenced) continue; // a key other tables refer to stays (sessions.sessions' primary key)
      if (r.conname) {
        saved.push({ table, drop: `ALTER TABLE ${table} DROP CONSTRAINT ${r.conname}`, create: `ALTER TABLE ${table} ADD CONSTRAINT ${r.conname} ${r.condef}` });
      } else {
        saved.push({ table, drop: `DROP INDEX ${schema}.${r.indexname}`, create: r.indexdef });
      }
    }
  }
  for (const s of saved) await c.query(s.drop);
  return saved;
}

/** Rows of each seeded table, as the seed writes them (a database with other counts is seeded again). */
export function expectedCounts(spec: SeedSpec): Record<string, number> {
  return {
    'sessions.sessions': spec.sessions,
    'applicants.applicants': spec.sessions / 2,
    'webhook_delivery.attempts': spec.sessions * 4,
    'sessions.outbox': spec.sessions,
    'accounts.organizations': spec.orgs,
  };
}

export async function currentCounts(c: pg.Client): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of Object.keys(expectedCounts({ sessions: 0, orgs: 0 }))) {
    // the seed ends with VACUUM ANALYZE: the planner's count is exact then, and costs nothing to read
    const { rows } = await c.query<{ n: string }>(`SELECT reltuples::bigint AS n FROM pg_class WHERE oid = $1::regclass`, [table]);
    out[table] = Number(rows[0]?.n ?? -1);
  }
  return out;
}

/**
 * Seeds a freshly migrated region database in the shape the services write (SQL `INSERT … SELECT
 * generate_series`, batched), builds the indexes after the load, and ends with VACUUM ANALYZE.
 * `log` receives progress lines.
 */
export async function seed(dbUrl: string, spec: SeedSpec, log: (line: string) => void): Promise<void> {
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  try {
    await c.query(`SET synchronous_commit = off`);
    await c.query(`SET maintenance_work_mem = '512MB'`);
    await c.query(`SET work_mem = '64MB'`);
    const N = spec.sessions;
    const A = N / 2;
    const O = spec.orgs;
    const step = `(interval '365 days' / ${N})`;
    const base = `(now() - interval '365 days')`;
    await c.query(`TRUNCATE accounts.api_keys, accounts.wallet_debits, accounts.organizations, applicants.applicants, webhook_delivery.attempts CASCADE`);
    await c.query(`TRUNCATE sessions.sessions, sessions.outbox, sessions.runs, sessions.jobs, sessions.email_log, sessions.devices, sessions.document_numbers, sessions.selfie_fingerprints CASCADE`);
    const saved = await dropIndexes(c);
    const batch = async (label: string, total: number, size: number, sql: (from: number, to: number) => string) => {
      const t0 = performance.now();
      for (let from = 0; from < total; from += size) {
        await c.query(sql(from, Math.min(total, from + size) - 1));
      }
      log(`${label}: ${total.toLocaleString('en')} rows in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    };

    // organizations: a custom tier (limits are set through accounts' RPC for the measured orgs)
    await c.query(
      `INSERT INTO accounts.organizations (id, name, region, tier)
       SELECT 'org_' || substr(md5('scale-org-' || o), 1, 24), 'Scale org ' || o, 'us', 'standard' FROM generate_series(0, ${O - 1}) o`,
    );
    await batch('applicants', A, 1_000_000, (from, to) => `
      INSERT INTO applicants.applicants (seq, id, org_id, mode, family_name, given_names, email, created_at)
      SELECT j + 1, ${idSql('app', 'j')}, ${orgSql('j', O)}, ${modeSql('j')},
             'Family' || (j % 5000), ARRAY['Given' || (j % 300)], 'person' || j || '@example.com', ${base} + j * ${step}
        FROM generate_series(${from}, ${to}) j`);
    // session i belongs to applicant i % A: each applicant's two sessions lie half a year apart
    // status by a hash of the session's number, so that every org gets the same mix
    const h = `((hashint8(i) & 2147483647) % 100)`;
    const status = `(CASE WHEN ${h} < 70 THEN 'completed' WHEN ${h} < 75 THEN 'manual_review' WHEN ${h} < 83 THEN 'pending'
                          WHEN ${h} < 85 THEN 'in_progress' WHEN ${h} < 90 THEN 'cancelled' WHEN ${h} < 97 THEN 'expired'
                          WHEN ${h} < 99 THEN 'skipped' ELSE 'errored' END)`;
    await batch('sessions', N, 1_000_000, (from, to) => `
      INSERT INTO sessions.sessions (seq, id, org_id, mode, applicant_id, workflow_template_id, template_version, status, outcome,
                                     expected_outcome, checks, metadata, decision_reason, created_at, updated_at)
      SELECT i + 1, ${idSql('ses', 'i')}, ${orgSql('(i % ' + A + ')', O)}, m, ${idSql('app', '(i % ' + A + ')')},
             ${idSql('wft', orgIndexSql('(i % ' + A + ')', O))}, 1 + i % 3, st,
             CASE WHEN st = 'completed' THEN (CASE WHEN i % 10 = 0 THEN 'declined' ELSE 'approved' END) END,
             CASE WHEN m = 'test' THEN 'pass' END,
             CASE WHEN st IN ('completed', 'manual_review')
                  THEN '[{"type":"document","outcome":"pass"},{"type":"face_match","outcome":"pass"},{"type":"watchlist","outcome":"pass"}]'
                  ELSE '[{"type":"document","outcome":null},{"type":"face_match","outcome":null},{"type":"watchlist","outcome":null}]' END::jsonb,
             ('{"booking_ref":"BK-' || i || '","amount":' || (i % 90000 + 1000) || ',"currency":"EUR"}')::json,
             CASE WHEN st = 'manual_review' THEN 'watchlist review' END,
             ${base} + i * ${step}, ${base} + i * ${step} + interval '3 minutes'
        FROM generate_series(${from}, ${to}) i,
             LATERAL (SELECT ${modeSql('(i % ' + A + ')')} AS m, ${status} AS st) x`);
    // the relayed event of each session (the relay keeps its rows)
    await batch('outbox (relayed)', N, 1_000_000, (from, to) => `
      INSERT INTO sessions.outbox (seq, event_id, session_id, type, event, created_at, relayed_at)
      SELECT i + 1, e, s, 'kyc.session.completed',
             jsonb_build_object('id', e, 'type', 'kyc.session.completed', 'timestamp', t, 'org_id', ${orgSql('(i % ' + A + ')', O)},
                                'mode', ${modeSql('(i % ' + A + ')')}, 'data', jsonb_build_object('sessionId', s, 'status', 'completed', 'outcome', 'approved', 'occurredAt', t)),
             t, t
        FROM generate_series(${from}, ${to}) i,
             LATERAL (SELECT ${idSql('evt', 'i')} AS e, ${idSql('ses', 'i')} AS s, ${base} + i * ${step} + interval '3 minutes' AS t) x`);
    // attempt k: session k / 4; three deliveries per session (two subscriptions of its owner), the third
    // failing once (503) and succeeding on its retry
    await batch('webhook attempts', 4 * N, 1_000_000, (from, to) => `
      INSERT INTO webhook_delivery.attempts (seq, id, delivery_id, org_id, mode, event_id, event_type, session_id, subscription_id, attempt,
                                             status, http_status, latency_ms, error_code, next_attempt_at, created_at, finished_at)
      SELECT k + 1, ${idSql('wha', 'k')}, ${idSql('whd', '(k - (k % 4) + least(k % 4, 2))')}, ${orgSql('j', O)}, ${modeSql('j')},
             ${idSql('evt', '(k / 4 * 2 + (k % 4) / 2)')}, CASE WHEN k % 4 < 2 THEN 'kyc.session.manual_review_requested' ELSE 'kyc.session.completed' END,
             ${idSql('ses', 'k / 4')}, ${idSql('whs', orgIndexSql('j', O) + " || '-' || " + modeSql('j') + " || '-' || (least(k % 4, 2) % 2)")},
             CASE WHEN k % 4 = 3 THEN 2 ELSE 1 END,
             CASE WHEN k % 4 = 2 THEN 'failed' ELSE 'succeeded' END,
             CASE WHEN k % 4 = 2 THEN 503 ELSE 200 END, 40 + k % 200,
             CASE WHEN k % 4 = 2 THEN 'http_status' END,
             CASE WHEN k % 4 = 2 THEN t + interval '1 minute' END,
             t, t + interval '100 milliseconds'
        FROM generate_series(${from}, ${to}) k,
             LATERAL (SELECT (k / 4) % ${A} AS j, ${base} + (k / 4) * ${step} + interval '4 minutes' + (k % 4) * interval '1 second' AS t) x`);
    for (const [seqOf, table] of [
      ['sessions.sessions_seq_seq', 'sessions.sessions'],
      ['sessions.outbox_seq_seq', 'sessions.outbox'],
      ['applicants.applicants_seq_seq', 'applicants.applicants'],
      ['webhook_delivery.attempts_seq_seq', 'webhook_delivery.attempts'],
    ] as const) {
      await c.query(`SELECT setval('${seqOf}', (SELECT max(seq) FROM ${table}))`);
    }
    const t0 = performance.now();
    for (const s of saved) await c.query(s.create);
    log(`indexes (${saved.length}) built in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    const t1 = performance.now();
    await c.query(`VACUUM ANALYZE accounts.organizations, applicants.applicants, sessions.sessions, sessions.outbox, webhook_delivery.attempts`);
    log(`VACUUM ANALYZE in ${((performance.now() - t1) / 1000).toFixed(0)} s`);
  } finally {
    await c.end();
  }
}
