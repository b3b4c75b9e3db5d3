import { Init1763780000000 } from './migrations/1763780000000-Init.js';

export const ACCOUNTS_MIGRATIONS = [Init1763780000000];
