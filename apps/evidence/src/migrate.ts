import { runMigrations } from '@verity/platform';
import { EVIDENCE_SERVICE } from './config.js';

await runMigrations(EVIDENCE_SERVICE.name, EVIDENCE_SERVICE.migrations);
