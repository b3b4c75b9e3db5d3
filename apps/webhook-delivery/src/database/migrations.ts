import { Init1763820000000 } from './migrations/1763820000000-Init.js';

export const WEBHOOK_DELIVERY_MIGRATIONS = [Init1763820000000];
