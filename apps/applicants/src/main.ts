import { runService } from '@verity/platform';
import { ApplicantsModule } from './app.module.js';
import { applicantsEnv } from './config.js';
import { APPLICANTS_SERVICE } from './definition.js';

await runService(APPLICANTS_SERVICE, ApplicantsModule, applicantsEnv);
