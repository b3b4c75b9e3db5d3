import { runService } from '@verity/platform';
import { AccountsModule } from './app.module.js';
import { ACCOUNTS_SERVICE } from './definition.js';

await runService(ACCOUNTS_SERVICE, AccountsModule);
