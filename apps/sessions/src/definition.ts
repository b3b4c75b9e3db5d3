import { SUBJECTS } from '@verity/contracts';
import type { ServiceDefinition } from '@verity/platform';
import { SESSIONS_MIGRATIONS } from './database/migrations.js';

export const SESSIONS_SERVICE: ServiceDefinition = {
  name: 'sessions',
  migrations: SESSIONS_MIGRATIONS,
  healthSubject: SUBJECTS.sessionsHealth,
};
