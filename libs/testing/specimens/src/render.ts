import { execFileSync } from 'node:child_process';
import bwipjs from 'bwip-js';
import sharp from 'sharp';
import { aamvaPayload, JURISDICTIONS } from './aamva.js';
import { documentPortrait, type Person } from './faces.js';
import { td1, td2, td3, type MrzInput, type Transliteration } from './mrz.js';

/** The person a specimen is issued to, as the visual zone prints it. */
export interface Holder {
  /** The whole surname, possibly several words; a mononym goes here. */
  familyName: string;
  givenNames: string[];
  nameSuffix?: string;
  /** `YYYY-MM-DD` */
  dateOfBirth: string;
  sex: 'F' | 'M' | 'X';
  /** ICAO code (three letters, `D` for Germany). Unused on driving licences. */
  nationality: string;
  /** Whose face the document carries. */
  person: Person;
}

export type DocumentKind = 'td3' | 'td1' | 'td2' | 'aamva';

export interface DocumentData {
  kind: DocumentKind;
  /** ICAO issuing state for the MRZ kinds; the jurisdiction (`CA`, `ON`…) for a driving licence. */
  issuer: string;
  number: string;
  issueDate: string;
  expiryDate: string;
  /** MRZ optional data (personal number). */
  optionalData?: string;
  /** The MRZ document code; `P` for TD3 and `ID` for cards by default. */
  documentCode?: string;
}

export interface Specimen {
  holder: Holder;
  document: DocumentData;
}

/** A rendered specimen: PNG images of the sides the document has, and what is encoded on it. */
export interface RenderedSpecimen {
  front: Buffer;
  /** The back, for documents whose machine-readable data is there (TD1 cards, driving licences). */
  back: Buffer | null;
  /** The MRZ lines printed, for the MRZ kinds. */
  mrz: string[] | null;
  /** The barcode's text, for a driving licence. */
  barcode: string | null;
}

/** Pixels per millimetre of every render: about 300 dpi. */
const PX_PER_MM = 12;
/** ICAO 9303: MRZ characters on a 2.54 mm pitch. */
const MRZ_PITCH = 2.54 * PX_PER_MM;

let fontsChecked = false;

/** librsvg silently falls back to another font when one is missing; a specimen without OCR-B would be wrong. */
function assertFonts(): void {
  if (fontsChecked) return;
  const families = execFileSync('fc-list', [':', 'family'], { encoding: 'utf8' });
  for (const f of ['OCR B', 'DejaVu Sans']) {
    if (!families.split('\n').some((l) => l.split(',').includes(f))) {
      throw new Error(`the font "${f}" is not installed: apt-get install -y fonts-ocr-b fonts-dejavu-core`);
    }
  }
  fontsChecked = true;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const MOIS = ['JAN', 'FÉV', 'MARS', 'AVR', 'MAI', 'JUIN', 'JUIL', 'AOÛT', 'SEPT', 'OCT', 'NOV', 'DÉC'];

/**
 * How an issuer prints its visual zone: the labels of the fields compared with the machine-readable data, and
 * its dates. English (`12 AUG 1974`), bilingual English and French (Canada, France: `12 AUG/AOÛT 1974`), German
 * with numbered fields and dotted dates (`12.08.1974`), Dutch.
 */
interface VizStyle {
  surname: string;
  given: string;
  birth: string;
  /** The number's label on a card, and on a passport. */
  number: string;
  passport: string;
  date(iso: string): string;
}

/** `1974-08-12` → `12 AUG 1974`, as most passports print dates. */
function monthName(iso: string): string {
  const [y, m, d] = iso.split('-');
  return `${d} ${MONTHS[Number(m) - 1]} ${y}`;
}

const STYLES: Record<'en' | 'en-fr' | 'de' | 'nl', VizStyle> = {
  en: { surname: 'Surname', given: 'Given names', birth: 'Date of birth', number: 'Document No.', passport: 'Passport No.', date: monthName },
  'en-fr': {
    surname: 'Surname / Nom',
    given: 'Given names / Prénoms',
    birth: 'Date of birth / Date de naissance',
    number: 'Document No. / N° du document',
    passport: 'Passport No. / N° du passeport',
    date: (iso) => {
      const [y, m, d] = iso.split('-');
      return `${d} ${MONTHS[Number(m) - 1]}/${MOIS[Number(m) - 1]} ${y}`;
    },
  },
  de: {
    surname: '1. Name / Surname',
    given: '2. Vornamen / Given names',
    birth: '3. Geburtsdatum / Date of birth',
    number: 'Dokument-Nr. / Document No.',
    passport: 'Pass-Nr. / Passport No.',
    date: (iso) => iso.split('-').reverse().join('.'),
  },
  nl: {
    surname: 'Naam / Surname',
    given: 'Voornamen / Given names',
    birth: 'Geboortedatum / Date of birth',
    number: 'Documentnummer / Document No.',
    passport: 'Paspoortnummer / Passport No.',
    date: monthName,
  },
};

function styleOf(issuer: string): VizStyle {
  if (issuer === 'FRA' || issuer === 'CAN') return STYLES['en-fr'];
  if (issuer === 'D' || issuer === 'AUT') return STYLES.de;
  if (issuer === 'NLD' || issuer === 'BEL') return STYLES.nl;
  return STYLES.en;
}

/** German-speaking issuers write `Ü` as `UE` in the MRZ, as ICAO recommends; the others drop the diacritics. */
export function transliterationOf(issuer: string): Transliteration {
  return issuer === 'D' || issuer === 'AUT' || issuer === 'CHE' ? 'icao' : 'plain';
}

/** One MRZ line, every glyph at its own x on the ICAO pitch (or `pitch`). */
function mrzLine(text: string, x: number, baseline: number, pitch = MRZ_PITCH): string {
  const xs = [...text].map((_, i) => (x + i * pitch).toFixed(2)).join(' ');
  return `<text x="${xs}" y="${baseline}" font-family="OCR B" font-size="${((42 * pitch) / MRZ_PITCH).toFixed(1)}" fill="#111">${esc(text)}</text>`;
}

/** A faint security background: rosettes of ellipses in two colours. */
function guilloche(width: number, height: number, hue: string): string {
  const out: string[] = [];
  for (const [cx, cy] of [
    [width * 0.7, height * 0.45],
    [width * 0.3, height * 0.6],
  ]) {
    for (let a = 0; a < 180; a += 6) {
      out.push(`<ellipse cx="${cx}" cy="${cy}" rx="${width * 0.28}" ry="${height * 0.12}" transform="rotate(${a} ${cx} ${cy})" fill="none" stroke="${hue}" stroke-width="1.2"/>`);
    }
  }
  return out.join('');
}

function field(x: number, y: number, label: string, value: string, size = 30): string {
  return `<text x="${x}" y="${y}" font-family="DejaVu Sans" font-size="17" fill="#4a4a6a">${esc(label)}</text>` +
    `<text x="${x}" y="${y + size + 6}" font-family="DejaVu Sans" font-size="${size}" font-weight="bold" fill="#1a1a1a">${esc(value)}</text>`;
}

function mrzInput(s: Specimen, defaultCode: string): MrzInput {
  return {
    documentCode: s.document.documentCode ?? defaultCode,
    issuingState: s.document.issuer,
    familyName: s.holder.familyName,
    givenNames: s.holder.givenNames,
    number: s.document.number,
    nationality: s.holder.nationality,
    dateOfBirth: s.holder.dateOfBirth,
    sex: s.holder.sex,
    expiryDate: s.document.expiryDate,
    optionalData: s.document.optionalData,
    transliteration: transliterationOf(s.document.issuer),
  };
}

/** What the visual zone prints: the holder's data, or what `RenderOptions.visual` puts in its place. */
function printed(s: Specimen, visual: RenderOptions['visual']): { surname: string; given: string; dob: string; number: string } {
  const v = { familyName: s.holder.familyName, givenNames: s.holder.givenNames, dateOfBirth: s.holder.dateOfBirth, number: s.document.number, ...visual };
  return { surname: v.familyName.toUpperCase(), given: v.givenNames.join(' ').toUpperCase() || '-', dob: v.dateOfBirth, number: v.number };
}

async function page(width: number, height: number, svgBody: string, portrait?: false | { person: Person; left: number; top: number; width: number; height: number }): Promise<Buffer> {
  assertFonts();
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${svgBody}</svg>`;
  const composites = portrait ? [{ input: await documentPortrait(portrait.person, portrait.width, portrait.height), left: portrait.left, top: portrait.top }] : [];
  return sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).composite(composites).png().toBuffer();
}

function td3Page(s: Specimen, lines: string[], face: boolean, visual: RenderOptions['visual']): Promise<Buffer> {
  const w = 125 * PX_PER_MM;
  const h = 88 * PX_PER_MM;
  const { holder: p, document: d } = s;
  const v = printed(s, visual);
  const st = styleOf(d.issuer);
  const body = [
    `<rect width="${w}" height="${h}" fill="#f4f1e8"/>`,
    guilloche(w, h * 0.8, '#dcd3ea'),
    `<rect y="${h - 280}" width="${w}" height="280" fill="#f8f7f2"/>`,
    `<text x="480" y="70" font-family="DejaVu Sans" font-size="38" font-weight="bold" fill="#3b2f6b">PASSPORT</text>`,
    `<text x="900" y="70" font-family="DejaVu Sans" font-size="26" fill="#3b2f6b">SPECIMEN STATE ${esc(d.issuer)}</text>`,
    field(480, 130, 'Type', d.documentCode ?? 'P'),
    field(640, 130, 'Code', d.issuer),
    field(900, 130, st.passport, v.number),
    field(480, 210, st.surname, v.surname),
    field(480, 290, st.given, v.given),
    field(480, 370, 'Nationality', p.nationality),
    field(480, 450, st.birth, st.date(v.dob)),
    field(1000, 450, 'Sex', p.sex),
    field(480, 530, 'Date of issue', st.date(d.issueDate)),
    field(900, 530, 'Date of expiry', st.date(d.expiryDate)),
    field(480, 610, 'Authority', 'MINISTRY OF SPECIMENS', 24),
    `<text x="60" y="${h - 330}" font-family="DejaVu Sans" font-size="22" fill="#b3261e" transform="rotate(-8 300 ${h - 330})">SPECIMEN</text>`,
    mrzLine(lines[0], 60, h - 150),
    mrzLine(lines[1], 60, h - 72),
  ].join('');
  return page(w, h, body, face && { person: p.person, left: 60, top: 120, width: 384, height: 494 });
}

function td2Page(s: Specimen, lines: string[], face: boolean, visual: RenderOptions['visual']): Promise<Buffer> {
  const w = 105 * PX_PER_MM;
  const h = 74 * PX_PER_MM;
  const { holder: p, document: d } = s;
  const v = printed(s, visual);
  const body = [
    `<rect width="${w}" height="${h}" fill="#eef4f1"/>`,
    guilloche(w, h * 0.75, '#cfe3da'),
    `<rect y="${h - 220}" width="${w}" height="220" fill="#f8faf8"/>`,
    `<text x="60" y="60" font-family="DejaVu Sans" font-size="32" font-weight="bold" fill="#1d5a45">IDENTITY CARD · ${esc(d.issuer)}</text>`,
    field(380, 110, 'Surname', v.surname),
    field(380, 190, 'Given names', v.given),
    field(380, 270, 'Date of birth', monthName(v.dob)),
    field(800, 270, 'Sex', p.sex),
    field(380, 350, 'Document No.', v.number),
    field(800, 350, 'Expiry', monthName(d.expiryDate)),
    field(380, 430, 'Nationality', p.nationality, 26),
    mrzLine(lines[0], 70, h - 120),
    mrzLine(lines[1], 70, h - 48),
  ].join('');
  return page(w, h, body, face && { person: p.person, left: 50, top: 90, width: 300, height: 386 });
}

/** ID-1 cards: 85.6 × 54 mm. */
const CARD_W = Math.round(85.6 * PX_PER_MM);
const CARD_H = 54 * PX_PER_MM;

function td1Front(s: Specimen, face: boolean, visual: RenderOptions['visual']): Promise<Buffer> {
  const { holder: p, document: d } = s;
  const v = printed(s, visual);
  const st = styleOf(d.issuer);
  const body = [
    `<rect width="${CARD_W}" height="${CARD_H}" rx="36" fill="#eaf0f8"/>`,
    guilloche(CARD_W, CARD_H, '#c9d8ec'),
    `<text x="40" y="62" font-family="DejaVu Sans" font-size="30" font-weight="bold" fill="#143d73">IDENTITY CARD · ${esc(d.issuer)}</text>`,
    field(330, 110, st.surname, v.surname, 28),
    field(330, 185, st.given, v.given, 28),
    field(330, 260, st.birth, st.date(v.dob), 26),
    field(800, 260, 'Sex', p.sex, 26),
    field(330, 335, 'Nationality', p.nationality, 26),
    field(330, 410, st.number, v.number, 26),
    field(330, 485, 'Date of expiry', st.date(d.expiryDate), 26),
  ].join('');
  return page(CARD_W, CARD_H, body, face && { person: p.person, left: 40, top: 100, width: 260, height: 334 });
}

function td1Back(s: Specimen, lines: string[]): Promise<Buffer> {
  const body = [
    `<rect width="${CARD_W}" height="${CARD_H}" rx="36" fill="#eaf0f8"/>`,
    guilloche(CARD_W, CARD_H * 0.6, '#c9d8ec'),
    `<text x="56" y="90" font-family="DejaVu Sans" font-size="22" fill="#143d73">Date of issue ${esc(monthName(s.document.issueDate))}</text>`,
    `<text x="56" y="130" font-family="DejaVu Sans" font-size="22" fill="#143d73">Issuing authority: Office of Specimens</text>`,
    `<rect y="${CARD_H - 250}" width="${CARD_W}" height="250" fill="#f7f9fc"/>`,
    mrzLine(lines[0], 56, CARD_H - 170),
    mrzLine(lines[1], 56, CARD_H - 104),
    mrzLine(lines[2], 56, CARD_H - 38),
  ].join('');
  return page(CARD_W, CARD_H, body);
}

function aamvaFront(s: Specimen, face: boolean, visual: RenderOptions['visual']): Promise<Buffer> {
  const { holder: p, document: d } = s;
  const v = { familyName: p.familyName, givenNames: p.givenNames, dateOfBirth: p.dateOfBirth, number: d.number, ...visual };
  const j = JURISDICTIONS[d.issuer];
  // some states number the fields as the AAMVA card design standard does (4d, 3, 1, 2)
  const n = (no: string, label: string) => (d.issuer === 'NY' || d.issuer === 'TX' ? `${no} ${label}` : label);
  const us = j.country === 'USA';
  const date = (iso: string) => (us ? `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}` : iso.replace(/-/g, '/'));
  const [first = '', ...middle] = v.givenNames;
  const body = [
    `<rect width="${CARD_W}" height="${CARD_H}" rx="36" fill="#f3efe2"/>`,
    guilloche(CARD_W, CARD_H, '#e2d9bd'),
    `<text x="40" y="62" font-family="DejaVu Sans" font-size="32" font-weight="bold" fill="#7a1f1f">${esc(j.name.toUpperCase())}</text>`,
    `<text x="560" y="62" font-family="DejaVu Sans" font-size="26" fill="#7a1f1f">DRIVER LICENSE</text>`,
    field(330, 100, n('4d', 'DL'), v.number, 28),
    field(330, 170, n('4b', 'EXP'), date(d.expiryDate), 26),
    field(640, 170, n('3', 'DOB'), date(v.dateOfBirth), 26),
    field(330, 240, n('1', 'LN'), v.familyName.toUpperCase() + (p.nameSuffix ? ` ${p.nameSuffix.toUpperCase()}` : ''), 26),
    field(330, 310, n('2', 'FN'), [first, ...middle].join(' ').toUpperCase(), 26),
    field(330, 380, 'SEX', p.sex, 26),
    field(640, 380, 'ISS', date(d.issueDate), 26),
    `<text x="330" y="520" font-family="DejaVu Sans" font-size="20" fill="#333">2570 24TH STREET, ANYTOWN</text>`,
  ].join('');
  return page(CARD_W, CARD_H, body, face && { person: p.person, left: 40, top: 100, width: 260, height: 334 });
}

async function aamvaBack(payload: string): Promise<Buffer> {
  // pdf417's own options (columns, error correction, row height) are not in bwip-js's types
  const options = { bcid: 'pdf417', text: payload, columns: 13, eclevel: 5, rowmult: 3, scale: 2, backgroundcolor: 'FFFFFF' };
  const symbol = await bwipjs.toBuffer(options);
  const meta = await sharp(symbol).metadata();
  const maxW = CARD_W - 80;
  const scaled = meta.width > maxW ? await sharp(symbol).resize({ width: maxW, kernel: 'nearest' }).png().toBuffer() : symbol;
  const sm = await sharp(scaled).metadata();
  const body = [
    `<rect width="${CARD_W}" height="${CARD_H}" rx="36" fill="#f3efe2"/>`,
    `<text x="40" y="60" font-family="DejaVu Sans" font-size="20" fill="#555">This licence is the property of the issuing jurisdiction.</text>`,
  ].join('');
  const base = await page(CARD_W, CARD_H, body);
  return sharp(base)
    .composite([{ input: scaled, left: Math.round((CARD_W - sm.width) / 2), top: Math.max(90, Math.round((CARD_H - sm.height) / 2) + 30) }])
    .png()
    .toBuffer();
}

/** Ways to spoil a specimen on purpose, for tests of what a reader refuses. */
export interface RenderOptions {
  /** Changes the MRZ lines before they are printed (a wrong check digit, a visa's document code…). */
  mrz?: (lines: string[]) => string[];
  /** false: the portrait's place is left empty. */
  portrait?: boolean;
  /** What the visual zone prints instead of the holder's data (an altered page, another person's front). */
  visual?: { familyName?: string; givenNames?: string[]; dateOfBirth?: string; number?: string };
}

/** Renders a specimen at about 300 dpi. */
export async function renderSpecimen(s: Specimen, options: RenderOptions = {}): Promise<RenderedSpecimen> {
  const printed = (lines: string[]) => (options.mrz ? options.mrz(lines) : lines);
  const face = options.portrait ?? true;
  const visual = options.visual;
  switch (s.document.kind) {
    case 'td3': {
      const lines = printed(td3(mrzInput(s, 'P')));
      return { front: await td3Page(s, lines, face, visual), back: null, mrz: lines, barcode: null };
    }
    case 'td2': {
      const lines = printed(td2(mrzInput(s, 'ID')));
      return { front: await td2Page(s, lines, face, visual), back: null, mrz: lines, barcode: null };
    }
    case 'td1': {
      const lines = printed(td1(mrzInput(s, 'ID')));
      const [front, back] = await Promise.all([td1Front(s, face, visual), td1Back(s, lines)]);
      return { front, back, mrz: lines, barcode: null };
    }
    case 'aamva': {
      const payload = aamvaPayload({
        jurisdiction: s.document.issuer,
        familyName: s.holder.familyName,
        givenNames: s.holder.givenNames,
        nameSuffix: s.holder.nameSuffix,
        dateOfBirth: s.holder.dateOfBirth,
        sex: s.holder.sex,
        number: s.document.number,
        issueDate: s.document.issueDate,
        expiryDate: s.document.expiryDate,
      });
      const [front, back] = await Promise.all([aamvaFront(s, face, visual), aamvaBack(payload)]);
      return { front, back, mrz: null, barcode: payload };
    }
  }
}

/** A4 paper, 297 × 210 mm, landscape. */
const A4 = { width: 297 * PX_PER_MM, height: 210 * PX_PER_MM };

export interface PaperOptions {
  /** `real`: the MRZ at its true size (2.54 mm pitch); `fill`: stretched across 90 % of the sheet, at its foot. */
  size: 'real' | 'fill';
  /** A face printed beside it, where a passport has its portrait. */
  face?: Person;
}

/**
 * An attack, not a document: a specimen's machine-readable zone (valid check digits and all) printed alone on a
 * sheet of white A4 paper, landscape, optionally with a face beside it. A PNG, to be photographed on a desk.
 */
export async function mrzOnPaper(s: Specimen, o: PaperOptions): Promise<Buffer> {
  const lines = s.document.kind === 'td1' ? td1(mrzInput(s, 'ID')) : s.document.kind === 'td2' ? td2(mrzInput(s, 'ID')) : td3(mrzInput(s, 'P'));
  const pitch = o.size === 'real' ? MRZ_PITCH : (A4.width * 0.9) / lines[0].length;
  const x = (A4.width - pitch * lines[0].length) / 2;
  const step = pitch * 2.4;
  const bottom = o.size === 'real' ? A4.height * 0.6 : A4.height - pitch * 2;
  const body = [`<rect width="${A4.width}" height="${A4.height}" fill="#fbfbf8"/>`, ...lines.map((l, i) => mrzLine(l, x, bottom - (lines.length - 1 - i) * step, pitch))].join('');
  const faceHeight = Math.round(A4.height * 0.45);
  return page(A4.width, A4.height, body, o.face && { person: o.face, left: Math.round(x), top: Math.round(A4.height * 0.08), width: Math.round(faceHeight * 0.78), height: faceHeight });
}
