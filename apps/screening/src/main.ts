import { runService } from '@verity/platform';
import { ScreeningModule } from './app.module.js';
import { SCREENING_SERVICE } from './config.js';

await runService(SCREENING_SERVICE, ScreeningModule);
