import { runService } from '@verity/platform';
import { AccountsModule } from './app.module.js';
import { accountsEnv } from './config.js';
import { ACCOUNTS_SERVICE } from './definition.js';

await runService(ACCOUNTS_SERVICE, AccountsModule, accountsEnv);
