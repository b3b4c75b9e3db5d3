import { SUBJECTS } from '@verity/contracts';
import type { ServiceDefinition } from '@verity/platform';
import { APPLICANTS_MIGRATIONS } from './database/migrations.js';

export const APPLICANTS_SERVICE: ServiceDefinition = {
  name: 'applicants',
  migrations: APPLICANTS_MIGRATIONS,
  healthSubject: SUBJECTS.applicantsHealth,
};
