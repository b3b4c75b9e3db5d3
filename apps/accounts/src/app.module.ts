import { Module } from '@nestjs/common';
import { CONFIG } from '@verity/platform';
import { AccountsRpcController } from './accounts.rpc.controller.js';
import { BillingService } from './billing/billing.service.js';
import { SettleDebitsJob } from './billing/settle-debits.job.js';
import { WalletDebitsRepository } from './billing/wallet-debits.repository.js';
import { ConsoleActivityRepository } from './console/console-activity.repository.js';
import { ConsoleActivityService } from './console/console-activity.service.js';
import { ConsoleInvitationsRepository } from './console/console-invitations.repository.js';
import { ConsoleInvitationsService } from './console/console-invitations.service.js';
import { ConsoleTwoFactorService } from './console/console-two-factor.service.js';
import { ConsoleUsersRepository } from './console/console-users.repository.js';
import { ConsoleUsersService } from './console/console-users.service.js';
import { TotpBox } from './console/totp-box.js';
import type { AccountsConfig } from './config.js';
import { KeysRepository } from './keys/keys.repository.js';
import { KeysService } from './keys/keys.service.js';
import { OrganizationsRepository } from './organizations/organizations.repository.js';
import { OrganizationsService } from './organizations/organizations.service.js';

@Module({
  providers: [
    OrganizationsRepository,
    OrganizationsService,
    KeysRepository,
    KeysService,
    WalletDebitsRepository,
    BillingService,
    SettleDebitsJob,
    ConsoleUsersRepository,
    ConsoleUsersService,
    ConsoleInvitationsRepository,
    ConsoleInvitationsService,
    { provide: TotpBox, inject: [CONFIG], useFactory: (cfg: AccountsConfig) => TotpBox.fromBase64(cfg.CONSOLE_TOTP_KEY) },
    ConsoleTwoFactorService,
    ConsoleActivityRepository,
    ConsoleActivityService,
    AccountsRpcController,
  ],
})
export class AccountsModule {}
