import { runMigrations } from '@verity/platform';
import { SCREENING_SERVICE } from './config.js';

await runMigrations(SCREENING_SERVICE.name, SCREENING_SERVICE.migrations);
