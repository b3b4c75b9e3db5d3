import type { EvidenceArtifact } from '@verity/contracts';
import sharp from 'sharp';

/**
 * Synthetic evidence of test-mode runs (docs/evidence.md), drawn here and never taken from a person: a specimen
 * identity document front, the holder's portrait cropped from it, and a selfie frame. Every test run stores the
 * same images; no applicant data is printed on them.
 */
export const SPECIMEN = {
  family_name: 'DE BRUIJN',
  given_names: 'WILLEKE LISELOTTE',
  date_of_birth: '10 03 1965',
  document_number: 'SPECI2014',
  expiry_date: '09 03 2034',
  nationality: 'NLD',
} as const;

const FRONT = { width: 1012, height: 638 };
/** Where the holder's photograph sits on the front: the portrait is cropped from exactly this box. */
export const PORTRAIT_BOX = { left: 48, top: 150, width: 300, height: 388 };

function face(cx: number, cy: number, scale: number, skin: string, hair: string, shirt: string): string {
  const s = (n: number) => (n * scale).toFixed(1);
  return `
    <path d="M ${cx - 150 * scale} ${cy + 230 * scale} Q ${cx} ${cy + 90 * scale} ${cx + 150 * scale} ${cy + 230 * scale} L ${cx + 150 * scale} ${cy + 260 * scale} L ${cx - 150 * scale} ${cy + 260 * scale} Z" fill="${shirt}"/>
    <rect x="${cx - 28 * scale}" y="${cy + 60 * scale}" width="${s(56)}" height="${s(60)}" fill="${skin}"/>
    <ellipse cx="${cx}" cy="${cy - 8 * scale}" rx="${s(92)}" ry="${s(112)}" fill="${hair}"/>
    <ellipse cx="${cx}" cy="${cy + 8 * scale}" rx="${s(76)}" ry="${s(96)}" fill="${skin}"/>
    <path d="M ${cx - 80 * scale} ${cy - 30 * scale} Q ${cx} ${cy - 130 * scale} ${cx + 80 * scale} ${cy - 30 * scale} Q ${cx} ${cy - 80 * scale} ${cx - 80 * scale} ${cy - 30 * scale} Z" fill="${hair}"/>
    <ellipse cx="${cx - 30 * scale}" cy="${cy}" rx="${s(10)}" ry="${s(6)}" fill="#2b2b2b"/>
    <ellipse cx="${cx + 30 * scale}" cy="${cy}" rx="${s(10)}" ry="${s(6)}" fill="#2b2b2b"/>
    <path d="M ${cx} ${cy + 8 * scale} L ${cx - 8 * scale} ${cy + 38 * scale} L ${cx + 6 * scale} ${cy + 40 * scale}" stroke="#9a6b52" stroke-width="${s(3)}" fill="none"/>
    <path d="M ${cx - 26 * scale} ${cy + 60 * scale} Q ${cx} ${cy + 74 * scale} ${cx + 26 * scale} ${cy + 60 * scale}" stroke="#a0433b" stroke-width="${s(5)}" fill="none"/>`;
}

function frontSvg(): string {
  const p = PORTRAIT_BOX;
  const label = (x: number, y: number, l: string, v: string) =>
    `<text x="${x}" y="${y}" font-family="DejaVu Sans, sans-serif" font-size="15" fill="#3f5563">${l}</text>
     <text x="${x}" y="${y + 30}" font-family="DejaVu Sans, sans-serif" font-size="26" font-weight="bold" fill="#14232d">${v}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${FRONT.width}" height="${FRONT.height}">
    <defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#dcefe9"/><stop offset="1" stop-color="#b9d8e6"/></linearGradient></defs>
    <rect width="100%" height="100%" rx="36" fill="url(#bg)"/>
    <rect y="0" width="100%" height="110" rx="36" fill="#1f4e6b"/>
    <rect y="70" width="100%" height="40" fill="#1f4e6b"/>
    <text x="48" y="72" font-family="DejaVu Sans, sans-serif" font-size="38" font-weight="bold" fill="#ffffff">IDENTITY CARD · SPECIMEN</text>
    <rect x="${p.left}" y="${p.top}" width="${p.width}" height="${p.height}" fill="#e9eef1"/>
    <svg x="${p.left}" y="${p.top}" width="${p.width}" height="${p.height}">${face(p.width / 2, 170, 1, '#e2b594', '#5a3b26', '#35607c')}</svg>
    ${label(400, 180, 'Surname', SPECIMEN.family_name)}
    ${label(400, 250, 'Given names', SPECIMEN.given_names)}
    ${label(400, 320, 'Date of birth', SPECIMEN.date_of_birth)}
    ${label(700, 320, 'Nationality', SPECIMEN.nationality)}
    ${label(400, 390, 'Document no.', SPECIMEN.document_number)}
    ${label(700, 390, 'Date of expiry', SPECIMEN.expiry_date)}
    <text x="400" y="520" font-family="DejaVu Sans Mono, monospace" font-size="24" fill="#14232d">I&lt;NLDSPECI20142&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;</text>
    <text x="400" y="556" font-family="DejaVu Sans Mono, monospace" font-size="24" fill="#14232d">6503101F3403096NLD&lt;&lt;&lt;&lt;&lt;&lt;&lt;&lt;</text>
    <text x="506" y="470" transform="rotate(-18 506 470)" font-family="DejaVu Sans, sans-serif" font-size="96" font-weight="bold" fill="#c0392b" fill-opacity="0.18">SPECIMEN</text>
  </svg>`;
}

function selfieSvg(): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="720" height="960">
    <defs><radialGradient id="room" cx="0.5" cy="0.4" r="0.8"><stop offset="0" stop-color="#f4efe6"/><stop offset="1" stop-color="#c9c1b3"/></radialGradient></defs>
    <rect width="100%" height="100%" fill="url(#room)"/>
    <rect x="40" y="60" width="180" height="260" fill="#d9d2c4"/>
    ${face(360, 430, 2, '#dfb08d', '#5a3b26', '#8a4f6d')}
    <ellipse cx="360" cy="450" rx="250" ry="330" fill="none" stroke="#ffffff" stroke-width="6" stroke-dasharray="18 14"/>
    <text x="360" y="920" text-anchor="middle" font-family="DejaVu Sans, sans-serif" font-size="30" fill="#ffffff">SYNTHETIC SELFIE · TEST MODE</text>
  </svg>`;
}

/** JPEG bytes of the three synthetic artifacts: metadata-free, baseline JPEG. */
export async function renderSpecimen(): Promise<Record<EvidenceArtifact, Buffer>> {
  const frontPng = await sharp(Buffer.from(frontSvg())).png().toBuffer();
  const [front, portrait, selfie] = await Promise.all([
    sharp(frontPng).jpeg({ quality: 88 }).toBuffer(),
    sharp(frontPng).extract(PORTRAIT_BOX).jpeg({ quality: 90 }).toBuffer(),
    sharp(Buffer.from(selfieSvg())).jpeg({ quality: 85 }).toBuffer(),
  ]);
  return { front, portrait, selfie };
}

let rendered: Promise<Record<EvidenceArtifact, Buffer>> | null = null;

/** The specimen images, drawn once per process. */
export function specimenImages(): Promise<Record<EvidenceArtifact, Buffer>> {
  rendered ??= renderSpecimen().catch((e: unknown) => {
    rendered = null;
    throw e;
  });
  return rendered;
}
