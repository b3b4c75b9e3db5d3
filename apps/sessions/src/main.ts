import { runService } from '@verity/platform';
import { SessionsModule } from './app.module.js';
import { sessionsEnv } from './config.js';
import { SESSIONS_SERVICE } from './definition.js';

await runService(SESSIONS_SERVICE, SessionsModule, sessionsEnv);
