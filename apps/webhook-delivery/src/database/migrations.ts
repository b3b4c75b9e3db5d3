import { Init1763820000000 } from './migrations/1763820000000-Init.js';
import { AttemptsLoggedWithOutcome1763900000000 } from './migrations/1763900000000-AttemptsLoggedWithOutcome.js';

export const WEBHOOK_DELIVERY_MIGRATIONS = [Init1763820000000, AttemptsLoggedWithOutcome1763900000000];
