import { SUBJECTS } from '@verity/contracts';
import type { ServiceDefinition } from '@verity/platform';
import { ACCOUNTS_MIGRATIONS } from './database/migrations.js';

export const ACCOUNTS_SERVICE: ServiceDefinition = {
  name: 'accounts',
  migrations: ACCOUNTS_MIGRATIONS,
  healthSubject: SUBJECTS.accountsHealth,
};
