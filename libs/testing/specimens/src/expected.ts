import { mrzText, type Transliteration } from './mrz.js';
import { transliterationOf } from './render.js';
import type { Specimen } from './render.js';

/** What a reader must return for a specimen: the fields as its machine-readable data encodes them. */
export interface ExpectedRead {
  type: 'passport' | 'identity_card' | 'driver_license';
  number: string;
  expiry_date: string;
  family_name: string;
  given_names: string[];
  name_suffix: string | null;
  date_of_birth: string;
  sex: 'F' | 'M' | 'X';
}

/** As the MRZ spells a name: transliterated, upper case, separators as single spaces. */
function mrzSpelling(s: string, style: Transliteration): string {
  return mrzText(s, style).replace(/</g, ' ').trim();
}

function upper(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase();
}

export function expectedRead(s: Specimen): ExpectedRead {
  const { holder: h, document: d } = s;
  const licence = d.kind === 'aamva';
  const style = transliterationOf(d.issuer);
  return {
    type: licence ? 'driver_license' : d.kind === 'td3' ? 'passport' : 'identity_card',
    number: d.number,
    expiry_date: d.expiryDate,
    family_name: licence ? upper(h.familyName) : mrzSpelling(h.familyName, style),
    // a given name of several words is several secondary identifiers in an MRZ
    given_names: licence ? h.givenNames.map(upper) : h.givenNames.flatMap((g) => mrzSpelling(g, style).split(' ')),
    name_suffix: licence && h.nameSuffix ? upper(h.nameSuffix) : null,
    date_of_birth: h.dateOfBirth,
    sex: h.sex,
  };
}
