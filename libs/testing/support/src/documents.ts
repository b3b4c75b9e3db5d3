import type { PhotoOptions, Specimen } from '@verity/specimens';

/**
 * Phone photos of generated identity documents, for tests of the live ID scan, with the answer a scan of them
 * must give. The specimen generator (and sharp) is loaded on first use only, so importing the testing library
 * does not load it.
 */

async function specimens() {
  return import('@verity/specimens');
}

/** ISO 3166-1 alpha-2 of the ICAO codes the specimen catalogue uses; `UTO` (ICAO's specimen state) is no country. */
const ALPHA2: Record<string, string | null> = {
  UTO: null,
  NLD: 'NL',
  FRA: 'FR',
  GBR: 'GB',
  D: 'DE',
  CAN: 'CA',
  ESP: 'ES',
  BEL: 'BE',
  ROU: 'RO',
  SWE: 'SE',
  FIN: 'FI',
  LVA: 'LV',
  IDN: 'ID',
  IRL: 'IE',
  JPN: 'JP',
  NGA: 'NG',
};

function alpha2(icao: string): string | null {
  if (!(icao in ALPHA2)) throw new Error(`no alpha-2 code known for ${icao}: add it to ALPHA2`);
  return ALPHA2[icao]!;
}

/** The document and holder of a 200 from POST /v1/id-verification. */
export interface ScannedDocument {
  document: { type: string; issuing_country: string | null; number: string; expiry_date: string };
  holder: { family_name: string; given_names: string[]; date_of_birth: string; nationality: string | null };
}

export interface DocumentPhotos {
  /** JPEG phone photos of the document's sides; `back` for the documents whose data is there (TD1, AAMVA). */
  front: Buffer;
  back: Buffer | null;
  /** What a scan of them answers: the fields as the document's machine-readable data encodes them. */
  expected: ScannedDocument;
}

/** Renders `s` and photographs each side (`photo` as `photograph` of `@verity/specimens` takes it; a 12 MP photo unless told). */
export async function photographDocument(s: Specimen, photo: PhotoOptions = {}): Promise<DocumentPhotos> {
  const { renderSpecimen, photograph, expectedRead, JURISDICTIONS } = await specimens();
  const page = await renderSpecimen(s);
  const [front, back] = await Promise.all([photograph(page.front, photo), page.back ? photograph(page.back, { ...photo, seed: (photo.seed ?? 1) + 1 }) : null]);
  const e = expectedRead(s);
  const licence = s.document.kind === 'aamva';
  const issuing_country = licence ? (JURISDICTIONS[s.document.issuer]!.country === 'USA' ? 'US' : 'CA') : alpha2(s.document.issuer);
  return {
    front,
    back,
    expected: {
      document: { type: e.type, issuing_country, number: e.number, expiry_date: e.expiry_date },
      holder: { family_name: e.family_name, given_names: e.given_names, date_of_birth: e.date_of_birth, nationality: licence ? null : alpha2(s.holder.nationality) },
    },
  };
}

/** A phone photo of a blank card: no machine-readable data anywhere. */
export async function photographBlankPage(photo: PhotoOptions = {}): Promise<Buffer> {
  const [{ photograph }, sharp] = await Promise.all([specimens(), import('sharp')]);
  const page = await sharp.default({ create: { width: 1027, height: 648, channels: 3, background: '#f4f1ea' } }).png().toBuffer();
  return photograph(page, photo);
}
