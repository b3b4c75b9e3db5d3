import { Init1763800000000 } from './migrations/1763800000000-Init.js';

export const EVIDENCE_MIGRATIONS = [Init1763800000000];
