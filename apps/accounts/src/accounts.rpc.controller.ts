import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { SUBJECTS, type ReqOf, type ResOf, type Subject } from '@verity/contracts';
import { requireOperator, requirePrincipal, RpcServer } from '@verity/platform';
import { BillingService } from './billing/billing.service.js';
import { ConsoleActivityService } from './console/console-activity.service.js';
import { ConsoleInvitationsService } from './console/console-invitations.service.js';
import { ConsoleTwoFactorService } from './console/console-two-factor.service.js';
import { ConsoleUsersService } from './console/console-users.service.js';
import { KeysService } from './keys/keys.service.js';
import { OrganizationsService } from './organizations/organizations.service.js';

/** NATS handlers of the accounts service: key verification for gateways, billing of live creates, and operator commands. */
@Injectable()
export class AccountsRpcController implements OnApplicationBootstrap {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    private readonly keys: KeysService,
    private readonly orgs: OrganizationsService,
    private readonly billing: BillingService,
    private readonly consoleUsers: ConsoleUsersService,
    private readonly activity: ConsoleActivityService,
    private readonly invitations: ConsoleInvitationsService,
    private readonly twoFactor: ConsoleTwoFactorService,
  ) {}

  /** An operator subject: the request names the organization and carries no principal (one that does is refused). */
  private operator<S extends Subject>(subject: S, handler: (payload: ReqOf<S>) => Promise<ResOf<S>>): void {
    this.server.handle(subject, async (p, ctx) => {
      requireOperator(ctx);
      return handler(p);
    });
  }

  onApplicationBootstrap(): void {
    this.server.handle(SUBJECTS.accountsVerifyKey, async (p) => ({ principal: await this.keys.verify(p.key_hash) }));
    // the sessions service, with the creating key's principal
    this.server.handle(SUBJECTS.accountsBillingDebit, (p, ctx) => this.billing.debit(requirePrincipal(ctx), p, ctx));
    this.server.handle(SUBJECTS.accountsBillingRefund, (p, ctx) => this.billing.refund(requirePrincipal(ctx), p.session_id));
    // operator commands: no principal
    this.server.handle(SUBJECTS.accountsOrgCreate, (p) => this.orgs.create(p));
    this.server.handle(SUBJECTS.accountsOrgGet, (p) => this.orgs.get(p.org_id));
    this.server.handle(SUBJECTS.accountsOrgSetTier, (p) => this.orgs.setTier(p));
    this.server.handle(SUBJECTS.accountsBillingSet, (p) => this.orgs.setBilling(p));
    this.server.handle(SUBJECTS.accountsKeyCreate, (p) => this.keys.create(p));
    this.server.handle(SUBJECTS.accountsKeyRevoke, (p) => this.keys.revoke(p.key_id));
    this.server.handle(SUBJECTS.accountsKeyRotate, (p) => this.keys.rotate(p.key_id));
    // the console (docs/console.md) and the operator tool: the organization is in the request
    this.operator(SUBJECTS.accountsKeyList, (p) => this.keys.list(p));
    this.operator(SUBJECTS.accountsConsoleUserCreate, (p) => this.consoleUsers.create(p));
    this.operator(SUBJECTS.accountsConsoleUserList, (p) => this.consoleUsers.list(p.org_id));
    this.operator(SUBJECTS.accountsConsoleUserGet, (p) => this.consoleUsers.get(p.user_id));
    this.operator(SUBJECTS.accountsConsoleUserUpdate, (p) => this.consoleUsers.update(p));
    this.operator(SUBJECTS.accountsConsoleUserRemove, (p) => this.consoleUsers.remove(p));
    this.operator(SUBJECTS.accountsConsoleUserSignOut, (p) => this.consoleUsers.signOut(p));
    this.operator(SUBJECTS.accountsConsoleUserDisable, (p) => this.consoleUsers.setDisabled(p, true));
    this.operator(SUBJECTS.accountsConsoleUserEnable, (p) => this.consoleUsers.setDisabled(p, false));
    this.operator(SUBJECTS.accountsConsoleTotpBegin, (p) => this.twoFactor.begin(p));
    this.operator(SUBJECTS.accountsConsoleTotpConfirm, (p) => this.twoFactor.confirm(p));
    this.operator(SUBJECTS.accountsConsoleTotpVerify, (p) => this.twoFactor.verify(p));
    this.operator(SUBJECTS.accountsConsoleTotpDisable, (p) => this.twoFactor.disable(p));
    this.operator(SUBJECTS.accountsConsoleOrgTwoFactor, (p) => this.twoFactor.setRequired(p));
    this.operator(SUBJECTS.accountsConsolePasswordChange, (p) => this.consoleUsers.changePassword(p));
    this.operator(SUBJECTS.accountsConsoleLogin, (p) => this.consoleUsers.login(p));
    this.operator(SUBJECTS.accountsConsoleInvitationCreate, (p) => this.invitations.create(p));
    this.operator(SUBJECTS.accountsConsoleInvitationList, (p) => this.invitations.list(p.org_id));
    this.operator(SUBJECTS.accountsConsoleInvitationRevoke, (p) => this.invitations.revoke(p));
    this.operator(SUBJECTS.accountsConsoleInvitationOpen, (p) => this.invitations.open(p));
    this.operator(SUBJECTS.accountsConsoleInvitationAccept, (p) => this.invitations.accept(p));
    this.operator(SUBJECTS.accountsActivityRecord, (p) => this.activity.record(p));
    this.operator(SUBJECTS.accountsActivityList, (p) => this.activity.list(p));
  }
}
