import { Init1763790000000 } from './migrations/1763790000000-Init.js';

export const SESSIONS_MIGRATIONS = [Init1763790000000];
