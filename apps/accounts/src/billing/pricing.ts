import { CHECK_TYPES, type CheckType } from '@verity/contracts';

/** The price of each check, in minor units of the organization's billing currency. */
export type CheckPrices = Readonly<Record<CheckType, number>>;

/**
 * Default prices (minor units): what a check costs the platform to run, roughly — the provider-backed checks
 * (credit history, signing) dearest, device intelligence cheapest. `CHECK_PRICES` overrides any of them.
 */
export const DEFAULT_CHECK_PRICES: CheckPrices = {
  document: 150,
  face_match: 100,
  liveness: 100,
  credit_history: 300,
  watchlist: 100,
  adverse_media: 100,
  device: 50,
  document_signing: 200,
};

/** The largest price of one check: a million units of the currency (keeps every sum a safe integer). */
const MAX_CHECK_PRICE = 100_000_000;

/**
 * `CHECK_PRICES` as configuration spells it, `check=price,…` (whole minor units, 0 allowed), over the defaults:
 * a check not named keeps its default. An unknown check, a bad price or a check named twice is an error.
 */
export function parseCheckPrices(text: string): { ok: true; value: CheckPrices } | { ok: false; message: string } {
  const prices: Record<CheckType, number> = { ...DEFAULT_CHECK_PRICES };
  const seen = new Set<string>();
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const m = /^([a-z_]+)\s*=\s*([0-9]{1,9})$/.exec(item);
    if (!m) return { ok: false, message: `"${item.slice(0, 40)}" is not check=price (a whole number of minor units)` };
    const [, check, price] = m as unknown as [string, string, string];
    if (!(CHECK_TYPES as readonly string[]).includes(check)) {
      return { ok: false, message: `unknown check "${check}"; checks are ${CHECK_TYPES.join(', ')}` };
    }
    if (seen.has(check)) return { ok: false, message: `check "${check}" is priced twice` };
    seen.add(check);
    const n = Number(price);
    if (n > MAX_CHECK_PRICE) return { ok: false, message: `the price of ${check} is above ${MAX_CHECK_PRICE}` };
    prices[check as CheckType] = n;
  }
  return { ok: true, value: prices };
}

/** The price of a verification: the sum of its checks' prices (a check listed twice is billed once). */
export function priceOf(checks: readonly CheckType[], prices: CheckPrices): number {
  let total = 0;
  for (const c of new Set(checks)) total += prices[c];
  return total;
}

/** Digits of a currency's minor unit (2 for USD and EUR, 0 for JPY); null for a code that is no currency ICU knows. */
export function minorUnitDigits(currency: string): number | null {
  if (!/^[A-Z]{3}$/.test(currency) || !Intl.supportedValuesOf('currency').includes(currency)) return null;
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}
