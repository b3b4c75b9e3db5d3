import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { SUBJECTS } from '@verity/contracts';
import { DEFAULT_THRESHOLDS, ReadingPool } from '@verity/reading';
import { catalogueSpecimen, challengeFrames, selfie, type Person } from '@verity/specimens';
import { photographDocument, query } from '@verity/testing';
import type { BenchEnv } from './gateway-bench.js';
import { formatRow, percentile } from './load.js';

/** Distinct captures (passport photos and their holders' selfies); sessions cycle through them. */
const CAPTURES = 8;
/** Runs through the stack before anything is counted. */
const WARMUP = 2;
/** Runs one at a time. */
const RUNS = Number(process.env.BENCH_LIVE_RUNS ?? 30);
/** Rounds of four runs submitted at once. */
const ROUNDS = Number(process.env.BENCH_LIVE_ROUNDS ?? 6);
/** How often the client reads the session while it waits for a resting status. */
const POLL_MS = 20;
const TARGET_P50_MS = 2500;
const TARGET_P99_MS = 5000;
const RESTING = new Set(['completed', 'manual_review', 'errored']);
const op = { principal: null, requestId: 'req_bench_live' };

const out = (line = '') => process.stdout.write(`${line}\n`);
const progress = (line: string) => process.stderr.write(`live: ${line}\n`);
const mark = (ok: boolean) => (ok ? '✓' : '✗');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Pcts {
  p50: number;
  p90: number;
  p99: number;
}

function pcts(ms: number[]): Pcts {
  const s = [...ms].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99) };
}

interface Capture {
  front: Buffer;
  selfie: Buffer;
  person: Person;
}

/** A passport of a real issuing state, photographed as the hosted page sends it (2048 × 1536, JPEG 92), and its holder's selfie. */
async function photographCapture(i: number): Promise<Capture> {
  const s = catalogueSpecimen('td3', i);
  const specimen = { ...s, document: { ...s.document, issuer: 'NLD' } };
  const photos = await photographDocument(specimen, { width: 2048, height: 1536, rotation: 4, quality: 92, seed: i });
  return { front: photos.front, selfie: await selfie(specimen.holder.person), person: specimen.holder.person };
}

/** One timed run: the client's clock around it, the session it ran. */
interface Run {
  sessionId: string;
  /** `POST /v1/capture/submit` sent. */
  sent: number;
  /** Its 202 received. */
  accepted: number;
  /** The first read of the session showing a resting status. */
  rested: number;
  status: string;
  outcome: string | null;
}

/** What the system recorded of a run (epoch ms, this machine's clock). */
interface Recorded {
  session_id: string;
  submitted: number;
  picked: number;
  read: number;
  recorded: number;
}

/** The stages of a run, each from one recorded instant to the next: they add up to the total. */
const STAGES = [
  { key: 'accept', label: 'accept: submit sent → capture_submitted_at (gateway, sessions)' },
  { key: 'queue', label: 'queue: submitted → job picked up (session updated_at)' },
  { key: 'read', label: 'read: picked up → first evidence blob (evidence: images, reader)' },
  { key: 'store', label: 'store: first blob → artifacts recorded' },
  { key: 'decide', label: 'decide: recorded → resting status seen (device, screening, commit, poll)' },
] as const;
type StageKey = (typeof STAGES)[number]['key'];

function stagesOf(run: Run, r: Recorded): Record<StageKey | 'total' | 'answer', number> {
  return {
    accept: r.submitted - run.sent,
    queue: r.picked - r.submitted,
    read: r.read - r.picked,
    store: r.recorded - r.read,
    decide: run.rested - r.recorded,
    total: run.rested - run.sent,
    answer: run.accepted - run.sent,
  };
}

/**
 * `npm run bench -- live`: a live capture from `POST /v1/capture/submit` to its session's resting status through
 * the whole stack (gateway → sessions → job → evidence's reader → device intelligence → screening → commit), one
 * run at a time and four at once, with the time split by stage from what the system records; next to the reader
 * alone (`ReadingPool.verify` in this process on the same images, as evidence stored them), the floor of the read
 * stage.
 */
export async function benchLive(env: BenchEnv): Promise<void> {
  const started = performance.now();
  const loadAtStart = loadavg()[0]!;
  const gw = env.stack.baseUrl('us');

  progress(`photographing ${CAPTURES} passports`);
  const captures = await Promise.all(Array.from({ length: CAPTURES }, (_, i) => photographCapture(i + 1)));

  const live = await env.rpc.call(
    SUBJECTS.accountsKeyCreate,
    { org_id: env.orgId, mode: 'live', type: 'sk', scopes: ['applicants:write', 'sessions:write', 'sessions:read', 'workflows:write'] },
    op,
  );
  const call = async <T>(method: string, path: string, opts: { key?: string; body?: unknown; raw?: Buffer } = {}) => {
    const res = await fetch(`${gw}${path}`, {
      method,
      headers: { authorization: `Bearer ${opts.key ?? live.key}`, 'content-type': opts.raw ? 'image/jpeg' : 'application/json' },
      body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const created = async <T>(res: { status: number; body: T }, want = 201) => {
    if (res.status !== want) throw new Error(`expected ${want}, got ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const template = (await created(await call<{ data: { id: string } }>('POST', '/v1/workflow-templates', { body: { name: 'bench live', checks: ['document', 'face_match', 'liveness'] } }))).data;
  const applicant = (await created(await call<{ data: { id: string } }>('POST', '/v1/applicants', { body: { family_name: 'Bench', given_names: ['Live'] } }))).data;

  /** A live session with its capture uploaded, ready to submit (outside every timed region). */
  const prepare = async (i: number): Promise<{ id: string; secret: string }> => {
    const create = () => call<{ data: { id: string; client_secret: string } }>('POST', '/v1/sessions', { body: { applicant_id: applicant.id, workflow_template_id: template.id } });
    const res = await create();
    const s = (await created(res)).data;
    const c = captures[i % CAPTURES]!;
    for (const [artifact, raw] of [['front', c.front], ['selfie', c.selfie]] as const) {
      await created(await call('PUT', `/v1/capture/images/${artifact}`, { key: s.client_secret, raw }), 200);
    }
    // the liveness challenge the session asks for, done by the selfie's person: five frames
    const steps = (await created(await call<{ data: { challenge: { steps: ('turn_left' | 'turn_right')[] } } }>('GET', '/v1/capture', { key: s.client_secret }), 200)).data.challenge.steps;
    for (const [index, f] of (await challengeFrames(c.person, steps)).entries()) {
      await created(await call('PUT', `/v1/capture/challenge/frames/${index}?offset_ms=${f.offsetMs}`, { key: s.client_secret, raw: f.image }), 200);
    }
    return { id: s.id, secret: s.client_secret };
  };

  const total = WARMUP + RUNS + 4 * ROUNDS;
  progress(`creating ${total} live sessions and uploading their captures`);
  const prepared: { id: string; secret: string }[] = [];
  for (let i = 0; i < total; i++) prepared.push(await prepare(i));

  // the reader alone: the same images, as evidence normalized and stored them, in a pool of this process
  const stored = await query<{ session_id: string; artifact: string; bytes: string }>(
    env.dbUrl,
    `SELECT u.session_id, u.artifact, encode(b.bytes, 'base64') AS bytes FROM evidence.uploads u JOIN evidence.blobs b ON b.id = u.storage_key WHERE u.session_id = ANY($1)`,
    [prepared.slice(0, CAPTURES).map((p) => p.id)],
  );
  const images = prepared.slice(0, CAPTURES).map((p) => {
    const of = (a: string) => Buffer.from(stored.find((r) => r.session_id === p.id && r.artifact === a)!.bytes, 'base64');
    return { front: of('front'), back: null, selfie: of('selfie') };
  });
  progress('the reader alone, in process');
  const threads = Number(env.stack.envFor('us', 'evidence').READING_THREADS ?? availableParallelism());
  const pool = new ReadingPool({ threads, faces: true });
  await pool.warm();
  for (const img of images) await pool.verify(img, DEFAULT_THRESHOLDS);
  const floorOne: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const v = await pool.verify(images[i % CAPTURES]!, DEFAULT_THRESHOLDS);
    floorOne.push(performance.now() - t0);
    if (!v.document.readable) throw new Error(`capture ${i % CAPTURES} was not read in process`);
  }
  const floorFour: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    await Promise.all(
      [0, 1, 2, 3].map(async (k) => {
        const t0 = performance.now();
        await pool.verify(images[(4 * r + k) % CAPTURES]!, DEFAULT_THRESHOLDS);
        floorFour.push(performance.now() - t0);
      }),
    );
  }
  await pool.close();

  /** Submits one prepared capture and waits, reading the session every POLL_MS, for its resting status. */
  const runOne = async (p: { id: string; secret: string }): Promise<Run> => {
    const sent = Date.now();
    const res = await call('POST', '/v1/capture/submit', { key: p.secret, body: { acquisition: 'camera' } });
    const accepted = Date.now();
    if (res.status !== 202) throw new Error(`submit answered ${res.status} ${JSON.stringify(res.body)}`);
    for (;;) {
      const r = await call<{ data?: { status: string; outcome: string | null } }>('GET', `/v1/sessions/${p.id}`);
      if (!r.body.data) throw new Error(`GET /v1/sessions/${p.id} answered ${r.status} ${JSON.stringify(r.body)}`);
      if (RESTING.has(r.body.data.status)) return { sessionId: p.id, sent, accepted, rested: Date.now(), status: r.body.data.status, outcome: r.body.data.outcome };
      if (Date.now() - sent > 120_000) throw new Error(`session ${p.id} still ${r.body.data.status} after 120 s`);
      await sleep(POLL_MS);
    }
  };

  progress(`warming up: ${WARMUP} runs`);
  let next = 0;
  for (let i = 0; i < WARMUP; i++) await runOne(prepared[next++]!);
  process.stderr.write('measuring live runs, one at a time\n');
  const one: Run[] = [];
  for (let i = 0; i < RUNS; i++) one.push(await runOne(prepared[next++]!));
  process.stderr.write('measuring live runs, four at once\n');
  const four: Run[] = [];
  for (let r = 0; r < ROUNDS; r++) four.push(...(await Promise.all(prepared.slice(next, (next += 4)).map(runOne))));

  // what the system recorded: the submit (sessions), the pick-up (a live run's resting session carries the
  // instant its last attempt started as updated_at), the first evidence blob (stored right after the read),
  // the artifacts' record (evidence's transaction)
  const ids = [...one, ...four].map((r) => r.sessionId);
  const recorded = await query<Recorded>(
    env.dbUrl,
    `SELECT s.id AS session_id,
            extract(epoch FROM s.capture_submitted_at) * 1000 AS submitted,
            extract(epoch FROM s.updated_at) * 1000 AS picked,
            (SELECT extract(epoch FROM min(b.created_at)) * 1000 FROM evidence.artifacts a JOIN evidence.blobs b ON b.id = a.storage_key WHERE a.session_id = s.id) AS read,
            (SELECT extract(epoch FROM min(a.created_at)) * 1000 FROM evidence.artifacts a WHERE a.session_id = s.id) AS recorded
       FROM sessions.sessions s WHERE s.id = ANY($1)`,
    [ids],
  );
  const byId = new Map(recorded.map((r) => [r.session_id, { ...r, submitted: Number(r.submitted), picked: Number(r.picked), read: Number(r.read), recorded: Number(r.recorded) }]));

  const table = (title: string, runs: Run[], floor: number[], floorLabel: string, targets: boolean) => {
    const rows = runs.map((r) => stagesOf(r, byId.get(r.sessionId)!));
    const col = (k: StageKey | 'total' | 'answer') => pcts(rows.map((x) => x[k]));
    out(`\n${title}`);
    const w = [78, 8, 8, 8, 28];
    out(formatRow(['stage', 'p50 ms', 'p90 ms', 'p99 ms', 'target'], w));
    const row = (label: string, x: Pcts, target = '') => out(formatRow([label, x.p50.toFixed(0), x.p90.toFixed(0), x.p99.toFixed(0), target], w));
    for (const s of STAGES) row(s.label, col(s.key));
    row(`  baseline of read: ${floorLabel}`, pcts(floor));
    const t = col('total');
    row(
      'total: submit sent → resting status seen',
      t,
      targets ? `p50 ≤ ${TARGET_P50_MS} ${mark(t.p50 <= TARGET_P50_MS)}  p99 ≤ ${TARGET_P99_MS} ${mark(t.p99 <= TARGET_P99_MS)}` : '',
    );
    row('  (202 Accepted received, for reference)', col('answer'));
    const statuses = new Map<string, number>();
    for (const r of runs) statuses.set(`${r.status}/${r.outcome ?? '-'}`, (statuses.get(`${r.status}/${r.outcome ?? '-'}`) ?? 0) + 1);
    out(`  ${runs.length} runs: ${[...statuses].map(([k, v]) => `${k} ×${v}`).join(', ')}`);
    return t;
  };

  out(
    `\nLive runs: a passport photo (2048×1536, as the hosted page sends it) and a selfie, template document + face_match + liveness; ` +
      `POST /v1/capture/submit → resting status read with GET /v1/sessions/{id} every ${POLL_MS} ms; evidence READING_THREADS ${threads}, ${availableParallelism()} cores`,
  );
  const t1 = table(`One at a time: ${RUNS} runs (after ${WARMUP} to warm up)`, one, floorOne, `pool.verify in process, ${threads} threads, one at a time`, true);
  const t4 = table(`Four at once: ${ROUNDS} rounds of four submitted together (${4 * ROUNDS} runs)`, four, floorFour, `pool.verify in process, ${threads} threads, four at once`, false);
  out(`  four at once vs one at a time, total p50: ${(t4.p50 / t1.p50).toFixed(2)}×`);
  out(
    `(section: ${((performance.now() - started) / 1000).toFixed(0)} s; 1-minute load average ${loadAtStart.toFixed(2)} at its start, ${loadavg()[0]!.toFixed(2)} at its end, on ${availableParallelism()} cores)`,
  );
}
