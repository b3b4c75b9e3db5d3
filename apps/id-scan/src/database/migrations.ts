import { Init1763800100000 } from './migrations/1763800100000-Init.js';

export const ID_SCAN_MIGRATIONS = [Init1763800100000];
