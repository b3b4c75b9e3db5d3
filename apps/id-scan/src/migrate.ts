import { runMigrations } from '@verity/platform';
import { ID_SCAN_SERVICE } from './config.js';

await runMigrations(ID_SCAN_SERVICE.name, ID_SCAN_SERVICE.migrations);
