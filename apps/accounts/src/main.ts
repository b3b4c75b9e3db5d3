import { runService } from '@verity/platform';
import { AccountsModule } from './app.module.js';
import { ACCOUNTS_SERVICE } from './config.js';

await runService(ACCOUNTS_SERVICE, AccountsModule);
