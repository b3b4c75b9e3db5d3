import type { Person } from './faces.js';
import type { DocumentKind, Specimen } from './render.js';

/**
 * Holders chosen for what they make a reader prove: several given names, a family name of several words, a
 * mononym, diacritics and apostrophes, a hyphen, a name long enough to be truncated, a suffix on a licence.
 */
const HOLDERS: Omit<Specimen['holder'], 'person'>[] = [
  { familyName: 'Eriksson', givenNames: ['Anna', 'Maria'], dateOfBirth: '1974-08-12', sex: 'F', nationality: 'SWE' },
  { familyName: 'De Bruijn', givenNames: ['Willeke', 'Liselotte'], dateOfBirth: '1965-03-10', sex: 'F', nationality: 'NLD' },
  { familyName: 'Ramírez García', givenNames: ['José', 'Luis'], dateOfBirth: '1990-11-30', sex: 'M', nationality: 'ESP' },
  { familyName: 'Sukarno', givenNames: [], dateOfBirth: '1951-06-06', sex: 'M', nationality: 'IDN' },
  { familyName: "O'Connor-Hale", givenNames: ['Siobhan'], dateOfBirth: '2001-01-01', sex: 'F', nationality: 'IRL' },
  { familyName: 'Müller', givenNames: ['Jürgen', 'Karl', 'Friedrich'], dateOfBirth: '1958-02-28', sex: 'M', nationality: 'D' },
  { familyName: 'Nguyen', givenNames: ['Thi', 'Minh', 'Anh'], dateOfBirth: '1988-07-04', sex: 'X', nationality: 'CAN' },
  { familyName: 'Van Der Berg', givenNames: ['Pieter'], dateOfBirth: '1979-12-31', sex: 'M', nationality: 'BEL' },
  { familyName: 'Okonkwo', givenNames: ['Chiamaka'], dateOfBirth: '1995-05-17', sex: 'F', nationality: 'NGA' },
  { familyName: 'Tanaka', givenNames: ['Hiroshi'], dateOfBirth: '1969-09-09', sex: 'M', nationality: 'JPN' },
];

const ISSUERS: Record<DocumentKind, string[]> = {
  td3: ['UTO', 'NLD', 'FRA', 'GBR', 'D', 'CAN'],
  td1: ['NLD', 'D', 'ESP', 'BEL', 'UTO'],
  td2: ['ROU', 'UTO', 'SWE', 'LVA'],
  aamva: ['CA', 'NY', 'TX', 'WA', 'ON', 'BC'],
};

const NUMBER_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

function pick<T>(xs: readonly T[], i: number): T {
  return xs[i % xs.length];
}

function addYears(iso: string, years: number): string {
  const [y, m, d] = iso.split('-');
  return `${Number(y) + years}-${m}-${d === '29' && m === '02' ? '28' : d}`;
}

/**
 * The `i`-th specimen of a kind: a different holder, issuer, number and person each time, valid for ten years
 * from an issue date in the last few years (so not expired on `today`).
 */
export function catalogueSpecimen(kind: DocumentKind, i: number, today = new Date().toISOString().slice(0, 10)): Specimen {
  const holder = { ...pick(HOLDERS, i * 3 + kind.charCodeAt(1)), person: pick<Person>(['collins', 'hopper'], i) };
  let number = '';
  for (let k = 0; k < (kind === 'aamva' ? 8 : 9); k++) number += NUMBER_CHARS[(i * 7 + k * 13 + kind.charCodeAt(1)) % NUMBER_CHARS.length];
  if (kind === 'aamva') number = String.fromCharCode(65 + (i % 26)) + number.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) % 10)).slice(0, 7);
  const issueDate = addYears(today, -1 - (i % 4));
  return {
    holder,
    document: { kind, issuer: pick(ISSUERS[kind], i), number, issueDate, expiryDate: addYears(issueDate, 10) },
  };
}
