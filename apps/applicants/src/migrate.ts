import { runMigrations } from '@verity/platform';
import { APPLICANTS_SERVICE } from './config.js';

await runMigrations(APPLICANTS_SERVICE.name, APPLICANTS_SERVICE.migrations);
