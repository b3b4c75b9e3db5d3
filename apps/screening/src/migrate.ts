import { runMigrations } from '@verity/platform';
import { SCREENING_SERVICE } from './definition.js';

await runMigrations(SCREENING_SERVICE.name, SCREENING_SERVICE.migrations);
