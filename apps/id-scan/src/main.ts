import { runService } from '@verity/platform';
import { IdScanModule } from './app.module.js';
import { ID_SCAN_SERVICE, idScanEnv } from './definition.js';

await runService(ID_SCAN_SERVICE, IdScanModule, idScanEnv);
