import { runMigrations } from '@verity/platform';
import { APPLICANTS_SERVICE } from './definition.js';

await runMigrations(APPLICANTS_SERVICE.name, APPLICANTS_SERVICE.migrations);
