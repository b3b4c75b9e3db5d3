import { subjectRoot, SUBJECTS } from '@verity/contracts';
import { encodeCursor, RpcClient } from '@verity/platform';
import { freePort, Stack } from '@verity/stack';
import pg from 'pg';
import { formatRow, percentile } from './load.js';
import { BIG_SHARE, currentCounts, expectedCounts, orgId, seed, type SeedSpec } from './scale-seed.js';

/**
 * `npm run bench -- scale [--reseed]`: cost as work grows. Two region databases seeded the same way, a small
 * one (10,000 sessions) and a large one (5 million sessions, 20 million webhook attempts, 1,000 orgs); each
 * list endpoint (first page and a page at 90 % depth, with each filter), the session read and the outbox relay
 * measured on both through the real stack (gateway and services over HTTP and NATS), sequentially (latency,
 * not throughput). The large database is kept between runs (`verity_scale_us`) and reused while its row counts
 * match; `--reseed` builds it again, `--small` runs the small scale alone (a check of the bench).
 */
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REQUESTS = Number(process.env.BENCH_SCALE_REQUESTS ?? 500);
const WARMUP = 50;
const TARGET_MS = 25;
const TARGET_RATIO = 1.5;
/** Each scale: its database, its seed, and the backlog of events the relay drains. */
const SCALES = {
  small: { db: 'verity_scale_small_us', spec: { sessions: 10_000, orgs: 20 }, backlog: 10_000 },
  large: { db: 'verity_scale_us', spec: { sessions: 5_000_000, orgs: 1_000 }, backlog: 100_000 },
} satisfies Record<string, { db: string; spec: SeedSpec; backlog: number }>;
type Scale = keyof typeof SCALES;
const op = { principal: null, requestId: 'req_bench_scale' };

const dbUrl = (name: string) => Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();

interface Figure {
  p50: number;
  p99: number;
  note?: string;
}

/** The measured org's requests: a name and a path, or a prepared measurement of its own. */
interface Measure {
  name: string;
  path: string;
}

async function newStack(url: string): Promise<Stack> {
  return new Stack({
    regions: ['us'],
    ports: { us: await freePort(), eu: 0 },
    databaseUrl: () => url,
    isolationPrefix: 'scale_',
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_IP_PER_MINUTE: '1000000000', PG_POOL_MAX: '10' },
    output: (r, s, line) => process.stderr.write(`[${r}/${s}] ${line}\n`),
  });
}

/**
 * Migrates the scale's database and reuses it while its row counts match; otherwise (or with `reseed`) drops it,
 * migrates a new one and seeds that, so that a seed interrupted half-way (its indexes dropped) never lingers.
 */
async function ensureSeeded(scale: Scale, reseed: boolean): Promise<string> {
  const { db, spec } = SCALES[scale];
  const url = dbUrl(db);
  const stack = await newStack(url);
  await stack.migrate('us');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let have: Awaited<ReturnType<typeof currentCounts>>;
  try {
    have = await currentCounts(c);
  } finally {
    await c.end();
  }
  const want = expectedCounts(spec);
  // the planner's counts are estimates once a run's relay backlog has come and gone (ANALYZE samples): a seeded
  // database is within a few rows in a thousand of its shape, an interrupted seed far from it
  const matches = Object.entries(want).every(([t, n]) => Math.abs((have[t] ?? -1) - n) <= n * 0.005);
  if (matches && !reseed) {
    process.stdout.write(`${scale}: ${db} reused (${Object.entries(have).map(([t, n]) => `${t} ${n.toLocaleString('en')}`).join(', ')})\n`);
    return url;
  }
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  await stack.migrate('us');
  process.stdout.write(`${scale}: seeding ${db} (${spec.sessions.toLocaleString('en')} sessions, ${spec.orgs} orgs)\n`);
  const t0 = performance.now();
  await seed(url, spec, (line) => process.stdout.write(`  ${line}\n`));
  process.stdout.write(`${scale}: seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  return url;
}

/** p50 and p99 of `REQUESTS` sequential GETs after a warm-up; every answer must be 200 with a non-empty page. */
async function timeGets(base: string, key: string, path: string): Promise<Figure> {
  const headers = { authorization: `Bearer ${key}` };
  const one = async () => {
    const t0 = performance.now();
    const res = await fetch(`${base}${path}`, { headers });
    const body = (await res.json()) as { data?: unknown };
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    if (Array.isArray(body.data) && body.data.length === 0) throw new Error(`${path}: an empty page`);
    return ms;
  };
  for (let i = 0; i < WARMUP; i++) await one();
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) times.push(await one());
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** The org's requests, with the ids and 90 %-depth cursors read from its rows. */
async function measuresFor(c: pg.Client, org: string): Promise<Measure[]> {
  const one = async (sql: string, params: unknown[]) => (await c.query<{ v: string }>(sql, params)).rows[0]?.v ?? null;
  /** The cursor the API hands out for the page that starts at 90 % of the rows `where` selects, newest first. */
  const deep = async (table: string, where: string, params: unknown[]) => {
    const n = Number(await one(`SELECT count(*) AS v FROM ${table} WHERE ${where}`, params));
    const seq = await one(`SELECT seq AS v FROM ${table} WHERE ${where} ORDER BY seq DESC OFFSET ${Math.floor(n * 0.9)} LIMIT 1`, params);
    if (seq === null) throw new Error(`no rows in ${table} for ${org}`);
    // the position of the row before the page's first (exclusive), as the previous page's next_cursor holds it
    return encodeCursor(BigInt(seq) + 1n);
  };
  const owner = `org_id = $1 AND mode = 'live'`;
  /** A column of the row halfway down the org's rows of `table`, newest first. */
  const halfway = (table: string, column: string) =>
    one(`SELECT ${column} AS v FROM ${table} WHERE ${owner} ORDER BY seq DESC OFFSET (SELECT count(*) / 2 FROM ${table} WHERE ${owner}) LIMIT 1`, [org]);
  const applicant = await halfway('sessions.sessions', 'applicant_id');
  const session = await halfway('sessions.sessions', 'id');
  const attemptSession = await halfway('webhook_delivery.attempts', 'session_id');
  const subscription = await one(`SELECT subscription_id AS v FROM webhook_delivery.attempts WHERE ${owner} ORDER BY seq DESC LIMIT 1`, [org]);
  return [
    { name: 'GET /v1/sessions', path: '/v1/sessions' },
    { name: '  … page at 90 % depth', path: `/v1/sessions?cursor=${await deep('sessions.sessions', owner, [org])}` },
    { name: '  ?status=completed', path: '/v1/sessions?status=completed' },
    { name: '  ?status=completed at 90 %', path: `/v1/sessions?status=completed&cursor=${await deep('sessions.sessions', `${owner} AND status = 'completed'`, [org])}` },
    { name: '  ?status=errored (1 %)', path: '/v1/sessions?status=errored' },
    { name: '  ?status=errored at 90 %', path: `/v1/sessions?status=errored&cursor=${await deep('sessions.sessions', `${owner} AND status = 'errored'`, [org])}` },
    { name: '  ?applicant_id=', path: `/v1/sessions?applicant_id=${applicant}` },
    { name: '  ?applicant_id=&status=completed', path: `/v1/sessions?applicant_id=${applicant}&status=completed` },
    { name: 'GET /v1/sessions/{id}', path: `/v1/sessions/${session}` },
    { name: 'GET /v1/webhook-events', path: '/v1/webhook-events' },
    { name: '  … webhook-events at 90 % depth', path: `/v1/webhook-events?cursor=${await deep('webhook_delivery.attempts', owner, [org])}` },
    { name: '  ?session_id=', path: `/v1/webhook-events?session_id=${attemptSession}` },
    { name: '  ?subscription_id=', path: `/v1/webhook-events?subscription_id=${subscription}` },
    {
      name: '  ?subscription_id= at 90 %',
      path: `/v1/webhook-events?subscription_id=${subscription}&cursor=${await deep('webhook_delivery.attempts', `${owner} AND subscription_id = $2`, [org, subscription])}`,
    },
    { name: 'GET /v1/applicants', path: '/v1/applicants' },
    { name: '  … applicants at 90 % depth', path: `/v1/applicants?cursor=${await deep('applicants.applicants', owner, [org])}` },
  ];
}

/**
 * The outbox relay under a backlog: `n` unrelayed events of `org` written at once, drained to JetStream by the
 * running sessions service. Each batch marks its rows relayed at its transaction's start, so the gaps between
 * successive batches' marks are the batches' durations.
 */
async function timeRelay(c: pg.Client, org: string, n: number): Promise<{ drainS: number; batch: Figure; batches: number }> {
  const { rows } = await c.query<{ seq: string }>(`SELECT max(seq)::text AS seq FROM sessions.outbox`);
  const after = rows[0]!.seq;
  const t0 = performance.now();
  await c.query(
    `INSERT INTO sessions.outbox (event_id, session_id, type, event)
     SELECT e, s, 'kyc.session.completed',
            jsonb_build_object('id', e, 'type', 'kyc.session.completed', 'timestamp', now(), 'org_id', $1::text, 'mode', 'live',
                               'data', jsonb_build_object('sessionId', s, 'status', 'completed', 'outcome', 'approved', 'occurredAt', now()))
       FROM generate_series(1, $2::int) i,
            LATERAL (SELECT 'evt_' || substr(md5(random()::text), 1, 24) AS e, 'ses_' || substr(md5('backlog' || i), 1, 24) AS s) x`,
    [org, n],
  );
  for (;;) {
    const left = await c.query(`SELECT 1 FROM sessions.outbox WHERE relayed_at IS NULL LIMIT 1`);
    if (left.rowCount === 0) break;
    if (performance.now() - t0 > 600_000) throw new Error('the relay did not drain its backlog in 10 minutes');
    await new Promise((r) => setTimeout(r, 50));
  }
  const drainS = (performance.now() - t0) / 1000;
  const marks = (
    await c.query<{ ms: number }>(
      `SELECT extract(epoch FROM relayed_at) * 1000 AS ms FROM sessions.outbox WHERE seq > $1 GROUP BY relayed_at ORDER BY relayed_at`,
      [after],
    )
  ).rows.map((r) => Number(r.ms));
  const gaps = marks.slice(1).map((m, i) => m - marks[i]!).sort((a, b) => a - b);
  // the seeded shape again: the backlog goes, and the statistics count the table as seeded
  await c.query(`DELETE FROM sessions.outbox WHERE seq > $1`, [after]);
  await c.query(`VACUUM ANALYZE sessions.outbox`);
  return { drainS, batch: { p50: percentile(gaps, 50), p99: percentile(gaps, 99) }, batches: marks.length };
}

interface Results {
  /** By org role, then measure name (in order). */
  rows: Map<string, Figure>;
  order: string[];
  relay: { drainS: number; batch: Figure; batches: number; n: number };
}

async function runScale(scale: Scale, url: string): Promise<Results> {
  const { backlog } = SCALES[scale];
  const stack = await newStack(url);
  await stack.start();
  const nc = await stack.connectNats('us', 'operator', 'bench-scale');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const results: Results = { rows: new Map(), order: [], relay: { drainS: 0, batch: { p50: 0, p99: 0 }, batches: 0, n: backlog } };
  try {
    const rpc = new RpcClient(nc, subjectRoot('us', 'scale_'), 5000);
    const huge = 1_000_000_000;
    // the big org (a tenth of every table) and a typical one (an equal share of the rest)
    for (const [role, index] of [['big org', 0], ['typical org', 1]] as const) {
      const org = orgId(index);
      await rpc.call(SUBJECTS.accountsOrgSetTier, { org_id: org, tier: 'custom', limits: { reads: huge, global: huge } }, op);
      // a live key reads only for an org whose wallet is in order (docs/authentication.md)
      await rpc.call(SUBJECTS.accountsBillingSet, { org_id: org, wallet_balance: huge }, op);
      const key = await rpc.call(
        SUBJECTS.accountsKeyCreate,
        { org_id: org, mode: 'live', type: 'sk', scopes: ['sessions:read', 'applicants:read', 'webhooks:read'] },
        op,
      );
      const [{ n }] = (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM sessions.sessions WHERE org_id = $1 AND mode = 'live'`, [org])).rows as [{ n: number }];
      process.stderr.write(`${scale}: ${role} ${org}: ${n} live sessions\n`);
      for (const m of await measuresFor(c, org)) {
        process.stderr.write(`${scale}: ${role} ${m.name} ${m.path}\n`);
        const label = `${role}: ${m.name}`;
        if (results.rows.has(label)) throw new Error(`two measures named ${label}`);
        results.order.push(label);
        results.rows.set(label, await timeGets(stack.baseUrl('us'), key.key, m.path));
      }
    }
    process.stderr.write(`${scale}: relay, ${backlog} events\n`);
    results.relay = { ...(await timeRelay(c, orgId(1), backlog)), n: backlog };
  } finally {
    await c.end();
    await nc.close();
    await stack.stop();
  }
  return results;
}

export async function benchScale(args: string[]): Promise<void> {
  const reseed = args.includes('--reseed');
  // `--small`: the small scale on both sides, a quick check of the bench itself (no 5-million-row seed)
  const quick = args.includes('--small');
  const urls = {} as Record<Scale, string>;
  for (const scale of quick ? (['small'] as const) : (['small', 'large'] as const)) urls[scale] = await ensureSeeded(scale, reseed);
  const small = await runScale('small', urls.small);
  const large = quick ? small : await runScale('large', urls.large);

  const { spec: s, backlog: sb } = SCALES.small;
  const { spec: l, backlog: lb } = SCALES.large;
  process.stdout.write(
    `\nScale: p50/p99 ms of ${REQUESTS} sequential requests (after ${WARMUP} warm-up), default page size 20, live key of each org\n` +
      `small: ${s.sessions.toLocaleString('en')} sessions, ${(s.sessions * 4).toLocaleString('en')} attempts, ${s.orgs} orgs; ` +
      `large: ${l.sessions.toLocaleString('en')} sessions, ${(l.sessions * 4).toLocaleString('en')} attempts, ${l.orgs} orgs; ` +
      `big org ${BIG_SHARE * 100} % of rows, typical org an equal share of the rest\n`,
  );
  const w = [50, 14, 14, 7, 6];
  const fig = (f: Figure) => `${f.p50.toFixed(1)}/${f.p99.toFixed(1)}`;
  const met = (a: Figure, b: Figure) => (b.p99 < TARGET_MS && b.p99 <= a.p99 * TARGET_RATIO ? 'yes' : 'NO');
  process.stdout.write(`${formatRow(['measure', 'small p50/p99', 'large p50/p99', 'ratio', 'met'], w)}\n`);
  for (const label of small.order) {
    const a = small.rows.get(label)!;
    const b = large.rows.get(label)!;
    process.stdout.write(`${formatRow([label, fig(a), fig(b), (b.p99 / a.p99).toFixed(2), met(a, b)], w)}\n`);
  }
  const ra = small.relay;
  const rb = large.relay;
  process.stdout.write(`${formatRow(['outbox relay: one batch', fig(ra.batch), fig(rb.batch), (rb.batch.p99 / ra.batch.p99).toFixed(2), met(ra.batch, rb.batch)], w)}\n`);
  process.stdout.write(
    `outbox relay: drained ${sb.toLocaleString('en')} events in ${ra.drainS.toFixed(1)} s (${(sb / ra.drainS).toFixed(0)}/s, ${ra.batches} batches) small; ` +
      `${lb.toLocaleString('en')} in ${rb.drainS.toFixed(1)} s (${(lb / rb.drainS).toFixed(0)}/s, ${rb.batches} batches) large\n`,
  );
  process.stdout.write(`target: large p99 < ${TARGET_MS} ms and ≤ ${TARGET_RATIO}× small p99\n`);
}
