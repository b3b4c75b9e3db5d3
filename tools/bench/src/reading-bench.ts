import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import {
  DEFAULT_THRESHOLDS,
  facePart,
  FaceEngine,
  MrzOcr,
  ReadingPool,
  readDocument,
  utcToday,
  verify,
  type DocumentOutcome,
  type Verification,
} from '@verity/reading';
import {
  catalogueSpecimen,
  expectedRead,
  PEOPLE,
  readingMatrix,
  selfie,
  twoPeopleSelfie,
  type ExpectedRead,
  type MatrixCase,
  type Person,
  type PhotoOptions,
  type SelfieOptions,
  type Specimen,
} from '@verity/specimens';
import { formatRow, percentile } from './load.js';
import type { PhotoDone, PhotoJob } from './reading-photos.js';

const MiB = 1024 * 1024;
const THREADS = 2;
const MATRIX = { td3: 24, td1: 16, td2: 8, aamva: 24 };
/** Runs of each timed path, one at a time. */
const RUNS = 16;
/** Rounds of "one read, then four at once". */
const ROUNDS = 5;

/** A Buffer over bytes that crossed from a thread (as a plain Uint8Array), without copying them. */
const bytes = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
const mark = (ok: boolean) => (ok ? '✓' : '✗');
const out = (line = '') => process.stdout.write(`${line}\n`);
const progress = (line: string) => process.stderr.write(`reading: ${line}\n`);

interface Timing {
  p50: number;
  p90: number;
  max: number;
}

function timing(ms: number[]): Timing {
  const s = [...ms].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p90: percentile(s, 90), max: s.at(-1)! };
}

/** Runs `fn` over `items`, at most `limit` at a time, keeping the order of the results. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const runner = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: limit }, runner));
  return results;
}

/** The fields of a read that `expectedRead` names, to compare one with the other. */
function readFields(o: DocumentOutcome): ExpectedRead | null {
  if (!o.readable) return null;
  const { document: d, holder: h } = o.read;
  return {
    type: d.type,
    number: d.number,
    expiry_date: d.expiry_date,
    family_name: h.family_name,
    given_names: h.given_names,
    name_suffix: h.name_suffix,
    date_of_birth: h.date_of_birth,
    sex: h.sex as ExpectedRead['sex'],
  };
}

function differences(got: ExpectedRead, want: ExpectedRead): string[] {
  return (Object.keys(want) as (keyof ExpectedRead)[])
    .filter((k) => JSON.stringify(got[k]) !== JSON.stringify(want[k]))
    .map((k) => `${k} ${JSON.stringify(got[k])} (expected ${JSON.stringify(want[k])})`);
}

interface Photographed {
  name: string;
  specimen: Specimen;
  photo: PhotoOptions;
  front: Buffer;
  back: Buffer | null;
}

/**
 * Renders the specimens and photographs their sides in one thread per core (reading-photos.ts), before anything
 * is timed or the pool's memory sampled; the threads have ended when it returns.
 */
async function photographAll(jobs: Omit<Photographed, 'front' | 'back'>[]): Promise<Photographed[]> {
  const done: Photographed[] = new Array(jobs.length);
  const threads = Math.max(1, Math.min(availableParallelism(), jobs.length));
  await Promise.all(
    Array.from({ length: threads }, async (_, t) => {
      const mine: PhotoJob[] = jobs.flatMap((j, index) => (index % threads === t ? [{ index, specimen: j.specimen, photo: j.photo }] : []));
      const worker = new Worker(new URL('./reading-photos.js', import.meta.url), { workerData: mine });
      worker.on('message', (m: PhotoDone) => {
        done[m.index] = { ...jobs[m.index]!, front: bytes(m.front), back: m.back && bytes(m.back) };
      });
      const [code] = (await once(worker, 'exit')) as [number];
      if (code !== 0) throw new Error(`the photo thread exited with ${code}`);
    }),
  );
  return done;
}

/** The `n`-th passport of the catalogue issued to `person`'s face. */
function passportOf(person: Person, n: number, today: string): Specimen {
  for (let i = 0, seen = 0; i < 100; i++) {
    const s = catalogueSpecimen('td3', i, today);
    if (s.holder.person === person && seen++ === n) return s;
  }
  throw new Error(`no passport of ${person} in the catalogue`);
}

/** A 12 MP phone photo of a passport, moderately degraded: turned, a slight keystone, soft, uneven light. */
function moderate(i: number): PhotoOptions {
  return { width: 4000, height: 3000, coverage: 0.7, rotation: i % 2 ? -7 : 6, perspective: 0.03, blur: 1, noise: 4, light: 0.25, quality: 80, seed: 500 + 10 * i };
}

const SELFIES: { label: string; options: SelfieOptions }[] = [
  { label: 'default', options: {} },
  { label: 'unmirrored', options: { mirror: false } },
  { label: 'darker (0.8)', options: { brightness: 0.8 } },
  { label: 'roll 10°', options: { roll: 10 } },
  { label: 'smaller (640)', options: { size: 640 } },
  { label: 'JPEG quality 60', options: { jpegQuality: 60 } },
];

const KINDS: { label: string; kinds: string[] }[] = [
  { label: 'passport (TD3)', kinds: ['td3'] },
  { label: 'ID card (TD1, TD2)', kinds: ['td1', 'td2'] },
  { label: 'licence (AAMVA)', kinds: ['aamva'] },
];

interface MatrixResult {
  c: Photographed;
  outcome: DocumentOutcome;
  wrong: string[];
}

function printMatrix(results: MatrixResult[]): void {
  const n = results.length;
  const spec = Object.entries(MATRIX).map(([k, v]) => `${k}: ${v}`).join(', ');
  out(`\nReading accuracy: readingMatrix({ ${spec} }), ${n} degraded phone photos (back: seed + 1), pool.read; exact = every field of expectedRead equal`);
  const w = [20, 7, 7, 8, 11, 16, 40];
  out(formatRow(['kind', 'photos', 'exact', 'exact %', 'unreadable', 'wrong-but-valid', 'unreadable reasons'], w));
  const rows = [...KINDS.map((k) => ({ label: k.label, rs: results.filter((r) => k.kinds.includes(r.c.specimen.document.kind)) })), { label: 'total', rs: results }];
  for (const { label, rs } of rows) {
    const exact = rs.filter((r) => r.outcome.readable && r.wrong.length === 0).length;
    const unreadable = rs.filter((r) => !r.outcome.readable);
    const wrong = rs.filter((r) => r.wrong.length > 0).length;
    const reasons = new Map<string, number>();
    for (const r of unreadable) if (!r.outcome.readable) reasons.set(r.outcome.reason, (reasons.get(r.outcome.reason) ?? 0) + 1);
    const why = [...reasons].map(([k, v]) => `${k} ${v}`).join(', ');
    out(formatRow([label, rs.length, exact, `${((exact / rs.length) * 100).toFixed(1)}`, unreadable.length, wrong, why], w));
  }
  const exact = results.filter((r) => r.outcome.readable && r.wrong.length === 0).length;
  const wrong = results.filter((r) => r.wrong.length > 0).length;
  out(`targets: read exactly ≥ 95 %: ${((exact / n) * 100).toFixed(1)} % ${mark(exact / n >= 0.95)}   wrong-but-valid = 0: ${wrong} ${mark(wrong === 0)}`);
  const misses = results.filter((r) => !r.outcome.readable || r.wrong.length > 0);
  if (misses.length) {
    out('not read exactly:');
    for (const r of misses) {
      const what = r.outcome.readable ? `WRONG ${r.wrong.join('; ')}` : `unreadable: ${r.outcome.reason}`;
      out(`  ${r.c.name}  ${what}\n    photo ${JSON.stringify(r.c.photo)}`);
    }
  }
}

interface PairResult {
  document: string;
  selfie: string;
  same: boolean | null;
  v: Verification;
}

function printPairs(pairs: PairResult[]): void {
  const t = DEFAULT_THRESHOLDS;
  out(`\nFace match and liveness: pool.verify of a photographed passport against a selfie`);
  out(`thresholds: face match pass ≥ ${t.faceMatchPass}, review ≥ ${t.faceMatchReview}; liveness pass ≥ ${t.livenessPass}, review ≥ ${t.livenessReview}`);
  const w = [18, 24, 6, 10, 12, 31, 5, 20];
  out(formatRow(['document', 'selfie', 'faces', 'similarity', 'target', 'face_match', 'real', 'liveness'], w));
  for (const p of pairs) {
    const f = p.v.findings;
    const faces = `${f.documentFaces}+${f.selfieFaces}`;
    let target: string;
    if (p.same === null) target = `2 faces ${mark(f.selfieFaces === 2)}`;
    else if (f.similarity === null) target = `${p.same ? '≥' : '<'} ${p.same ? t.faceMatchPass : t.faceMatchReview} ✗`;
    else target = p.same ? `≥ ${t.faceMatchPass} ${mark(f.similarity >= t.faceMatchPass)}` : `< ${t.faceMatchReview} ${mark(f.similarity < t.faceMatchReview)}`;
    const check = (c: Verification['checks']['face_match']) => (c ? [c.outcome, ...c.reasons].join(' ') : '—');
    out(formatRow([p.document, p.selfie, faces, f.similarity?.toFixed(2) ?? '—', target, check(p.v.checks.face_match), f.real?.toFixed(2) ?? '—', check(p.v.checks.liveness)], w));
  }
  const same = pairs.filter((p) => p.same === true);
  const diff = pairs.filter((p) => p.same === false);
  const sameOk = same.filter((p) => (p.v.findings.similarity ?? -1) >= t.faceMatchPass).length;
  const diffOk = diff.filter((p) => p.v.findings.similarity !== null && p.v.findings.similarity < t.faceMatchReview).length;
  const sims = (ps: PairResult[]) => ps.map((p) => p.v.findings.similarity ?? NaN);
  out(
    `same person ≥ ${t.faceMatchPass}: ${sameOk}/${same.length} ${mark(sameOk === same.length)} (lowest ${Math.min(...sims(same)).toFixed(2)})   ` +
      `different people < ${t.faceMatchReview}: ${diffOk}/${diff.length} ${mark(diffOk === diff.length)} (highest ${Math.max(...sims(diff)).toFixed(2)})`,
  );
}

/**
 * `@verity/reading` on photographs from `@verity/specimens`, all offline and CPU-bound: accuracy over the
 * degraded-photo matrix, face match and liveness over selfie variants, then speed and memory of a pool of two
 * threads next to the floor, the same library calls on this process's main thread (engines loaded only after the
 * pool has been measured and closed, so that the pool's RSS is the pool's).
 */
export async function benchReading(): Promise<void> {
  const started = performance.now();
  const rssAtStart = process.memoryUsage().rss;
  const loadAtStart = loadavg()[0]!;
  const today = utcToday();

  // every photo first, outside the timed regions
  const cases: MatrixCase[] = readingMatrix(MATRIX, today);
  // four passports, two of each person: the first two are the face-pair documents, all four the speed set
  const passportJobs = [0, 1, 2, 3].map((i) => {
    const person = PEOPLE[i % 2]!;
    return { name: `passport ${i} (${person})`, specimen: passportOf(person, Math.floor(i / 2), today), photo: moderate(i) };
  });
  progress(`rendering and photographing ${cases.length} matrix cases and ${passportJobs.length} passports`);
  const photographed = await photographAll([...cases, ...passportJobs]);
  const matrix = photographed.slice(0, cases.length);
  const passports = photographed.slice(cases.length);
  const selfies = new Map<Person, { label: string; jpeg: Buffer }[]>();
  for (const person of PEOPLE) selfies.set(person, await Promise.all(SELFIES.map(async (s) => ({ label: s.label, jpeg: await selfie(person, s.options) }))));
  const two = await twoPeopleSelfie();
  const ownSelfie = (p: Photographed) => selfies.get(p.specimen.holder.person)![0]!.jpeg;
  const prepared = performance.now();

  // the pool, its RSS sampled every 50 ms from before it starts until it closes. Its threads turn libvips' cache
  // off for the whole process as they load (sharp.cache(false)): off here first, so that the baseline holds no
  // cache that the pool would then empty.
  sharp.cache(false);
  const rssBaseline = process.memoryUsage().rss;
  let rssPeak = rssBaseline;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 50);
  const pool = new ReadingPool({ threads: THREADS, faces: true });
  let t = performance.now();
  await pool.warm();
  const poolWarmMs = performance.now() - t;

  progress(`reading ${matrix.length} matrix photos`);
  const results: MatrixResult[] = await mapLimit(matrix, THREADS, async (c) => {
    const outcome = await pool.read({ front: c.front, back: c.back }, today);
    const got = readFields(outcome);
    return { c, outcome, wrong: got ? differences(got, expectedRead(c.specimen)) : [] };
  });
  printMatrix(results);

  progress('face pairs');
  const pairJobs: { document: Photographed; person: Person | null; label: string; jpeg: Buffer }[] = [];
  for (const document of passports.slice(0, 2)) {
    for (const person of PEOPLE) for (const s of selfies.get(person)!) pairJobs.push({ document, person, label: `${person} ${s.label}`, jpeg: s.jpeg });
    pairJobs.push({ document, person: null, label: 'two people', jpeg: two });
  }
  const pairs: PairResult[] = await mapLimit(pairJobs, THREADS, async (j) => ({
    document: `${j.document.specimen.holder.person} passport`,
    selfie: j.label,
    same: j.person === null ? null : j.person === j.document.specimen.holder.person,
    v: await pool.verify({ front: j.document.front, back: j.document.back, selfie: j.jpeg }, DEFAULT_THRESHOLDS, today),
  }));
  printPairs(pairs);

  // speed through the pool: one request at a time, then four at once
  progress('speed, pool');
  const check = (p: Photographed, o: DocumentOutcome) => {
    const got = readFields(o);
    const wrong = got ? differences(got, expectedRead(p.specimen)) : ['unreadable'];
    if (wrong.length) throw new Error(`${p.name} was not read exactly: ${wrong.join('; ')}`);
  };
  const timed = async <R>(fn: () => Promise<R>): Promise<[number, R]> => {
    const t0 = performance.now();
    const r = await fn();
    return [performance.now() - t0, r];
  };
  const images = (p: Photographed) => ({ front: p.front, back: p.back });
  for (const p of passports) check(p, await pool.read(images(p), today));
  const poolRead: number[] = [];
  const poolVerify: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const p = passports[i % passports.length]!;
    const [ms, o] = await timed(() => pool.read(images(p), today));
    check(p, o);
    poolRead.push(ms);
  }
  for (let i = 0; i < RUNS; i++) {
    const p = passports[i % passports.length]!;
    const [ms, v] = await timed(() => pool.verify({ ...images(p), selfie: ownSelfie(p) }, DEFAULT_THRESHOLDS, today));
    check(p, v.document);
    poolVerify.push(ms);
  }
  const single: number[] = [];
  const four: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const p of passports) single.push((await timed(() => pool.read(images(p), today)))[0]);
    const [ms, os] = await timed(() => Promise.all(passports.map((p) => pool.read(images(p), today))));
    os.forEach((o, i) => check(passports[i]!, o));
    four.push(ms);
  }
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  await pool.close();

  // the floor: the same library calls on this thread (Tesseract keeps its own worker thread, as in the pool)
  progress('speed, floor');
  t = performance.now();
  const [ocr, faces] = await Promise.all([MrzOcr.start(), FaceEngine.start()]);
  const floorStartMs = performance.now() - t;
  const angles = new Map<Photographed, number>();
  for (const p of passports) {
    const r = await readDocument(ocr, images(p), today);
    check(p, r.outcome);
    angles.set(p, r.frontAngle);
  }
  const floorFacePart = async (p: Photographed) => {
    const { findings } = await facePart(faces, p.front, angles.get(p)!, ownSelfie(p));
    if (findings.similarity === null) throw new Error(`${p.name}: no face on the document or in the selfie`);
    return findings.similarity;
  };
  for (const p of passports) {
    await floorFacePart(p);
    await verify(ocr, faces, { ...images(p), selfie: ownSelfie(p) }, DEFAULT_THRESHOLDS, today);
  }
  const floorRead: number[] = [];
  const floorFaces: number[] = [];
  const floorVerify: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const p = passports[i % passports.length]!;
    const [ms, r] = await timed(() => readDocument(ocr, images(p), today));
    check(p, r.outcome);
    floorRead.push(ms);
  }
  for (let i = 0; i < RUNS; i++) floorFaces.push((await timed(() => floorFacePart(passports[i % passports.length]!)))[0]);
  for (let i = 0; i < RUNS; i++) {
    const p = passports[i % passports.length]!;
    floorVerify.push((await timed(() => verify(ocr, faces, { ...images(p), selfie: ownSelfie(p) }, DEFAULT_THRESHOLDS, today)))[0]);
  }
  await ocr.close();

  const fr = timing(floorRead);
  const pr = timing(poolRead);
  const ff = timing(floorFaces);
  const fv = timing(floorVerify);
  const pv = timing(poolVerify);
  const poolFaceP50 = pv.p50 - pr.p50;
  out(`\nReading speed: 12 MP passport photos (4000×3000 JPEG, turned 6–7°, keystone 3 %, blur σ 1, quality 80; ${passports.length} documents), ${RUNS} runs each, one at a time`);
  out('floor: the same library calls in this process, on the main thread; pool: ReadingPool of 2 threads');
  const w = [60, 8, 8, 8, 16];
  out(formatRow(['path', 'p50 ms', 'p90 ms', 'max ms', 'target'], w));
  const row = (label: string, x: Timing, target = '') => out(formatRow([label, x.p50.toFixed(0), x.p90.toFixed(0), x.max.toFixed(0), target], w));
  row('read: readDocument, floor', fr);
  row('read: pool.read', pr, `p50 ≤ 1200 ${mark(pr.p50 <= 1200)}`);
  row('face part: straighten, faces of front + selfie, crop, floor', ff, `p50 ≤ 500 ${mark(ff.p50 <= 500)}`);
  row('verify (read + face part): verify, floor', fv);
  row('verify (read + face part): pool.verify', pv);
  out(formatRow(['face part, pool: pool.verify p50 − pool.read p50', poolFaceP50.toFixed(0), '', '', `≤ 500 ${mark(poolFaceP50 <= 500)}`], w));
  out(formatRow(['engines loaded: MrzOcr.start + FaceEngine.start, floor', floorStartMs.toFixed(0), '', '', ''], w));
  out(formatRow(['engines loaded: pool.warm(), 2 threads with faces', poolWarmMs.toFixed(0), '', '', ''], w));

  const one = timing(single).p50;
  const parallel = timing(four).p50;
  const ratio = parallel / one;
  out(`\nFour scans at once vs one, pool of 2 threads (medians: ${single.length} single reads, ${ROUNDS} rounds of four concurrent pool.read)`);
  const w2 = [40, 10, 16];
  out(formatRow(['', 'wall ms', 'target'], w2));
  out(formatRow(['one pool.read', one.toFixed(0), ''], w2));
  out(formatRow(['four concurrent pool.read', parallel.toFixed(0), ''], w2));
  out(formatRow(['ratio', `${ratio.toFixed(2)}×`, `≤ 2.5× ${mark(ratio <= 2.5)}`], w2));

  const poolRss = rssPeak - rssBaseline;
  out(`\nPool memory: process RSS sampled every 50 ms from before the pool started until it closed (warm-up, matrix, face pairs, speed; the floor's engines load only after)`);
  out(formatRow(['RSS at the start of the section', `${(rssAtStart / MiB).toFixed(0)} MiB`, ''], w2));
  out(formatRow(['RSS before the pool (photos in memory)', `${(rssBaseline / MiB).toFixed(0)} MiB`, ''], w2));
  out(formatRow(['peak RSS while the pool ran', `${(rssPeak / MiB).toFixed(0)} MiB`, ''], w2));
  out(formatRow(["pool's RSS (peak − before)", `${(poolRss / MiB).toFixed(0)} MiB`, `< 1024 MiB ${mark(poolRss < 1024 * MiB)}`], w2));
  const end = performance.now();
  out(
    `(section: ${((end - started) / 1000).toFixed(0)} s, of which ${((prepared - started) / 1000).toFixed(0)} s rendering and photographing; ` +
      `1-minute load average ${loadAtStart.toFixed(2)} at its start, ${loadavg()[0]!.toFixed(2)} at its end, on ${availableParallelism()} cores)`,
  );
}
