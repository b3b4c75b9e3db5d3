import { Init1763780000000 } from './migrations/1763780000000-Init.js';
import { DataSubjectRequests1764400000000 } from './migrations/1764400000000-DataSubjectRequests.js';
import { DsarLease1765300000000 } from './migrations/1765300000000-DsarLease.js';

export const APPLICANTS_MIGRATIONS = [Init1763780000000, DataSubjectRequests1764400000000, DsarLease1765300000000];
