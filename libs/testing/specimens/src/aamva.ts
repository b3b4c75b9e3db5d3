/**
 * The text of a US or Canadian driving licence's PDF417 barcode, as the AAMVA DL/ID Card Design Standard
 * (2020, version 10) lays it out: a header, one subfile designator per subfile, then the `DL` subfile of data
 * elements (three-letter ids, each ended by a line feed) and a jurisdiction subfile.
 */

/** Issuer identification numbers of a few jurisdictions (AAMVA's IIN table). */
export const JURISDICTIONS: Record<string, { iin: string; country: 'USA' | 'CAN'; name: string }> = {
  CA: { iin: '636014', country: 'USA', name: 'California' },
  NY: { iin: '636001', country: 'USA', name: 'New York' },
  TX: { iin: '636015', country: 'USA', name: 'Texas' },
  WA: { iin: '636045', country: 'USA', name: 'Washington' },
  ON: { iin: '636012', country: 'CAN', name: 'Ontario' },
  BC: { iin: '636028', country: 'CAN', name: 'British Columbia' },
};

export interface AamvaInput {
  jurisdiction: keyof typeof JURISDICTIONS | string;
  familyName: string;
  givenNames: readonly string[];
  nameSuffix?: string;
  dateOfBirth: string;
  sex: 'F' | 'M' | 'X';
  number: string;
  issueDate: string;
  expiryDate: string;
  street?: string;
  city?: string;
  postalCode?: string;
}

/** AAMVA dates: MMDDCCYY in the United States, CCYYMMDD in Canada. */
function aamvaDate(iso: string, country: 'USA' | 'CAN'): string {
  const [y, m, d] = iso.split('-');
  return country === 'USA' ? m + d + y : y + m + d;
}

const SEX: Record<AamvaInput['sex'], string> = { M: '1', F: '2', X: '9' };

function upper(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase();
}

export function aamvaPayload(d: AamvaInput): string {
  const j = JURISDICTIONS[d.jurisdiction];
  if (!j) throw new Error(`unknown jurisdiction ${d.jurisdiction}`);
  const [first = '', ...middle] = d.givenNames;
  const elements: [string, string][] = [
    ['DCA', 'C'],
    ['DCB', 'NONE'],
    ['DCD', 'NONE'],
    ['DBA', aamvaDate(d.expiryDate, j.country)],
    ['DCS', upper(d.familyName)],
    ['DAC', upper(first)],
    ['DAD', middle.length ? upper(middle.join(',')) : 'NONE'],
    ['DBD', aamvaDate(d.issueDate, j.country)],
    ['DBB', aamvaDate(d.dateOfBirth, j.country)],
    ['DBC', SEX[d.sex]],
    ['DAY', 'BRO'],
    ['DAU', '067 IN'],
    ['DAG', upper(d.street ?? '2570 24TH STREET')],
    ['DAI', upper(d.city ?? 'ANYTOWN')],
    ['DAJ', d.jurisdiction],
    ['DAK', d.postalCode ?? '958160000  '],
    ['DAQ', d.number],
    ['DCF', '83D9BN217QO983B1'],
    ['DCG', j.country],
    ['DDE', 'N'],
    ['DDF', 'N'],
    ['DDG', 'N'],
  ];
  if (d.nameSuffix) elements.push(['DCU', upper(d.nameSuffix)]);
  const dl = 'DL' + elements.map(([id, v]) => id + v).join('\n') + '\r';
  const z = `Z${d.jurisdiction[0]}Z${d.jurisdiction[0]}AN\r`;
  const subfiles: [string, string][] = [
    ['DL', dl],
    [`Z${d.jurisdiction[0]}`, z],
  ];
  const headerLength = 21 + 10 * subfiles.length;
  let offset = headerLength;
  let designators = '';
  for (const [type, body] of subfiles) {
    designators += type + String(offset).padStart(4, '0') + String(body.length).padStart(4, '0');
    offset += body.length;
  }
  const header = `@\n\x1e\rANSI ${j.iin}1000${String(subfiles.length).padStart(2, '0')}`;
  return header + designators + subfiles.map(([, b]) => b).join('');
}
