import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse as parseAamva } from 'aamva-parser';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';
import { isoDate, reasonsFor, type DocumentRead } from './fields.js';
import type { Box, Grey } from './raster.js';

const require = createRequire(import.meta.url);

let prepared = false;

/**
 * zxing's WebAssembly, from the installed `zxing-wasm` package. Its default loader fetches the module from a CDN,
 * in Node too; handing it the bytes is what keeps the reader offline. The module is instantiated by the first
 * `readBarcodes`, so a failure to load it reaches that read's caller.
 */
function prepare(): void {
  if (prepared) return;
  const wasm = readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm'));
  prepareZXingModule({ overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) } });
  prepared = true;
}

/** A PDF417 symbol read: its text and its bounding box in the page's pixels. */
export interface Pdf417 {
  text: string;
  box: Box;
}

/** The first PDF417 symbol in a straightened page, or null. */
export async function readPdf417(page: Grey): Promise<Pdf417 | null> {
  prepare();
  const rgba = new Uint8ClampedArray(page.width * page.height * 4);
  for (let i = 0, j = 0; i < page.data.length; i++, j += 4) {
    rgba[j] = rgba[j + 1] = rgba[j + 2] = page.data[i];
    rgba[j + 3] = 255;
  }
  const [hit] = await readBarcodes(
    { data: rgba, width: page.width, height: page.height, colorSpace: 'srgb' },
    // 'Plain': the default text mode writes line feeds as the literal text "<LF>"
    { formats: ['PDF417'], tryHarder: true, tryRotate: true, maxNumberOfSymbols: 1, textMode: 'Plain' },
  );
  if (!hit?.isValid) return null;
  const corners = [hit.position.topLeft, hit.position.topRight, hit.position.bottomRight, hit.position.bottomLeft];
  const xs = corners.map((p) => p.x), ys = corners.map((p) => p.y);
  const box = { left: Math.min(...xs), top: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
  return { text: hit.text, box };
}

/** The AAMVA DL/ID header that opens a licence's barcode text: `@`, LF, RS, CR, then `ANSI ` (or `AAMVA`). */
const AAMVA_HEADER = /^@\n\x1e\r(ANSI |AAMVA)/;

const COUNTRY: Record<string, string> = { USA: 'US', CAN: 'CA' };

/**
 * A date element: MMDDCCYY in the United States, CCYYMMDD in Canada (the parser reads every date the US way), else
 * the parser's date.
 */
function dateOf(raw: string | null, canadian: boolean, parsed: Date | null | undefined): string | null {
  if (raw && /^\d{8}$/.test(raw)) {
    const [y, m, d] = canadian ? [raw.slice(0, 4), raw.slice(4, 6), raw.slice(6, 8)] : [raw.slice(4, 8), raw.slice(0, 2), raw.slice(2, 4)];
    return isoDate(Number(y), Number(m), Number(d));
  }
  return parsed ? isoDate(parsed.getFullYear(), parsed.getMonth() + 1, parsed.getDate()) : null;
}

/** One data element of the barcode text by its three-letter id (the parser maps some of them lossily). */
function element(text: string, id: string): string | null {
  const m = new RegExp(`[\\n\\r]${id}([^\\n\\r]*)`).exec(text);
  const v = m?.[1].trim();
  return v ? v : null;
}

/** Splits "JOHN,PAUL" or "JOHN PAUL" into names; AAMVA's "NONE" means there are none. */
function names(v: string | null): string[] {
  if (!v || v === 'NONE' || v === 'unavl' || v === 'unavail') return [];
  return v.split(/[,\s]+/).filter(Boolean);
}

/**
 * A licence's barcode text as a read, or null when it is not an AAMVA licence or lacks a name, a number or a
 * date. Parsed by `aamva-parser`; the names and the suffix come from their elements verbatim (DCS family name,
 * DAC first name, DAD middle names, DCU suffix).
 */
export function parseLicence(text: string, today: string): DocumentRead | null {
  if (!AAMVA_HEADER.test(text)) return null;
  const p = parseAamva(text);
  const family = element(text, 'DCS') ?? p.lastName ?? null;
  const given = [...names(element(text, 'DAC') ?? p.firstName ?? null), ...names(element(text, 'DAD'))];
  const number = element(text, 'DAQ') ?? p.driversLicenseId ?? null;
  const country = COUNTRY[element(text, 'DCG') ?? ''] ?? (p.country === 'Canada' ? 'CA' : p.country === 'United States' ? 'US' : null);
  const dob = dateOf(element(text, 'DBB'), country === 'CA', p.dateOfBirth);
  const expiry = dateOf(element(text, 'DBA'), country === 'CA', p.expirationDate);
  if (!family || !dob || !expiry || !number) return null;
  const sex = element(text, 'DBC');
  const read: Omit<DocumentRead, 'reasons'> = {
    document: { type: 'driver_license', format: 'AAMVA', issuing_country: country, number, expiry_date: expiry },
    holder: {
      family_name: family,
      given_names: given,
      name_suffix: element(text, 'DCU'),
      date_of_birth: dob,
      nationality: null, // a licence does not say
      sex: sex === '1' ? 'M' : sex === '2' ? 'F' : sex === '9' ? 'X' : null,
    },
  };
  return { ...read, reasons: reasonsFor(read, country !== null, true, today) };
}
