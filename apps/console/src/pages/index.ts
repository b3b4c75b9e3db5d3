import type { ConsoleApp } from '../app.js';
import { registerKeys } from './keys.js';
import { registerReview } from './review.js';
import { registerTestData } from './test-data.js';
import { registerVerifications } from './verifications.js';
import { registerLogs } from './logs.js';
import { registerUsage } from './usage.js';
import { registerBilling } from './billing.js';
import { registerWebhooks } from './webhooks.js';
import { registerUsers } from './users.js';
import { registerAccount } from './account.js';
import { registerTwoFactor } from './two-factor.js';

/** Every page of the console (docs/console.md); each module registers its own routes. */
export function registerPages(app: ConsoleApp): void {
  registerVerifications(app);
  registerReview(app);
  registerKeys(app);
  registerTestData(app);
  registerWebhooks(app);
  registerLogs(app);
  registerUsage(app);
  registerBilling(app);
  registerUsers(app);
  registerAccount(app);
  registerTwoFactor(app);
}
