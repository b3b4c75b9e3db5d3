import { createReadStream, createWriteStream, existsSync, renameSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { subjectRoot, SUBJECTS, type WatchlistLoadCommitReply } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { freePort, Stack } from '@verity/stack';
import { candidateAnswer, CANDIDATES_SQL, loadList, screenPerson, type CandidateSource, type LoadSink, type ScreeningHit } from '@verity/watchlist';
import pg from 'pg';
import { formatRow, percentile } from './load.js';
import { CONTROL_KINDS, ftmFile, GENERATOR_VERSION, queries, VARIANT_KINDS, type Query } from './watchlist-gen.js';

/**
 * `npm run bench -- watchlist` (docs/benchmarks.md; docs/watchlist.md, "Measured"): a generated list of
 * `BENCH_WATCHLIST_ENTITIES` persons (1,000,000; `--entities=N` too; the generator's seed `--seed=N`, 1 by default) written as an OpenSanctions FollowTheMoney file
 * and loaded through the screening service's load subjects, as `lists load` sends it; then screenings of variants of
 * listed persons and of persons not listed, through `screenPerson` of @verity/watchlist (the function the live check
 * runs, in this process, over the service's database and its candidate statement). Baseline in the same run: a plain
 * `pg_trgm` `similarity()` query over the same names with a GIN trigram index.
 */
const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'verity_bench_watchlist_us';
/** The generator's seed by default (`--seed=N`, `BENCH_WATCHLIST_SEED`: another list and other queries). */
const DEFAULT_SEED = 1;
/** The default of `WATCHLIST_REVIEW_THRESHOLD` (apps/screening/src/config.ts). */
const REVIEW_THRESHOLD = 0.8;
const TARGETS = { loadS: 180, p50: 30, p99: 100, recall: 0.98, falseHits: 0.01 };
const LIST = 'bench';
const prefix = 'bench_';
const call = { principal: null, requestId: 'req_bench_watchlist', timeoutMs: 60_000 };

const dbUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${DB}` }).toString();

function option(flags: string[], name: string, env: string, fallback: number): number {
  const f = flags.find((a) => a.startsWith(`--${name}=`));
  const v = Number(f ? f.slice(name.length + 3) : (process.env[env] ?? fallback));
  if (!Number.isSafeInteger(v) || v < 1) throw new Error(`--${name} (${env}) must be a positive whole number`);
  return v;
}

/** The list's file, generated once per seed and size into the temporary directory (the generation is not measured). */
async function listFile(n: number, seed: number): Promise<string> {
  const file = path.join(os.tmpdir(), `verity-bench-watchlist-v${GENERATOR_VERSION}-${seed}-${n}.ftm.json`);
  if (existsSync(file)) return file;
  const t0 = performance.now();
  const out = createWriteStream(`${file}.part`);
  for (const chunk of ftmFile(seed, n)) if (!out.write(chunk)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  renameSync(`${file}.part`, file);
  process.stdout.write(`watchlist: generated ${n.toLocaleString('en')} persons into ${file} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  return file;
}

function rpcSink(rpc: RpcClient): LoadSink<WatchlistLoadCommitReply> {
  return {
    begin: async () => (await rpc.call(SUBJECTS.screeningListsLoadBegin, { list: LIST, format: 'opensanctions-ftm', source: 'bench.ftm.json' }, call)).version,
    batch: async (version, first_seq, entities) => void (await rpc.call(SUBJECTS.screeningListsLoadBatch, { list: LIST, version, first_seq, entities }, call)),
    commit: (version, entities, published_on, skipped) => rpc.call(SUBJECTS.screeningListsLoadCommit, { list: LIST, version, entities, published_on, skipped }, call),
    abort: async (version, reason) => void (await rpc.call(SUBJECTS.screeningListsLoadAbort, { list: LIST, version, reason }, call)),
  };
}

/** One query's outcome: its latency, and the listed persons found with their scores (best first). */
interface Outcome {
  ms: number;
  scores: Map<string, number>;
  /** Listed persons without a date of birth (Verity: the agreement was `unknown` though the person screened has one). */
  undated: Set<string>;
  /** The true person was among the candidates scored (Verity) or returned (baseline). */
  candidate: boolean;
  /** The hits with their features (Verity), for the run's detail file. */
  hits?: ScreeningHit[];
}

interface Quality {
  recall: number;
  falseHits: number;
  /** Controls whose every hit is a listed person without a date of birth: a namesake the list cannot tell apart. */
  undatedOnly: number;
  byKind: Record<string, number>;
}

/** Recall (variants whose own person is hit at or above `t`) and false hits (controls with any hit at or above `t`). */
function quality(qs: readonly Query[], outs: readonly Outcome[], t: number): Quality {
  const byKind: Record<string, number> = {};
  let found = 0;
  let variants = 0;
  let falseHits = 0;
  let undatedOnly = 0;
  let controls = 0;
  qs.forEach((q, i) => {
    const o = outs[i]!;
    if (q.entity_id !== null) {
      const hit = (o.scores.get(q.entity_id) ?? 0) >= t;
      variants++;
      if (hit) found++;
      byKind[q.kind] = (byKind[q.kind] ?? 0) + (hit ? 1 : 0);
    } else {
      const over = [...o.scores].filter(([, s]) => s >= t);
      const hit = over.length > 0;
      controls++;
      if (hit) falseHits++;
      if (hit && o.undated.size > 0 && over.every(([id]) => o.undated.has(id))) undatedOnly++;
      byKind[q.kind] = (byKind[q.kind] ?? 0) + (hit ? 1 : 0);
    }
  });
  const per = qs.length / (VARIANT_KINDS.length + CONTROL_KINDS.length);
  for (const k of Object.keys(byKind)) byKind[k] = byKind[k]! / per;
  return { recall: found / variants, falseHits: falseHits / controls, undatedOnly: undatedOnly / controls, byKind };
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

export async function benchWatchlist(flags: string[]): Promise<void> {
  const n = option(flags, 'entities', 'BENCH_WATCHLIST_ENTITIES', 1_000_000);
  const perKind = option(flags, 'queries', 'BENCH_WATCHLIST_QUERIES', 500);
  const seed = option(flags, 'seed', 'BENCH_WATCHLIST_SEED', DEFAULT_SEED);
  const file = await listFile(n, seed);

  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${DB}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  // the screening service alone (and the gateway, which the stack waits for): the load goes through its subjects
  const stack = new Stack({
    regions: ['us'],
    ports: { us: await freePort(), eu: 0 },
    databaseUrl: () => dbUrl,
    isolationPrefix: prefix,
    env: { LOG_LEVEL: 'error', RATE_LIMIT_IP_PER_MINUTE: '1000000000', PG_POOL_MAX: '10' },
    replicas: { accounts: 0, applicants: 0, sessions: 0, 'webhook-delivery': 0, evidence: 0, 'id-scan': 0 },
    output: (r, s, line) => process.stderr.write(`[${r}/${s}] ${line}\n`),
  });
  await stack.start();
  const nc = await stack.connectNats('us', 'operator', 'bench-watchlist');
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const rpc = new RpcClient(nc, subjectRoot('us', prefix), 60_000);
    process.stderr.write(`watchlist: loading ${n.toLocaleString('en')} persons\n`);
    const t0 = performance.now();
    const loaded = await loadList('opensanctions-ftm', createReadStream(file, { highWaterMark: 256 * 1024 }), rpcSink(rpc));
    const loadS = (performance.now() - t0) / 1000;
    const { committed } = loaded;
    const [size] = (
      await db.query<{ entities: string; keys: string; mb: string }>(
        `SELECT (SELECT pg_total_relation_size('screening.watchlist_entities')) / 1048576 AS entities, (SELECT pg_total_relation_size('screening.watchlist_keys')) / 1048576 AS keys`,
      )
    ).rows;
    process.stdout.write(
      `watchlist: loaded ${committed.entities.toLocaleString('en')} persons, ${committed.names.toLocaleString('en')} names in ${loadS.toFixed(1)} s ` +
        `(${Math.round(committed.entities / loadS).toLocaleString('en')}/s; entities ${size!.entities} MB, keys ${size!.keys} MB)\n`,
    );
    // the development Postgres runs without autovacuum; a deployed one (autovacuum is Postgres' default) vacuums and
    // analyzes tables this size after the load: without it every index-only scan of the keys also reads the table
    const ta = performance.now();
    await db.query('VACUUM ANALYZE screening.watchlist_entities, screening.watchlist_keys, screening.watchlists');
    process.stdout.write(`watchlist: VACUUM ANALYZE ${((performance.now() - ta) / 1000).toFixed(1)} s\n`);

    const qs = queries(seed, n, perKind);
    const source: CandidateSource = async (keys, limit, list) =>
      candidateAnswer((await db.query(CANDIDATES_SQL, [keys, limit, list])).rows);
    // every candidate at or above 0.5 is kept, so that other thresholds can be read off the same run
    const screenOne = async (q: Query): Promise<Outcome> => {
      let candidate = false;
      const t = performance.now();
      const r = await screenPerson({ names: [q.name], dateOfBirth: q.dateOfBirth, nationality: q.nationality }, 0.5, async (k, l, list) => {
        const a = await source(k, l, list);
        candidate = q.entity_id !== null && a.candidates.some((c) => c.entity_id === q.entity_id);
        return a;
      });
      const ms = performance.now() - t;
      const undated = new Set(r.hits.filter((h) => h.features.date_of_birth === 'unknown' && q.dateOfBirth !== null).map((h) => h.entity_id));
      return { ms, scores: new Map(r.hits.map((h) => [h.entity_id, h.score])), undated, candidate, hits: r.hits };
    };
    for (const q of qs.slice(0, 50)) await screenOne(q); // warm-up
    process.stderr.write(`measuring watchlist screening, ${qs.length} queries\n`);
    const verity: Outcome[] = [];
    for (const q of qs) verity.push(await screenOne(q));

    // baseline: the same names, a GIN trigram index, one similarity() query per person screened
    const tb = performance.now();
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await db.query(`DROP TABLE IF EXISTS bench_trigram_names`);
    await db.query(
      `CREATE TABLE bench_trigram_names AS SELECT e.entity_id, unnest(e.names) AS name FROM screening.watchlist_entities e
        WHERE e.version_id = (SELECT current_version FROM screening.watchlists WHERE id = $1)`,
      [LIST],
    );
    await db.query(`SET maintenance_work_mem = '256MB'`);
    await db.query(`CREATE INDEX bench_trigram_names_idx ON bench_trigram_names USING gin (name gin_trgm_ops)`);
    await db.query(`VACUUM ANALYZE bench_trigram_names`);
    const baselineBuildS = (performance.now() - tb) / 1000;
    await db.query(`SET pg_trgm.similarity_threshold = 0.3`);
    const trigramOne = async (q: Query): Promise<Outcome> => {
      const t = performance.now();
      const { rows } = await db.query<{ entity_id: string; s: number }>(
        `SELECT entity_id, max(similarity(name, $1)) AS s FROM bench_trigram_names WHERE name % $1 GROUP BY entity_id ORDER BY s DESC LIMIT 10`,
        [q.name],
      );
      const ms = performance.now() - t;
      return { ms, scores: new Map(rows.map((r) => [r.entity_id, Number(r.s)])), undated: new Set(), candidate: q.entity_id !== null && rows.some((r) => r.entity_id === q.entity_id) };
    };
    for (const q of qs.slice(0, 50)) await trigramOne(q);
    process.stderr.write(`measuring trigram baseline, ${qs.length} queries\n`);
    const trigram: Outcome[] = [];
    for (const q of qs) trigram.push(await trigramOne(q));

    // the baseline at its best threshold: the most recall with at most 1 % false hits (else the best recall − false hits)
    const steps = Array.from({ length: 15 }, (_, i) => Math.round((0.3 + i * 0.05) * 100) / 100);
    const tq = steps.map((t) => ({ t, ...quality(qs, trigram, t) }));
    const within = tq.filter((x) => x.falseHits <= TARGETS.falseHits).sort((a, b) => b.recall - a.recall);
    const best = within[0] ?? [...tq].sort((a, b) => b.recall - b.falseHits - (a.recall - a.falseHits))[0]!;
    const vq = quality(qs, verity, REVIEW_THRESHOLD);
    const lat = (outs: Outcome[]) => {
      const ms = outs.map((o) => o.ms).sort((a, b) => a - b);
      return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
    };
    const vl = lat(verity);
    const bl = lat(trigram);
    const variantsOnly = (outs: Outcome[]) => outs.filter((_, i) => qs[i]!.entity_id !== null);
    const inCandidates = (outs: Outcome[]) => variantsOnly(outs).filter((o) => o.candidate).length / variantsOnly(outs).length;

    process.stdout.write(
      `\nWatchlist: ${n.toLocaleString('en')} generated persons (seed ${seed}), ${qs.length} queries (${perKind} of each kind: ${[...VARIANT_KINDS, ...CONTROL_KINDS].join(', ')}), one at a time\n`,
    );
    const w = [34, 22, 22];
    process.stdout.write(`${formatRow(['measure', 'Verity', 'pg_trgm similarity()'], w)}\n`);
    process.stdout.write(`${formatRow(['load (file → committed)', `${loadS.toFixed(1)} s`, `+${baselineBuildS.toFixed(1)} s table + GIN index`], w)}\n`);
    process.stdout.write(`${formatRow(['screening p50 / p99', `${vl.p50.toFixed(1)} / ${vl.p99.toFixed(1)} ms`, `${bl.p50.toFixed(1)} / ${bl.p99.toFixed(1)} ms`], w)}\n`);
    process.stdout.write(`${formatRow(['threshold', `${REVIEW_THRESHOLD} (review)`, `${best.t} (its best)`], w)}\n`);
    process.stdout.write(`${formatRow(['recall', pct(vq.recall), pct(best.recall)], w)}\n`);
    process.stdout.write(`${formatRow(['false hits', pct(vq.falseHits), pct(best.falseHits)], w)}\n`);
    for (const k of [...VARIANT_KINDS, ...CONTROL_KINDS]) {
      const label = (VARIANT_KINDS as readonly string[]).includes(k) ? `  recall: ${k}` : `  false hits: ${k}`;
      process.stdout.write(`${formatRow([label, pct(vq.byKind[k] ?? 0), pct(best.byKind[k] ?? 0)], w)}\n`);
    }
    process.stdout.write(`${formatRow(['  false hits only on undated persons', pct(vq.undatedOnly), '–'], w)}\n`);
    process.stdout.write(`${formatRow(['  true person among candidates', pct(inCandidates(verity)), pct(inCandidates(trigram))], w)}\n`);
    for (const k of VARIANT_KINDS) {
      const among = (outs: Outcome[]) => { const of = outs.filter((_, i) => qs[i]!.kind === k); return of.filter((o) => o.candidate).length / of.length; };
      process.stdout.write(`${formatRow([`    of ${k}`, pct(among(verity)), pct(among(trigram))], w)}\n`);
    }
    process.stdout.write(`Verity at other thresholds: ${[0.7, 0.75, 0.8, 0.85, 0.9].map((t) => { const x = quality(qs, verity, t); return `${t}: recall ${pct(x.recall)}, false hits ${pct(x.falseHits)}`; }).join('; ')}\n`);
    process.stdout.write(`pg_trgm by threshold: ${tq.map((x) => `${x.t}: ${pct(x.recall)}/${pct(x.falseHits)}`).join(', ')}\n`);
    // what was missed and what hit a control, with the features that made it: where to look next
    const detail = path.join(os.tmpdir(), `verity-bench-watchlist-${n}-${seed}.detail.json`);
    const wrong = qs.flatMap((q, i) => {
      const o = verity[i]!;
      const missed = q.entity_id !== null && (o.scores.get(q.entity_id) ?? 0) < REVIEW_THRESHOLD;
      const falseHit = q.entity_id === null && [...o.scores.values()].some((x) => x >= REVIEW_THRESHOLD);
      return missed || falseHit ? [{ ...q, candidate: o.candidate, hits: (o.hits ?? []).filter((h) => h.score >= REVIEW_THRESHOLD || h.entity_id === q.entity_id) }] : [];
    });
    writeFileSync(detail, JSON.stringify(wrong, null, 1));
    process.stdout.write(`the ${wrong.length} misses and false hits, with their hits: ${detail}\n`);
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    process.stdout.write(
      `targets: load ≤ ${TARGETS.loadS} s ${met(loadS <= TARGETS.loadS)}; p50 ≤ ${TARGETS.p50} ms ${met(vl.p50 <= TARGETS.p50)}; p99 ≤ ${TARGETS.p99} ms ${met(vl.p99 <= TARGETS.p99)}; ` +
        `recall ≥ ${pct(TARGETS.recall)} ${met(vq.recall >= TARGETS.recall)}; false hits ≤ ${pct(TARGETS.falseHits)} ${met(vq.falseHits <= TARGETS.falseHits)}` +
        `${n < 1_000_000 ? ` (at ${n.toLocaleString('en')} persons; the targets are for 1,000,000)` : ''}\n`,
    );
  } finally {
    await db.end();
    await nc.close();
    await stack.stop();
  }
}
