import { Module } from '@nestjs/common';
import { AccountsRpcController } from './accounts.rpc.controller.js';
import { KeysRepository } from './keys/keys.repository.js';
import { KeysService } from './keys/keys.service.js';
import { OrganizationsRepository } from './organizations/organizations.repository.js';
import { OrganizationsService } from './organizations/organizations.service.js';

@Module({
  providers: [OrganizationsRepository, OrganizationsService, KeysRepository, KeysService, AccountsRpcController],
})
export class AccountsModule {}
