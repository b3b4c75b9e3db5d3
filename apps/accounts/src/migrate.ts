import { runMigrations } from '@verity/platform';
import { ACCOUNTS_SERVICE } from './config.js';

await runMigrations(ACCOUNTS_SERVICE.name, ACCOUNTS_SERVICE.migrations);
