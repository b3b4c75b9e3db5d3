import { catalogueSpecimen } from './catalogue.js';
import { random, type PhotoOptions } from './photo.js';
import type { DocumentKind, Specimen } from './render.js';

/** One degraded photo of the accuracy matrix. */
export interface MatrixCase {
  name: string;
  specimen: Specimen;
  /** How each side is photographed. */
  photo: PhotoOptions;
}

/**
 * The accuracy matrix: `perKind` photos of each kind (passports, TD1 and TD2 cards, driving licences), each a
 * different holder, photographed as a phone would, with degradations drawn from fixed seeds: turned up to ±20°,
 * keystone up to 6 %, blur up to σ 2, noise, uneven light, JPEG quality 55–92, covering 50–90 % of a 12 MP (or 8 MP)
 * frame, one in six stored with an EXIF orientation.
 */
export function readingMatrix(perKind: { td3: number; td1: number; td2: number; aamva: number }, today?: string): MatrixCase[] {
  const cases: MatrixCase[] = [];
  for (const kind of ['td3', 'td1', 'td2', 'aamva'] as DocumentKind[]) {
    for (let i = 0; i < perKind[kind]; i++) {
      const seed = 1000 * (kind.charCodeAt(2) || 7) + i;
      const rnd = random(seed);
      const twelve = rnd() < 0.75;
      const photo: PhotoOptions = {
        width: twelve ? 4000 : 3264,
        height: twelve ? 3000 : 2448,
        rotation: Math.round((rnd() * 40 - 20) * 10) / 10,
        perspective: Math.round(rnd() * 60) / 1000,
        blur: Math.round(rnd() * 20) / 10,
        noise: 2 + Math.round(rnd() * 6),
        light: Math.round(rnd() * 50) / 100,
        quality: 55 + Math.round(rnd() * 37),
        coverage: Math.round((0.5 + rnd() * 0.4) * 100) / 100,
        exifOrientation: i % 6 === 5 ? ([6, 8, 3] as const)[i % 3] : 1,
        seed,
      };
      cases.push({ name: `${kind}-${String(i).padStart(2, '0')}`, specimen: catalogueSpecimen(kind, i, today), photo });
    }
  }
  return cases;
}
