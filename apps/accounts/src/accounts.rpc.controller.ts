import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CONSOLE_ACTION_ROLES, consoleKeyScopes, SUBJECTS, type ConsoleRole, type ConsoleUser, type ReqOf, type ResOf, type Subject } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { requireConsolePerson, requireOperator, requirePrincipal, RpcServer, type ConsolePerson, type RpcContext } from '@verity/platform';
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

  /**
   * A console subject: the organization, mode and person are those of the principal the console signed, and the
   * person's role must be one of `roles` (docs/security.md, "Console roles"), whatever the request says.
   */
  private console<S extends Subject>(subject: S, roles: readonly ConsoleRole[], handler: (payload: ReqOf<S>, caller: ConsolePerson, ctx: RpcContext) => Promise<ResOf<S>>): void {
    this.server.handle(subject, (p, ctx) => handler(p ?? ({} as ReqOf<S>), requireConsolePerson(ctx, roles), ctx));
  }

  /** A change made at sign-in, before the console has a page to log it from; a failure to log is logged, never shown. */
  private async recordSignIn(ctx: RpcContext, user: ConsoleUser, action: string, details: Record<string, string | number>): Promise<void> {
    await this.activity
      .record({ org_id: user.org_id, mode: null, actor_id: user.id, actor_email: user.email, action, target_id: user.id, details })
      .catch((err: unknown) => ctx.log.error({ err, action }, 'console activity not recorded'));
  }

  onApplicationBootstrap(): void {
    this.consoleSubjects();
    this.server.handle(SUBJECTS.accountsVerifyKey, async (p) => ({ principal: await this.keys.verify(p.key_hash) }));
    // the sessions service, with the creating key's principal
    this.server.handle(SUBJECTS.accountsBillingDebit, (p, ctx) => this.billing.debit(requirePrincipal(ctx), p, ctx));
    this.server.handle(SUBJECTS.accountsBillingRefund, (p, ctx) => this.billing.refund(requirePrincipal(ctx), p.session_id));
    // operator commands: no principal
    this.server.handle(SUBJECTS.accountsOrgCreate, (p) => this.orgs.create(p));
    // with the region's prices and their currency, so the operator reads the wallet's balance with its unit
    this.server.handle(SUBJECTS.accountsOrgGet, async (p) => ({ ...(await this.orgs.get(p.org_id)), pricing: this.billing.pricing() }));
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

  /** The console's subjects (docs/console.md): before sign-in without a principal, after it with the one it signs. */
  private consoleSubjects(): void {
    const { keys: keyRoles, team, own, logs } = CONSOLE_ACTION_ROLES;
    // nobody is signed in yet: the password, the code, the invitation's token and the session's signed record say who
    this.server.handle(SUBJECTS.accountsConsoleSignIn, (p) => this.consoleUsers.login(p));
    this.server.handle(SUBJECTS.accountsConsoleSignInCode, async (p, ctx) => {
      const verified = await this.twoFactor.verify(p);
      if (verified.method === 'recovery_code') await this.recordSignIn(ctx, verified.user, 'console.user.recovery_code_used', { remaining: verified.recovery_codes_left });
      return verified;
    });
    this.server.handle(SUBJECTS.accountsConsoleInvitationOpenByToken, (p) => this.invitations.open(p));
    this.server.handle(SUBJECTS.accountsConsoleInvitationAcceptByToken, async (p, ctx) => {
      const accepted = await this.invitations.accept(p);
      await this.recordSignIn(ctx, accepted.user, 'console.user.invitation_accepted', { invitation_id: accepted.invitation.id, role: accepted.user.role });
      return accepted;
    });
    this.server.handle(SUBJECTS.accountsConsoleSessionPerson, async (p) => {
      const user = await this.consoleUsers.get(p?.user_id);
      return { user, org: await this.orgs.get(user.org_id) };
    });

    // API keys of the principal's organization and mode; making and changing them is bounded by the person's role
    this.console(SUBJECTS.accountsConsoleKeyList, keyRoles, (_p, { principal }) => this.keys.list({ org_id: principal.org_id, mode: principal.mode }));
    this.console(SUBJECTS.accountsConsoleKeyCreate, keyRoles, (p, { principal, actor }) => {
      const grantable: readonly string[] = consoleKeyScopes(actor.role, principal.mode);
      const beyond = Array.isArray(p.scopes) ? p.scopes.filter((s) => !grantable.includes(s)) : [];
      if (grantable.length === 0 || beyond.length > 0) throw new DomainError('insufficient_scope', { message: `A console ${actor.role} may not give a ${principal.mode} key these scopes.`, param: 'scopes' });
      return this.keys.create({ org_id: principal.org_id, mode: principal.mode, type: p.type, scopes: p.scopes });
    });
    this.console(SUBJECTS.accountsConsoleKeyRotate, keyRoles, async (p, caller) => this.keys.rotate((await this.changeableKey(caller, p.key_id)).id));
    this.console(SUBJECTS.accountsConsoleKeyRevoke, keyRoles, async (p, caller) => this.keys.revoke((await this.changeableKey(caller, p.key_id)).id));

    // the team: owners only, within the principal's organization
    const org = (c: ConsolePerson) => c.principal.org_id;
    this.console(SUBJECTS.accountsConsoleTeamList, team, (_p, c) => this.consoleUsers.list(org(c)));
    this.console(SUBJECTS.accountsConsoleTeamGet, team, async (p, c) => {
      const user = await this.consoleUsers.get(p.user_id);
      if (user.org_id !== org(c)) throw DomainError.notFound('user_id');
      return user;
    });
    this.console(SUBJECTS.accountsConsoleTeamRole, team, (p, c) => this.consoleUsers.update({ org_id: org(c), user_id: p.user_id, role: p.role }));
    this.console(SUBJECTS.accountsConsoleTeamRemove, team, (p, c) => this.consoleUsers.remove({ org_id: org(c), user_id: p.user_id }));
    this.console(SUBJECTS.accountsConsoleTeamSignOut, team, (p, c) => this.consoleUsers.signOut({ org_id: org(c), user_id: p.user_id }));
    this.console(SUBJECTS.accountsConsoleTeamDisable, team, (p, c) => this.consoleUsers.setDisabled({ org_id: org(c), user_id: p.user_id }, true));
    this.console(SUBJECTS.accountsConsoleTeamEnable, team, (p, c) => this.consoleUsers.setDisabled({ org_id: org(c), user_id: p.user_id }, false));
    this.console(SUBJECTS.accountsConsoleTeamTwoFactor, team, (p, c) => this.twoFactor.setRequired({ org_id: org(c), required: p.required }));
    this.console(SUBJECTS.accountsConsoleTeamResetTwoFactor, team, (p, c) => this.twoFactor.reset(org(c), p.user_id, c.actor.user_id));
    this.console(SUBJECTS.accountsConsoleTeamInvite, team, (p, c) => this.invitations.create({ org_id: org(c), email: p.email, role: p.role, invited_by: c.actor.user_id }));
    this.console(SUBJECTS.accountsConsoleTeamInvitations, team, (_p, c) => this.invitations.list(org(c)));
    this.console(SUBJECTS.accountsConsoleTeamRevokeInvitation, team, (p, c) => this.invitations.revoke({ org_id: org(c), invitation_id: p.invitation_id }));

    // the person's own account: always the principal's person
    this.console(SUBJECTS.accountsConsoleOwnPassword, own, (p, c) => this.consoleUsers.changePassword({ user_id: c.actor.user_id, current_password: p.current_password, new_password: p.new_password }));
    this.console(SUBJECTS.accountsConsoleOwnSignOut, own, (_p, c) => this.consoleUsers.signOut({ org_id: org(c), user_id: c.actor.user_id }));
    this.console(SUBJECTS.accountsConsoleOwnTotpBegin, own, (_p, c) => this.twoFactor.begin({ user_id: c.actor.user_id }));
    this.console(SUBJECTS.accountsConsoleOwnTotpConfirm, own, (p, c) => this.twoFactor.confirm({ user_id: c.actor.user_id, code: p.code }));
    this.console(SUBJECTS.accountsConsoleOwnTotpDisable, own, (p, c) => this.twoFactor.disable({ user_id: c.actor.user_id, code: p.code }));

    // the activity log: a change is written as made by the principal's person, in the principal's organization
    this.console(SUBJECTS.accountsConsoleActivityRecord, own, async (p, c) => {
      if (p.mode !== null && p.mode !== c.principal.mode) throw DomainError.validation([{ code: 'invalid_value', message: "mode must be null or the principal's", path: ['mode'] }]);
      const person = await this.consoleUsers.get(c.actor.user_id);
      if (person.org_id !== org(c)) throw DomainError.notFound('user_id');
      return this.activity.record({ org_id: org(c), mode: p.mode, actor_id: person.id, actor_email: person.email, action: p.action, target_id: p.target_id, details: p.details });
    });
    this.console(SUBJECTS.accountsConsoleBilling, CONSOLE_ACTION_ROLES.billing, async (p, c) => this.billing.consoleBilling(await this.orgs.get(org(c)), p.days));
    this.console(SUBJECTS.accountsConsoleActivityList, logs, (p, c) => this.activity.list({ org_id: org(c), ...(p.limit !== undefined ? { limit: p.limit } : {}), ...(p.before !== undefined ? { before: p.before } : {}) }));

    // webhook-delivery, before it registers a subscription for an organization the operator names
    this.server.handle(SUBJECTS.accountsOrgRegion, async (p) => ({ region: (await this.orgs.get(p?.org_id)).region }));
  }

  /** An active key of the principal's organization and mode that the person's role may change (else 404, 403). */
  private async changeableKey({ principal, actor }: ConsolePerson, keyId: unknown) {
    if (consoleKeyScopes(actor.role, principal.mode).length === 0) throw new DomainError('insufficient_scope', { message: `A console ${actor.role} may not change ${principal.mode} keys.` });
    const key = await this.keys.findActive(keyId);
    if (!key || key.org_id !== principal.org_id || key.mode !== principal.mode) throw DomainError.notFound('key');
    return key;
  }
}
