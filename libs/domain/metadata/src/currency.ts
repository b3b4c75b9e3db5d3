/**
 * ISO 4217 currency codes and their minor units, from the `currency-codes` package (the ISO
 * list of the package's publish date). `currency-codes` is CommonJS: under NodeNext ESM its
 * default import is `module.exports`.
 */
import currencyCodes from 'currency-codes';

/** Upper-case code → number of minor-unit digits (0 for JPY, 2 for USD, 3 for BHD, 4 for CLF). */
const MINOR_UNITS: ReadonlyMap<string, number> = new Map(
  currencyCodes.data.map((record) => [record.code.toUpperCase(), record.digits] as const),
);

/** The ISO 4217 list date of the table in use. */
export const CURRENCY_TABLE_DATE: string = currencyCodes.publishDate;

/** Exactly three ASCII letters, any case. */
export function isThreeLetterCode(code: string): boolean {
  return /^[A-Za-z]{3}$/.test(code);
}

/**
 * Minor-unit digits of an ISO 4217 code, compared case-insensitively (`usd` is USD);
 * `undefined` for a code not in the table.
 */
export function minorUnitsOf(code: string): number | undefined {
  if (!isThreeLetterCode(code)) return undefined;
  return MINOR_UNITS.get(code.toUpperCase());
}

export function isIsoCurrencyCode(code: string): boolean {
  return minorUnitsOf(code) !== undefined;
}

/**
 * A whole number of minor units printed in major units, without float arithmetic:
 * (123456, 2) → `1234.56`; (5, 2) → `0.05`; (1234, 0) → `1234`; (1234567, 3) → `1234.567`.
 * `minor` must be a non-negative safe integer.
 */
export function formatMinorUnits(minor: number, digits: number): string {
  const whole = String(Math.abs(minor)); // -0 → "0"; integers below 1e21 print without exponent
  if (digits === 0) return whole;
  const padded = whole.padStart(digits + 1, '0');
  return `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}
