import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import {
  closeReaders,
  DEFAULT_THRESHOLDS,
  documentCheck,
  cropPortrait,
  embeddingSimilarity,
  selfieSide,
  FaceEngine,
  ReadingPool,
  readDocument,
  startReaders,
  utcToday,
  verify,
  type DocumentOutcome,
  type Verification,
} from '@verity/reading';
import {
  catalogueSpecimen,
  challengeFrames,
  expectedRead,
  mrzOnPaper,
  PEOPLE,
  photograph,
  renderSpecimen,
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
  out(`\nReading accuracy: readingMatrix({ ${spec} }), ${n} degraded phone photos (back: seed + 1), pool.read; exact = every field of expectedRead equal; pass = the document check passes (document found, printed zone agreeing)`);
  const w = [20, 7, 7, 8, 6, 11, 16, 40];
  out(formatRow(['kind', 'photos', 'exact', 'exact %', 'pass', 'unreadable', 'wrong-but-valid', 'unreadable reasons; reasons of exact reads not passing'], w));
  const rows = [...KINDS.map((k) => ({ label: k.label, rs: results.filter((r) => k.kinds.includes(r.c.specimen.document.kind)) })), { label: 'total', rs: results }];
  for (const { label, rs } of rows) {
    const exact = rs.filter((r) => r.outcome.readable && r.wrong.length === 0).length;
    const unreadable = rs.filter((r) => !r.outcome.readable);
    const wrong = rs.filter((r) => r.wrong.length > 0).length;
    const reasons = new Map<string, number>();
    for (const r of unreadable) if (!r.outcome.readable) reasons.set(r.outcome.reason, (reasons.get(r.outcome.reason) ?? 0) + 1);
    const passed = rs.filter((r) => documentCheck(r.outcome).outcome === 'pass').length;
    for (const r of rs) if (r.outcome.readable && r.wrong.length === 0) for (const why of documentCheck(r.outcome).reasons) reasons.set(why, (reasons.get(why) ?? 0) + 1);
    const why = [...reasons].map(([k, v]) => `${k} ${v}`).join(', ');
    out(formatRow([label, rs.length, exact, `${((exact / rs.length) * 100).toFixed(1)}`, passed, unreadable.length, wrong, why], w));
  }
  const exact = results.filter((r) => r.outcome.readable && r.wrong.length === 0).length;
  const wrong = results.filter((r) => r.wrong.length > 0).length;
  out(`targets: read exactly ≥ 95 %: ${((exact / n) * 100).toFixed(1)} % ${mark(exact / n >= 0.95)}   wrong-but-valid = 0: ${wrong} ${mark(wrong === 0)}`);
  const passed = results.filter((r) => documentCheck(r.outcome).outcome === 'pass').length;
  out(`document check pass: ${passed} of ${n} (${((passed / n) * 100).toFixed(1)} %)`);
  const misses = results.filter((r) => !r.outcome.readable || r.wrong.length > 0 || documentCheck(r.outcome).outcome !== 'pass');
  if (misses.length) {
    out('not read exactly, or not passing:');
    for (const r of misses) {
      const o = r.outcome;
      const what = !o.readable ? `unreadable: ${o.reason}` : r.wrong.length ? `WRONG ${r.wrong.join('; ')}` : `${documentCheck(o).outcome} ${o.read.reasons.join(' ')}; printed ${JSON.stringify(o.printed)}`;
      out(`  ${r.c.name}  ${what}\n    photo ${JSON.stringify(r.c.photo)}`);
    }
  }
}

interface Attack {
  name: string;
  front: Buffer;
  back: Buffer | null;
  selfie: Buffer;
}

/**
 * Photos of documents that are not one real document: an MRZ printed alone on A4 paper (at its real size, and
 * stretched across the page at its foot) with a face beside it; a TD1 front of one person with the back of
 * another; a licence front of one person with the barcode of another; a passport whose printed name is not its
 * MRZ's. Each with the selfie of the face the attacker shows.
 */
async function attackPhotos(today: string): Promise<Attack[]> {
  const photo = (page: Buffer, o: PhotoOptions) => photograph(page, { width: 3000, height: 2250, ...o });
  const passport = catalogueSpecimen('td3', 0, today);
  const [a, b] = [catalogueSpecimen('td1', 1, today), catalogueSpecimen('td1', 2, today)];
  const [la, lb] = [catalogueSpecimen('aamva', 1, today), catalogueSpecimen('aamva', 2, today)];
  const [ra, rb, rla, rlb, altered] = await Promise.all([
    renderSpecimen(a),
    renderSpecimen(b),
    renderSpecimen(la),
    renderSpecimen(lb),
    renderSpecimen(catalogueSpecimen('td3', 3, today), { visual: { familyName: 'Lindqvist' } }),
  ]);
  const face = passport.holder.person;
  return [
    { name: 'MRZ on A4, real size, a face beside it', front: await photo(await mrzOnPaper(passport, { size: 'real', face }), { coverage: 0.92, rotation: 3, seed: 71 }), back: null, selfie: await selfie(face) },
    { name: 'MRZ on A4, stretched to its foot, a face', front: await photo(await mrzOnPaper(passport, { size: 'fill', face }), { coverage: 0.85, rotation: -4, seed: 72 }), back: null, selfie: await selfie(face) },
    { name: 'TD1: front of A, back of B', front: await photo(ra.front, { seed: 73 }), back: await photo(rb.back!, { seed: 74 }), selfie: await selfie(a.holder.person) },
    { name: 'licence: front of A, barcode of B', front: await photo(rla.front, { seed: 75 }), back: await photo(rlb.back!, { seed: 76 }), selfie: await selfie(la.holder.person) },
    { name: 'passport: printed name not the MRZ’s', front: await photo(altered.front, { seed: 77, rotation: 5 }), back: null, selfie: await selfie(catalogueSpecimen('td3', 3, today).holder.person) },
  ];
}

function printAttacks(results: (Attack & { v: Verification })[]): void {
  out('\nAttacks: pool.verify of photos that are not one real document (target: the document check never passes)');
  const w = [42, 34, 30, 8];
  out(formatRow(['attack', 'document', 'face_match', 'target'], w));
  for (const r of results) {
    const d = r.v.checks.document;
    const f = r.v.checks.face_match;
    out(formatRow([r.name, [d.outcome, ...d.reasons].join(' '), f ? [f.outcome, ...f.reasons].join(' ') : '—', mark(d.outcome !== 'pass')], w));
  }
}

interface PairResult {
  document: string;
  selfie: string;
  same: boolean | null;
  v: Verification;
}

/**
 * Before this change a photo the reader could not use ended in manual review after submit; now the page asks for a
 * retake before it. Per set: how many would have ended in review (the document unread), how many get the prompt,
 * how many of those were the unread ones, and prompts for photos that did read (a retake asked for nothing).
 */
function printRetakes(rs: { hard: boolean; review: boolean; prompt: boolean }[]): void {
  out('\nRetake before submit: each photo checked as the page checks it (POST /v1/capture/images/{artifact}/check), against how its read ends');
  const w = [44, 8, 26, 26, 22, 22];
  out(formatRow(['set', 'photos', 'would end manual_review', 'retake prompt instead', 'prompt on an unread', 'prompt on a read one'], w));
  const pct = (n: number, of: number) => `${n} (${of ? ((100 * n) / of).toFixed(1) : '0.0'} %)`;
  for (const [label, set] of [
    ['degraded matrix (as above)', rs.filter((r) => !r.hard)],
    ['the same, photographed worse (blur σ 2.5–5.7, 30–54 % of the frame, dark side, JPEG 45–65)', rs.filter((r) => r.hard)],
  ] as const) {
    const review = set.filter((r) => r.review).length;
    const prompt = set.filter((r) => r.prompt).length;
    out(formatRow([label, set.length, pct(review, set.length), pct(prompt, set.length), `${set.filter((r) => r.review && r.prompt).length} of ${review}`, String(set.filter((r) => !r.review && r.prompt).length)], w));
  }
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
    out(formatRow([p.document, p.selfie, faces, f.similarity?.toFixed(2) ?? '—', target, check(p.v.checks.face_match), p.v.liveness.selfieAttack?.toFixed(2) ?? '—', check(p.v.checks.liveness)], w));
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
  // the same documents photographed worse: more blur, smaller in the frame, darker, more compressed
  const hardCases = cases.map((c, i) => ({
    name: `${c.name}-hard`,
    specimen: c.specimen,
    photo: { ...c.photo, blur: 2.5 + (i % 5) * 0.8, coverage: 0.3 + (i % 4) * 0.08, light: 0.5, quality: 45 + (i % 3) * 10, seed: (c.photo.seed ?? 1) + 7 },
  }));
  // four passports, two of each person: the first two are the face-pair documents, all four the speed set
  const passportJobs = [0, 1, 2, 3].map((i) => {
    const person = PEOPLE[i % 2]!;
    return { name: `passport ${i} (${person})`, specimen: passportOf(person, Math.floor(i / 2), today), photo: moderate(i) };
  });
  progress(`rendering and photographing ${cases.length} matrix cases and ${passportJobs.length} passports`);
  const photographed = await photographAll([...cases, ...passportJobs, ...hardCases]);
  const matrix = photographed.slice(0, cases.length);
  const passports = photographed.slice(cases.length, cases.length + passportJobs.length);
  const hard = photographed.slice(cases.length + passportJobs.length);
  const selfies = new Map<Person, { label: string; jpeg: Buffer }[]>();
  for (const person of PEOPLE) selfies.set(person, await Promise.all(SELFIES.map(async (s) => ({ label: s.label, jpeg: await selfie(person, s.options) }))));
  const two = await twoPeopleSelfie();
  const attacks = await attackPhotos(today);
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

  progress(`retake before submit: ${matrix.length + hard.length} photos read and checked`);
  const retakes = await mapLimit([...matrix, ...hard], THREADS, async (c) => {
    const outcome = await pool.read({ front: c.front, back: c.back }, today);
    const kind = c.specimen.document.kind;
    const documentType = kind === 'td3' ? 'passport' : kind === 'aamva' ? 'driver_license' : 'identity_card';
    // the page checks each photo it sends; the back only where the document's data is (TD1 cards, licences)
    const checks = [await pool.inspect(c.front, 'front', documentType, DEFAULT_THRESHOLDS, today)];
    if (c.back && (kind === 'td1' || kind === 'aamva')) checks.push(await pool.inspect(c.back, 'back', documentType, DEFAULT_THRESHOLDS, today));
    return { hard: c.name.endsWith('-hard'), review: !outcome.readable, prompt: checks.some((x) => !x.usable) };
  });
  printRetakes(retakes);

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

  progress('attacks');
  const attacked = await mapLimit(attacks, THREADS, async (a) => ({ ...a, v: await pool.verify({ front: a.front, back: a.back, selfie: a.selfie }, DEFAULT_THRESHOLDS, today) }));
  printAttacks(attacked);

  // speed through the pool: one request at a time, then four at once
  progress('speed, pool');
  const check = (p: Photographed, o: DocumentOutcome) => {
    const got = readFields(o);
    const wrong = got ? differences(got, expectedRead(p.specimen)) : ['unreadable'];
    if (wrong.length) throw new Error(`${p.name} was not read exactly: ${wrong.join('; ')}`);
    // the printed zone was read and compared too: the time is that of a whole read
    if (!o.readable || o.printed === null) throw new Error(`${p.name}: no printed zone was compared (${JSON.stringify(o)})`);
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
  // the selfie and the challenge's five frames, with the document: a live run of a liveness workflow
  const challenge = ['turn_left', 'turn_right'] as const;
  const frames = new Map<Person, { image: Buffer; offsetMs: number }[]>();
  for (const person of PEOPLE) frames.set(person, await challengeFrames(person, challenge));
  const framesOf = (p: Photographed) => frames.get(p.specimen.holder.person)!;
  const poolChallenge: number[] = [];
  const livenessOutcomes: string[] = [];
  for (let i = 0; i < RUNS / 2; i++) {
    const p = passports[i % passports.length]!;
    const [ms, v] = await timed(() => pool.verify({ ...images(p), selfie: ownSelfie(p), frames: framesOf(p), challenge: [...challenge] }, DEFAULT_THRESHOLDS, today));
    check(p, v.document);
    poolChallenge.push(ms);
    livenessOutcomes.push(`${p.specimen.holder.person} ${v.checks.liveness?.outcome} ${v.checks.liveness?.reasons.join(' ')}`.trim());
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
  const [ocr, faces] = await Promise.all([startReaders(), FaceEngine.start()]);
  const floorStartMs = performance.now() - t;
  const zones = new Map<Photographed, Buffer | null>();
  for (const p of passports) {
    const r = await readDocument(ocr, images(p), today);
    check(p, r.outcome);
    zones.set(p, r.portraitZone);
  }
  /** The faces of a run on this thread: the portrait zone's face cut out, the selfie's, and each frame's against it. */
  const floorFacePart = async (p: Photographed, frames?: ReturnType<typeof framesOf>) => {
    const zone = zones.get(p)!;
    const onDocument = await faces.faces(zone, 'document');
    const holder = onDocument.faces[0];
    const side = await selfieSide(faces, { selfie: ownSelfie(p), frames });
    if (!holder || !side.selfieFace) throw new Error(`${p.name}: no face on the document or in the selfie`);
    await cropPortrait(zone, holder, onDocument.width, onDocument.height);
    return embeddingSimilarity(holder.embedding, side.selfieFace.embedding);
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
  const floorChallenge: number[] = [];
  for (let i = 0; i < RUNS / 2; i++) {
    const p = passports[i % passports.length]!;
    floorChallenge.push((await timed(() => floorFacePart(p, framesOf(p))))[0]);
  }
  await closeReaders(ocr);

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
  row('read (MRZ, outline, layout, printed zone): readDocument, floor', fr);
  row('read (MRZ, outline, layout, printed zone): pool.read', pr, `p50 ≤ 1500 ${mark(pr.p50 <= 1500)}`);
  row('face part: faces of portrait zone + selfie, crop, floor', ff, `p50 ≤ 500 ${mark(ff.p50 <= 500)}`);
  row('verify (read + face part): verify, floor', fv);
  row('verify (read + face part): pool.verify', pv);
  out(formatRow(['face part, pool: pool.verify p50 − pool.read p50', poolFaceP50.toFixed(0), '', '', `≤ 500 ${mark(poolFaceP50 <= 500)}`], w));
  const fc = timing(floorChallenge);
  const pc = timing(poolChallenge);
  const poolChallengeP50 = pc.p50 - pr.p50;
  row('selfie + challenge (face part, 5 frames), floor: one thread', fc);
  row('verify with the challenge (5 frames): pool.verify', pc);
  out(formatRow(['selfie + challenge, pool (beside the read): that p50 − pool.read p50', poolChallengeP50.toFixed(0), '', '', `≤ 1500 ${mark(poolChallengeP50 <= 1500)}`], w));
  out(`liveness of those runs: ${[...new Set(livenessOutcomes)].join('; ')}`);
  out(formatRow(['engines loaded: startReaders + FaceEngine.start, floor', floorStartMs.toFixed(0), '', '', ''], w));
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
