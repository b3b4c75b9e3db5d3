import { runService } from '@verity/platform';
import { ScreeningModule } from './app.module.js';
import { SCREENING_SERVICE, screeningEnv } from './definition.js';

await runService(SCREENING_SERVICE, ScreeningModule, screeningEnv);
