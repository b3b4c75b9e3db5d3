import countries from 'i18n-iso-countries';

/** What a document is, as the ID-scan answer names it. */
export type DocumentType = 'passport' | 'identity_card' | 'driver_license';

/** Where the data was read from. */
export type DocumentFormat = 'TD1' | 'TD2' | 'TD3' | 'AAMVA';

/**
 * What holds against a read. Each is explicit in results and documented in docs/reading.md.
 * - `document_not_found`: no document of the format the data belongs to is around it (no outline, the wrong
 *   proportions, the zone or barcode not where or not the size the format puts it, nothing printed where the
 *   holder's data goes): a zone printed on paper, a barcode on a screen.
 * - `data_mismatch`: the front's printed names, date of birth or document number clearly disagree with the
 *   machine-readable data (another person's front, an altered page).
 * - `printed_data_unreadable`: the printed data could not be read well enough to tie it to the
 *   machine-readable data (blur, glare, the front missing), so nothing shows that the portrait is the holder's.
 * - `expired`: the expiry date has passed.
 * - `unknown_issuing_state`: the issuer's code is not a country (ICAO's `UTO` specimen state, or a misprint).
 * - `unknown_nationality`: the holder's nationality code is not a country (stateless `XXA`, refugee `XXB`…).
 * - `date_of_birth_invalid`: the date of birth is in the future or more than 130 years ago.
 */
export type ReadReason =
  | 'document_not_found'
  | 'data_mismatch'
  | 'printed_data_unreadable'
  | 'expired'
  | 'unknown_issuing_state'
  | 'unknown_nationality'
  | 'date_of_birth_invalid';

export interface DocumentFields {
  type: DocumentType;
  format: DocumentFormat;
  /** ISO 3166-1 alpha-2, or null when the issuer is not a country. */
  issuing_country: string | null;
  number: string;
  /** `YYYY-MM-DD` */
  expiry_date: string;
}

export interface HolderFields {
  /** The primary identifier: possibly several words, a mononym whole. As printed (MRZ and AAMVA are upper case). */
  family_name: string;
  /** The secondary identifiers, in order; empty for a mononym. */
  given_names: string[];
  name_suffix: string | null;
  /** `YYYY-MM-DD` */
  date_of_birth: string;
  /** ISO 3166-1 alpha-2, or null when not a country. */
  nationality: string | null;
  sex: 'F' | 'M' | 'X' | null;
}

/** A document whose machine-readable data was read, every check digit holding. */
export interface DocumentRead {
  document: DocumentFields;
  holder: HolderFields;
  reasons: ReadReason[];
}

/** ICAO 9303 part 3 codes that are not ISO 3166 alpha-3 but name a country. */
const ICAO_CODES: Record<string, string> = {
  D: 'DE',
  GBD: 'GB',
  GBN: 'GB',
  GBO: 'GB',
  GBP: 'GB',
  GBS: 'GB',
  RKS: 'XK',
};

/** An ICAO (MRZ) state code as ISO 3166-1 alpha-2, or null when it names no country. */
export function countryOfIcao(code: string): string | null {
  const c = code.replace(/</g, '');
  return ICAO_CODES[c] ?? countries.alpha3ToAlpha2(c) ?? null;
}

/** `YYMMDD` of an MRZ as `YYYY-MM-DD`: a birth date is in the past; an expiry within 50 years of `today`. */
export function mrzDate(yymmdd: string, kind: 'birth' | 'expiry', today: string): string | null {
  if (!/^\d{6}$/.test(yymmdd)) return null;
  const yy = Number(yymmdd.slice(0, 2));
  const thisYear = Number(today.slice(0, 4));
  const century = Math.floor(thisYear / 100) * 100;
  let year = century + yy;
  if (kind === 'birth' && `${year}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}` > today) year -= 100;
  if (kind === 'expiry' && year > thisYear + 50) year -= 100;
  return isoDate(year, Number(yymmdd.slice(2, 4)), Number(yymmdd.slice(4, 6)));
}

/** A real calendar date as `YYYY-MM-DD`, or null. */
export function isoDate(year: number, month: number, day: number): string | null {
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return d.toISOString().slice(0, 10);
}

/** The reasons that hold for a read made `today` (`YYYY-MM-DD`), in a stable order. */
export function reasonsFor(read: Omit<DocumentRead, 'reasons'>, issuerKnown: boolean, nationalityKnown: boolean, today: string): ReadReason[] {
  const reasons: ReadReason[] = [];
  if (read.document.expiry_date < today) reasons.push('expired');
  if (!issuerKnown) reasons.push('unknown_issuing_state');
  if (!nationalityKnown) reasons.push('unknown_nationality');
  const dob = read.holder.date_of_birth;
  if (dob > today || Number(dob.slice(0, 4)) < Number(today.slice(0, 4)) - 130) reasons.push('date_of_birth_invalid');
  return reasons;
}
