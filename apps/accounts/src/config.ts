import { availableParallelism } from 'node:os';
import { SUBJECTS } from '@verity/contracts';
import { durationEnv, type ServiceConfigOf, type ServiceDefinition } from '@verity/platform';
import { z } from 'zod';
import { minorUnitDigits, parseCheckPrices } from './billing/pricing.js';
import { isTotpKey } from './console/totp-box.js';
import { ACCOUNTS_MIGRATIONS } from './database/migrations.js';

/** Configuration of the accounts service beyond the platform's (validated at start like the rest). */
export const accountsEnv = {
  /**
   * Prices of the checks of a live verification, `check=price,…` in minor units of the billing currency; a check
   * not named keeps its default (docs/configuration.md). A live session create debits the sum of its checks.
   */
  CHECK_PRICES: z
    .string()
    .default('')
    .transform((text, ctx) => {
      const parsed = parseCheckPrices(text);
      if (parsed.ok) return parsed.value;
      ctx.addIssue({ code: 'custom', message: parsed.message });
      return z.NEVER;
    }),
  /**
   * The currency of prices and wallets (ISO 4217): every amount is whole minor units of it (cents of USD, yen of JPY).
   * Shown with them on the console's Billing page and in `admin org get`; it converts nothing.
   */
  BILLING_CURRENCY: z
    .string()
    .default('USD')
    .transform((v) => v.trim().toUpperCase())
    .refine((v) => /^[A-Z]{3}$/.test(v) && minorUnitDigits(v) !== null, { message: 'BILLING_CURRENCY is an ISO 4217 currency code, such as USD or EUR' }),
  /**
   * How old an unsettled debit must be before the settle sweep asks whether its session exists (then settles or
   * refunds it). Far above any create's deadline (the gateway's RPC_TIMEOUT_MS, at most 60 s), so that a create
   * still running is never refunded: at least 2 minutes.
   */
  BILLING_SETTLE_AFTER_MS: durationEnv('5m', 120_000, 7 * 86_400_000),
  /**
   * Console sign-ins whose password is checked at once (Argon2id: about 20 MiB and tens of milliseconds of a core
   * each); defaults to the number of cores.
   */
  CONSOLE_PASSWORD_CHECKS: z.coerce.number().int().min(1).max(64).default(availableParallelism()),
  /** Sign-ins that wait for a password check; one more is refused at once (503), as is one that waits 5 s. */
  CONSOLE_PASSWORD_CHECKS_WAITING: z.coerce.number().int().min(0).max(1024).default(16),
  /**
   * The AES-256-GCM key that encrypts console TOTP secrets at rest: 32 bytes, standard base64 (`openssl rand -base64
   * 32`). Required; changing it makes every enrolled person's secret unreadable (docs/configuration.md).
   */
  CONSOLE_TOTP_KEY: z.string().refine(isTotpKey, 'must be 32 bytes in standard base64 (openssl rand -base64 32)'),
};

export const ACCOUNTS_SERVICE: ServiceDefinition<typeof accountsEnv> = {
  name: 'accounts',
  migrations: ACCOUNTS_MIGRATIONS,
  healthSubject: SUBJECTS.accountsHealth,
  env: accountsEnv,
};

/** What `CONFIG` holds in this service: the platform's variables and the ones above, as loaded. */
export type AccountsConfig = ServiceConfigOf<typeof accountsEnv>;
