/**
 * `npm run calibrate -- <folder>` (docs/reading.md, "Calibration"): false-accept and false-reject rates at each
 * threshold, for the face match, the selfie-is-the-document's-picture comparison and the liveness attack score,
 * measured with the region's own engines on a labelled folder an operator supplies:
 *
 *   same/<pair>/{a,b}.<jpg|png|webp>       two different photographs of one person
 *   different/<pair>/{a,b}.<…>             two people (every cross pair of same/ folders is added: different people)
 *   copy/<pair>/{a,b}.<…>                  a: a document's picture; b: a copy of it (cropped, re-encoded, printed…)
 *   genuine/*.<…>                          a live person in front of a camera
 *   attack/*.<…>                           a presentation attack: printed, on a screen, cut out
 *
 * Faces are found as in a run (the largest face of each image). Nothing leaves the machine; nothing is written.
 * `--no-cross` leaves out the cross pairs of same/.
 */
import { readdir } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { FaceEngine, pictureSimilarity, type Face } from '@verity/reading';

const IMAGE = /\.(jpe?g|png|webp)$/i;

async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

/** The two images of a pair folder (`a.*`, `b.*`), or null when it lacks one. */
async function pairFiles(dir: string): Promise<[string, string] | null> {
  const files = (await entries(dir)).filter((f) => IMAGE.test(f));
  const a = files.find((f) => /^a\./i.test(f));
  const b = files.find((f) => /^b\./i.test(f));
  return a && b ? [path.join(dir, a), path.join(dir, b)] : null;
}

interface Measured {
  file: string;
  face: Face | null;
}

/** A rate as a percentage with its counts: `3.1 % (2/64)`. */
function rate(n: number, of: number): string {
  return of === 0 ? '—' : `${((100 * n) / of).toFixed(1)} % (${n}/${of})`;
}

function table(title: string, header: [string, string], thresholds: number[], far: (t: number) => [number, number], frr: (t: number) => [number, number]): string[] {
  const out = [`\n${title}`, `| threshold | ${header[0]} | ${header[1]} |`, '|---|---|---|'];
  for (const t of thresholds) {
    const [a, an] = far(t);
    const [r, rn] = frr(t);
    out.push(`| ${t.toFixed(2)} | ${rate(a, an)} | ${rate(r, rn)} |`);
  }
  return out;
}

const steps = (from: number, to: number, step: number) => Array.from({ length: Math.round((to - from) / step) + 1 }, (_, i) => Math.round((from + i * step) * 100) / 100);

export async function calibrate(folder: string, cross = true): Promise<string> {
  const faces = await FaceEngine.start();
  const cache = new Map<string, Measured>();
  const measure = async (file: string): Promise<Measured> => {
    let m = cache.get(file);
    if (!m) {
      const found = await faces.faces(await readFile(file));
      m = { file, face: found.faces[0] ?? null };
      cache.set(file, m);
    }
    return m;
  };
  const pairsOf = async (kind: string) => {
    const out: [Measured, Measured][] = [];
    for (const p of await entries(path.join(folder, kind))) {
      const files = await pairFiles(path.join(folder, kind, p));
      if (files) out.push([await measure(files[0]), await measure(files[1])]);
    }
    return out;
  };
  const singles = async (kind: string) => {
    const out: Measured[] = [];
    for (const f of (await entries(path.join(folder, kind))).filter((x) => IMAGE.test(x))) out.push(await measure(path.join(folder, kind, f)));
    return out;
  };

  const same = await pairsOf('same');
  const different = await pairsOf('different');
  if (cross) for (let i = 0; i < same.length; i++) for (let j = 0; j < same.length; j++) if (i !== j) different.push([same[i]![0], same[j]![1]]);
  const copies = await pairsOf('copy');
  const genuine = await singles('genuine');
  const attacks = await singles('attack');

  const both = (ps: [Measured, Measured][]) => ps.filter(([a, b]) => a.face && b.face) as [{ face: Face }, { face: Face }][];
  const noFace = [...same, ...different, ...copies].flat().concat(genuine, attacks).filter((m) => !m.face).map((m) => path.relative(folder, m.file));
  const sim = (ps: [Measured, Measured][]) => both(ps).map(([a, b]) => faces.similarity(a.face, b.face));
  const pic = (ps: [Measured, Measured][]) => both(ps).map(([a, b]) => pictureSimilarity(a.face.aligned, b.face.aligned));
  const attackScore = (ms: Measured[]) => ms.filter((m) => m.face).map((m) => Math.min(m.face!.real, m.face!.live));

  const sameSim = sim(same);
  const diffSim = sim(different);
  const samePic = pic(same);
  const copyPic = pic(copies);
  const genuineScore = attackScore(genuine);
  const attackScores = attackScore(attacks);
  const count = (xs: number[], f: (x: number) => boolean): [number, number] => [xs.filter(f).length, xs.length];

  const lines = [
    `Calibration of ${folder}: ${same.length} same-person pairs, ${different.length} different-people pairs${cross ? ' (with the cross pairs of same/)' : ''}, ${copies.length} copy pairs, ${genuine.length} genuine and ${attacks.length} attack images.`,
    noFace.length ? `No face found in (left out): ${noFace.join(', ')}` : 'A face was found in every image.',
    ...table(
      'Face match (similarity of the embeddings; a pair passes at or above the threshold)',
      ['false accept: different people passing', 'false reject: the same person not passing'],
      steps(0.3, 0.9, 0.05),
      (t) => count(diffSim, (s) => s >= t),
      (t) => count(sameSim, (s) => s < t),
    ),
    ...table(
      'The selfie is the document’s picture (picture similarity; at or above the threshold: selfie_is_document_copy)',
      ['false accept: copies not caught', 'false reject: another photograph of the person called a copy'],
      steps(0.4, 0.9, 0.05),
      (t) => count(copyPic, (s) => s < t),
      (t) => count(samePic, (s) => s >= t),
    ),
    ...table(
      'Liveness (the lower of the antispoof and liveness models’ scores; at or above the threshold: live)',
      ['false accept: attacks passing', 'false reject: genuine faces not passing'],
      steps(0.3, 0.9, 0.05),
      (t) => count(attackScores, (s) => s >= t),
      (t) => count(genuineScore, (s) => s < t),
    ),
  ];
  const range = (xs: number[]) => (xs.length ? `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}` : '—');
  lines.push(
    `\nRanges: same-person similarity ${range(sameSim)}, different people ${range(diffSim)}; picture similarity of copies ${range(copyPic)}, of same-person photographs ${range(samePic)}; attack score of genuine faces ${range(genuineScore)}, of attacks ${range(attackScores)}.`,
  );
  return lines.join('\n');
}

const args = process.argv.slice(2);
const folder = args.find((a) => !a.startsWith('--'));
if (!folder) {
  process.stderr.write('usage: npm run calibrate -- <folder> [--no-cross]\n(see docs/reading.md, "Calibration", for the folder’s layout)\n');
  process.exit(2);
}
process.stdout.write(`${await calibrate(path.resolve(folder), !args.includes('--no-cross'))}\n`);
