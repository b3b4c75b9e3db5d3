import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { RpcServer } from '@verity/platform';
import { KeysService } from './keys/keys.service.js';
import { OrganizationsService } from './organizations/organizations.service.js';

/** NATS handlers of the accounts service: key verification for gateways, and operator commands. */
@Injectable()
export class AccountsRpcController implements OnApplicationBootstrap {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    private readonly keys: KeysService,
    private readonly orgs: OrganizationsService,
  ) {}

  onApplicationBootstrap(): void {
    this.server.handle(SUBJECTS.accountsVerifyKey, async (p) => ({ principal: await this.keys.verify(p.key_hash) }));
    this.server.handle(SUBJECTS.accountsOrgCreate, (p) => this.orgs.create(p));
    this.server.handle(SUBJECTS.accountsOrgGet, (p) => this.orgs.get(p.org_id));
    this.server.handle(SUBJECTS.accountsOrgSetTier, (p) => this.orgs.setTier(p));
    this.server.handle(SUBJECTS.accountsBillingSet, (p) => this.orgs.setBilling(p));
    this.server.handle(SUBJECTS.accountsKeyCreate, (p) => this.keys.create(p));
    this.server.handle(SUBJECTS.accountsKeyRevoke, (p) => this.keys.revoke(p.key_id));
    this.server.handle(SUBJECTS.accountsKeyRotate, (p) => this.keys.rotate(p.key_id));
  }
}
