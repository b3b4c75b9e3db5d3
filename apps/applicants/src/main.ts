import { runService } from '@verity/platform';
import { ApplicantsModule } from './app.module.js';
import { APPLICANTS_SERVICE } from './config.js';

await runService(APPLICANTS_SERVICE, ApplicantsModule);
