import { Module } from '@nestjs/common';
import { CONFIG, type ServiceConfig } from '@verity/platform';
import { AccountsRpcController } from './accounts.rpc.controller.js';
import { BillingService } from './billing/billing.service.js';
import { SettleSweep } from './billing/settle-sweep.js';
import { WalletDebitsRepository } from './billing/wallet-debits.repository.js';
import { ACCOUNTS_CONFIG, accountsConfigOf } from './config.js';
import { KeysRepository } from './keys/keys.repository.js';
import { KeysService } from './keys/keys.service.js';
import { OrganizationsRepository } from './organizations/organizations.repository.js';
import { OrganizationsService } from './organizations/organizations.service.js';

@Module({
  providers: [
    { provide: ACCOUNTS_CONFIG, inject: [CONFIG], useFactory: (cfg: ServiceConfig) => accountsConfigOf(cfg) },
    OrganizationsRepository,
    OrganizationsService,
    KeysRepository,
    KeysService,
    WalletDebitsRepository,
    BillingService,
    SettleSweep,
    AccountsRpcController,
  ],
})
export class AccountsModule {}
