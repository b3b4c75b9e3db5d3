import { runService } from '@verity/platform';
import { SessionsModule } from './app.module.js';
import { SESSIONS_SERVICE } from './config.js';

await runService(SESSIONS_SERVICE, SessionsModule);
