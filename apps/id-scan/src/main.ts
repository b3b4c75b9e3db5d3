import { runService } from '@verity/platform';
import { IdScanModule } from './app.module.js';
import { ID_SCAN_SERVICE } from './config.js';

await runService(ID_SCAN_SERVICE, IdScanModule);
