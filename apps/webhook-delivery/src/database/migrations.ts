import { Init1763820000000 } from './migrations/1763820000000-Init.js';
import { LeanerLedger1763900000000 } from './migrations/1763900000000-LeanerLedger.js';

export const WEBHOOK_DELIVERY_MIGRATIONS = [Init1763820000000, LeanerLedger1763900000000];
