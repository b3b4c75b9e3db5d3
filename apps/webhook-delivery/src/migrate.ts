import { runMigrations } from '@verity/platform';
import { WEBHOOK_DELIVERY_SERVICE } from './config.js';

await runMigrations(WEBHOOK_DELIVERY_SERVICE.name, WEBHOOK_DELIVERY_SERVICE.migrations);
