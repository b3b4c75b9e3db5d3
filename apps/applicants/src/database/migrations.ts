import { Init1763780000000 } from './migrations/1763780000000-Init.js';
import { DataSubjectRequests1764400000000 } from './migrations/1764400000000-DataSubjectRequests.js';

export const APPLICANTS_MIGRATIONS = [Init1763780000000, DataSubjectRequests1764400000000];
