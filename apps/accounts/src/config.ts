import { configSection, durationEnv, type ServiceConfig } from '@verity/platform';
import { z } from 'zod';
import { parseCheckPrices, type CheckPrices } from './billing/pricing.js';

/** Configuration of the accounts service beyond the platform's (validated at start like the rest). */
export const accountsEnv = {
  /**
   * Prices of the checks of a live verification, `check=price,…` in minor units of the billing currency; a check
   * not named keeps its default (docs/configuration.md). A live session create debits the sum of its checks.
   */
  CHECK_PRICES: z
    .string()
    .default('')
    .superRefine((text, ctx) => {
      const parsed = parseCheckPrices(text);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
    }),
  /**
   * How old an unsettled debit must be before the settle sweep asks whether its session exists (then settles or
   * refunds it). Far above any create's deadline (the gateway's RPC_TIMEOUT_MS, at most 60 s), so that a create
   * still running is never refunded: at least 2 minutes.
   */
  BILLING_SETTLE_AFTER_MS: durationEnv('5m', 120_000, 7 * 86_400_000),
};

/** The section as loaded, with the prices read out of `CHECK_PRICES`. */
export type AccountsConfig = z.infer<z.ZodObject<typeof accountsEnv>> & { prices: CheckPrices };

export const ACCOUNTS_CONFIG = Symbol('ACCOUNTS_CONFIG');

/** The accounts part of a service configuration; defaults apply to what an in-process caller leaves out. */
export function accountsConfigOf(cfg: ServiceConfig): AccountsConfig {
  const section = configSection(accountsEnv, cfg);
  const prices = parseCheckPrices(section.CHECK_PRICES);
  // validated with the rest of the configuration at start: a bad value never gets here
  if (!prices.ok) throw new Error(`CHECK_PRICES: ${prices.message}`);
  return { ...section, prices: prices.value };
}
