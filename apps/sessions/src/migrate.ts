import { runMigrations } from '@verity/platform';
import { SESSIONS_SERVICE } from './config.js';

await runMigrations(SESSIONS_SERVICE.name, SESSIONS_SERVICE.migrations);
