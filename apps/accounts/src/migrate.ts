import { runMigrations } from '@verity/platform';
import { ACCOUNTS_SERVICE } from './definition.js';

await runMigrations(ACCOUNTS_SERVICE.name, ACCOUNTS_SERVICE.migrations);
