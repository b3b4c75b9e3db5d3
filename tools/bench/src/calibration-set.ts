/**
 * Builds the labelled folder `npm run calibrate` reads (docs/reading.md, "Calibration") from public-domain
 * photographs in Debian packages and the specimens, for want of consented real samples:
 *
 *   node tools/bench/dist/src/calibration-set.js <out> <root>
 *
 * `<root>` holds the packages unpacked (`tools/bench/calibration/fetch-photos.sh <root>` downloads and unpacks
 * them with apt-get download and dpkg-deb -x): `visp-images-data` (two photographs of the 1927 Solvay conference,
 * taken moments apart: 29 people, two different photographs of each). Written to `<out>`:
 *
 * - same/solvay-NN: one person's face in each of the two photographs (faces found in overlapping tiles, people
 *   paired by where they sit, not by their faces);
 * - copy/<person>-<how>: the photographed specimen passport of Collins and of Hopper (libs/testing/specimens) and a copy of
 *   its portrait: the portrait cropped, mirrored, brightened and re-encoded; a photo of the printed page; blurred;
 *   small and heavily compressed; shown on a screen (moiré, glare); cut out and held up;
 * - genuine: the two portraits as their cameras took them, and mirrored and rescaled as a front camera would;
 * - attack: the same faces printed and photographed, on a screen, cut out;
 * - different: Collins against Hopper (the calibration adds every cross pair of same/).
 *
 * Nothing here is committed: the photographs' licences are in docs/reading.md, and the folder is built again
 * from the packages.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { FaceEngine } from '@verity/reading';
import { catalogueSpecimen, documentPortrait, photograph, renderSpecimen, selfie, type Person } from '@verity/specimens';

const VISP = 'usr/share/visp-images-data/ViSP-images';

interface Found {
  cx: number;
  cy: number;
  size: number;
}

/** The faces of a group photograph: found in overlapping tiles (a face must be large in what the detector sees), deduplicated. */
async function groupFaces(faces: FaceEngine, file: string): Promise<{ found: Found[]; image: Buffer }> {
  const image = await sharp(file).removeAlpha().png().toBuffer();
  const { width, height } = await sharp(image).metadata();
  const tile = Math.round(width / 4);
  const all: (Found & { score: number })[] = [];
  for (let y = 0; y + tile / 2 <= height; y += tile / 2) {
    for (let x = 0; x + tile / 2 <= width; x += tile / 2) {
      const w = Math.min(tile, width - x);
      const h = Math.min(tile, height - y);
      const k = tile / 640;
      const part = await sharp(image).extract({ left: Math.round(x), top: Math.round(y), width: Math.round(w), height: Math.round(h) }).resize({ width: Math.round(w / k) }).png().toBuffer();
      for (const f of (await faces.faces(part)).faces) {
        all.push({ cx: x + (f.box.left + f.box.width / 2) * k, cy: y + (f.box.top + f.box.height / 2) * k, size: f.box.width * k, score: f.score });
      }
    }
  }
  const kept: Found[] = [];
  for (const f of all.sort((a, b) => b.score - a.score)) if (!kept.some((k) => Math.hypot(k.cx - f.cx, k.cy - f.cy) < k.size * 0.6)) kept.push(f);
  return { found: kept, image };
}

/**
 * A face cut from a group photograph with a wide margin (2.6 × its size), everything farther than 1.15 × its size
 * from its centre greyed out (the neighbours stay out, the face keeps real pixels all round), made 480 px high.
 */
async function cutFace(image: Buffer, f: Found): Promise<Buffer> {
  const { width, height } = await sharp(image).metadata();
  const side = Math.round(f.size * 2.6);
  const left = Math.max(0, Math.round(f.cx - side / 2));
  const top = Math.max(0, Math.round(f.cy - side / 2));
  const w = Math.min(width - left, side);
  const h = Math.min(height - top, side);
  const r = f.size * 1.15;
  const mask = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs><mask id="m"><rect width="${w}" height="${h}" fill="white"/><circle cx="${f.cx - left}" cy="${f.cy - top}" r="${r}" fill="black"/></mask></defs><rect width="${w}" height="${h}" fill="#808080" mask="url(#m)"/></svg>`,
  );
  const cut = await sharp(image).extract({ left, top, width: w, height: h }).composite([{ input: mask }]).png().toBuffer();
  return sharp(cut).resize({ height: 480 }).png().toBuffer();
}

/**
 * People of the two Solvay photographs paired by where they sit: the two groups' positions related by a scale and
 * a shift (least squares over all faces, each matched to its nearest), refined twice; a pair is kept when the
 * nearest face is within half a face of where the person should be.
 */
function pairByPlace(a: Found[], b: Found[]): [Found, Found][] {
  const centre = (fs: Found[]) => [fs.reduce((s, f) => s + f.cx, 0) / fs.length, fs.reduce((s, f) => s + f.cy, 0) / fs.length] as const;
  const [ax, ay] = centre(a);
  const [bx, by] = centre(b);
  const spread = (fs: Found[], cx: number, cy: number) => Math.sqrt(fs.reduce((s, f) => s + (f.cx - cx) ** 2 + (f.cy - cy) ** 2, 0) / fs.length);
  let scale = spread(b, bx, by) / spread(a, ax, ay);
  let shift = [bx - scale * ax, by - scale * ay];
  let pairs: [Found, Found][] = [];
  for (let round = 0; round < 3; round++) {
    pairs = [];
    for (const f of a) {
      const px = scale * f.cx + shift[0]!;
      const py = scale * f.cy + shift[1]!;
      const near = b.reduce((best, g) => (Math.hypot(g.cx - px, g.cy - py) < Math.hypot(best.cx - px, best.cy - py) ? g : best));
      if (Math.hypot(near.cx - px, near.cy - py) < near.size * 0.5) pairs.push([f, near]);
    }
    const [pax, pay] = centre(pairs.map((p) => p[0]));
    const [pbx, pby] = centre(pairs.map((p) => p[1]));
    let num = 0;
    let den = 0;
    for (const [f, g] of pairs) {
      num += (f.cx - pax) * (g.cx - pbx) + (f.cy - pay) * (g.cy - pby);
      den += (f.cx - pax) ** 2 + (f.cy - pay) ** 2;
    }
    scale = num / den;
    shift = [pbx - scale * pax, pby - scale * pay];
  }
  return pairs;
}

/** A face shown on a screen and photographed: moiré of the pixel grid, a glare, a cold cast. */
async function onScreen(jpeg: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const out = Buffer.from(data);
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const moire = 14 * Math.sin((x * 0.9 + y * 0.35) * 1.3) * Math.sin(y * 0.8);
      const glare = 90 * Math.exp(-(((x - info.width * 0.7) / (info.width * 0.25)) ** 2 + ((y - info.height * 0.25) / (info.height * 0.2)) ** 2));
      for (let c = 0; c < 3; c++) {
        const i = (y * info.width + x) * 3 + c;
        out[i] = Math.max(0, Math.min(255, data[i]! * (c === 2 ? 1.05 : 0.93) + moire + glare));
      }
    }
  }
  return sharp(out, { raw: { width: info.width, height: info.height, channels: 3 } }).blur(0.6).jpeg({ quality: 80 }).toBuffer();
}

/** A printed portrait cut out and held up in front of a wall: white paper edge, a slight turn, photographed. */
async function cutOut(person: Person): Promise<Buffer> {
  const portrait = await sharp(await documentPortrait(person, 300, 385)).extend({ top: 12, bottom: 12, left: 12, right: 12, background: '#f4f1ea' }).png().toBuffer();
  const held = await sharp(portrait).rotate(-6, { background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer();
  return sharp({ create: { width: 720, height: 960, channels: 3, background: '#8a7f70' } })
    .composite([{ input: held, left: 190, top: 280 }])
    .blur(0.7)
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function save(file: string, bytes: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, bytes);
}

export async function buildCalibrationSet(out: string, root: string): Promise<string> {
  const faces = await FaceEngine.start();
  const notes: string[] = [];

  // two photographs of each person: the Solvay conference, 1927
  const a = await groupFaces(faces, path.join(root, VISP, 'faces/1280px-Solvay_conference_1927.png'));
  const b = await groupFaces(faces, path.join(root, VISP, 'Solvay/Solvay_conference_1927_Version2_2126x1463.jpg'));
  const pairs = pairByPlace(a.found, b.found);
  for (const [i, [fa, fb]] of pairs.entries()) {
    const dir = path.join(out, 'same', `solvay-${String(i + 1).padStart(2, '0')}`);
    await save(path.join(dir, 'a.png'), await cutFace(a.image, fa));
    await save(path.join(dir, 'b.png'), await cutFace(b.image, fb));
  }
  notes.push(`same: ${pairs.length} people of the Solvay photographs (faces found: ${a.found.length} and ${b.found.length})`);

  // copies of a document's picture, genuine faces and attacks: the specimens' two people
  for (const [i, person] of (['collins', 'hopper'] as const).entries()) {
    const s = catalogueSpecimen('td3', i, '2026-11-25');
    const front = await photograph((await renderSpecimen({ ...s, holder: { ...s.holder, person } })).front, { rotation: 6, blur: 0.8, seed: 20 + i, width: 2400, height: 1800 });
    const own = await selfie(person, { yaw: 0 });
    const portrait = await documentPortrait(person, 350, 450);
    const copies: Record<string, Buffer> = {
      'portrait-mirrored-brightened': await sharp(portrait).flop().modulate({ brightness: 1.2 }).jpeg({ quality: 70 }).toBuffer(),
      'photo-of-the-page': await photograph(await sharp(front).resize({ width: 1600 }).jpeg().toBuffer(), { rotation: -4, blur: 0.6, seed: 30 + i, width: 1600, height: 1200 }),
      'same-photograph-reframed': own,
      blurred: await sharp(own).blur(2).jpeg({ quality: 80 }).toBuffer(),
      'small-compressed': await sharp(own).resize({ width: 360 }).jpeg({ quality: 40 }).toBuffer(),
      'on-a-screen': await onScreen(own),
    };
    for (const [how, copy] of Object.entries(copies)) {
      await save(path.join(out, 'copy', `${person}-${how}`, 'a.jpg'), front);
      await save(path.join(out, 'copy', `${person}-${how}`, 'b.jpg'), copy);
    }
    await save(path.join(out, 'genuine', `${person}-photograph.jpg`), await sharp(await readFile(path.join(root, person === 'collins' ? 'usr/lib/python3/dist-packages/skimage/data/astronaut.png' : 'usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg'))).jpeg({ quality: 92 }).toBuffer());
    await save(path.join(out, 'genuine', `${person}-front-camera.jpg`), own);
    await save(path.join(out, 'genuine', `${person}-unmirrored.jpg`), await selfie(person, { yaw: 0, mirror: false }));
    await save(path.join(out, 'attack', `${person}-printed-photographed.jpg`), copies['photo-of-the-page']!);
    await save(path.join(out, 'attack', `${person}-on-a-screen.jpg`), copies['on-a-screen']!);
    await save(path.join(out, 'attack', `${person}-cut-out.jpg`), await cutOut(person));
  }
  await save(path.join(out, 'different', 'collins-hopper', 'a.jpg'), await selfie('collins', { yaw: 0 }));
  await save(path.join(out, 'different', 'collins-hopper', 'b.jpg'), await selfie('hopper', { yaw: 0 }));
  notes.push('copy: 12 pairs; genuine: 6; attack: 6; different: 1 (plus the cross pairs of same/)');
  return notes.join('\n');
}

const [out, root] = process.argv.slice(2);
if (!out || !root) {
  process.stderr.write('usage: node tools/bench/dist/src/calibration-set.js <out> <root of the unpacked Debian packages>\n');
  process.exit(2);
}
process.stdout.write(`${await buildCalibrationSet(path.resolve(out), path.resolve(root))}\n`);
