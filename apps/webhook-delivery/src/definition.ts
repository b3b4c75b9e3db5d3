import { SUBJECTS } from '@verity/contracts';
import type { ServiceDefinition } from '@verity/platform';
import { WEBHOOK_DELIVERY_MIGRATIONS } from './database/migrations.js';

export const WEBHOOK_DELIVERY_SERVICE: ServiceDefinition = {
  name: 'webhook-delivery',
  migrations: WEBHOOK_DELIVERY_MIGRATIONS,
  healthSubject: SUBJECTS.webhooksHealth,
};
