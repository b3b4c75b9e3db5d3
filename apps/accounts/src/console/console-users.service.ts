import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type {
  ConsoleLoginReply,
  ConsoleLoginRequest,
  ConsolePasswordChangeRequest,
  ConsoleRole,
  ConsoleUser,
  ConsoleUserCreateRequest,
  ConsoleUserDisableRequest,
  ConsoleUserRemoveRequest,
  ConsoleUserSignOutRequest,
  ConsoleUserUpdateRequest,
} from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { isId, newId } from '@verity/keys';
import { Admission, CONFIG } from '@verity/platform';
import type { AccountsConfig } from '../config.js';
import { OrganizationsRepository } from '../organizations/organizations.repository.js';
import { existingOrg } from './existing-org.js';
import { emailOf, invalid, loginPasswordOf, newPasswordOf, roleOf } from './console-validation.js';
import { ConsoleUsersRepository, toConsoleUser } from './console-users.repository.js';
import { hashPassword, verifyNobody, verifyPassword, warmUp } from './passwords.js';

/**
 * The people who sign in to the region's console (docs/console.md). Passwords are kept as Argon2id hashes only,
 * and never appear in a reply, an error or a log line.
 */
/** Longest a sign-in waits for a password check before it is refused (503). */
const PASSWORD_CHECK_WAIT_MS = 5000;

@Injectable()
export class ConsoleUsersService implements OnModuleInit {
  /**
   * At most CONSOLE_PASSWORD_CHECKS Argon2id checks at once and CONSOLE_PASSWORD_CHECKS_WAITING waiting: a burst of
   * sign-ins (a guessing attack from many addresses) gets 503 beyond that instead of taking every core.
   */
  private readonly checks: Admission;

  constructor(
    private readonly users: ConsoleUsersRepository,
    private readonly orgs: OrganizationsRepository,
    @Inject(CONFIG) cfg: AccountsConfig,
  ) {
    this.checks = new Admission(cfg.CONSOLE_PASSWORD_CHECKS, cfg.CONSOLE_PASSWORD_CHECKS_WAITING, PASSWORD_CHECK_WAIT_MS, 'Too many sign-ins are being checked right now; try again in a few seconds.');
  }

  /** The first sign-in with an unknown address should not pay for making the dummy hash. */
  async onModuleInit(): Promise<void> {
    await warmUp();
  }

  async create(req: ConsoleUserCreateRequest): Promise<ConsoleUser> {
    const email = emailOf(req.email);
    const role = roleOf(req.role);
    const password = newPasswordOf(req.password);
    const org = await existingOrg(this.orgs, req.org_id);
    const row = await this.users.insert({ id: newId('consoleUser'), orgId: org.id, email, role, passwordHash: await hashPassword(password) });
    if (!row) throw invalid('email', 'email is already in use');
    return toConsoleUser(row);
  }

  async list(orgId: string): Promise<{ data: ConsoleUser[] }> {
    const org = await existingOrg(this.orgs, orgId);
    return { data: (await this.users.listByOrg(org.id)).map(toConsoleUser) };
  }

  async get(userId: string): Promise<ConsoleUser> {
    const row = isId('consoleUser', userId) ? await this.users.find(userId) : null;
    if (!row) throw DomainError.notFound('user_id');
    return toConsoleUser(row);
  }

  /** A person's new role; the organization's last owner keeps theirs (docs/console.md, "Team"). */
  async update(req: ConsoleUserUpdateRequest): Promise<ConsoleUser> {
    const role = roleOf(req?.role);
    const changed = await this.change(req, { role });
    return toConsoleUser(changed!);
  }

  /** Removes a person: their sessions open nothing from their next request on. Not the organization's last owner. */
  async remove(req: ConsoleUserRemoveRequest): Promise<{ removed: true }> {
    await this.change(req, 'remove');
    return { removed: true };
  }

  /**
   * Disables (`true`) or enables a person: disabled, they cannot sign in and every session of theirs ends. Not the
   * organization's last owner who is not disabled.
   */
  async setDisabled(req: ConsoleUserDisableRequest, disabled: boolean): Promise<ConsoleUser> {
    return toConsoleUser((await this.change(req, { disabled }))!);
  }

  /** Every session of the person ends: their next request, in any browser, goes to sign-in. */
  async signOut(req: ConsoleUserSignOutRequest): Promise<ConsoleUser> {
    const org = await existingOrg(this.orgs, req?.org_id);
    const row = isId('consoleUser', req.user_id) ? await this.users.signOut(org.id, req.user_id) : null;
    if (!row) throw DomainError.notFound('user_id');
    return toConsoleUser(row);
  }

  /** The person's own password change: the current one checked (as a sign-in is), the new one set, every session ended. */
  async changePassword(req: ConsolePasswordChangeRequest): Promise<ConsoleUser> {
    const current = loginPasswordOf(req?.current_password, 'current_password');
    const next = newPasswordOf(req?.new_password, 'new_password');
    const stored = isId('consoleUser', req.user_id) ? await this.users.passwordHash(req.user_id) : null;
    if (!stored) throw DomainError.notFound('user_id');
    const matches = await this.checks.run(() => verifyPassword(stored, current), Date.now() + PASSWORD_CHECK_WAIT_MS);
    if (!matches) throw invalid('current_password', 'the current password is not right');
    const row = await this.users.setPassword(req.user_id, stored, await hashPassword(next));
    if (!row) throw invalid('current_password', 'the password was changed meanwhile; sign in again');
    return toConsoleUser(row);
  }

  private async change(req: { org_id: string; user_id: string }, change: { role: ConsoleRole } | { disabled: boolean } | 'remove') {
    const org = await existingOrg(this.orgs, req?.org_id);
    if (!isId('consoleUser', req.user_id)) throw DomainError.notFound('user_id');
    const result = await this.users.change(org.id, req.user_id, change);
    if (result === 'missing') throw DomainError.notFound('user_id');
    if (result === 'last_owner') {
      throw invalid(typeof change === 'object' && 'role' in change ? 'role' : 'user_id', 'an organization keeps at least one owner who is not disabled: make another person owner first');
    }
    return result.user;
  }

  /**
   * The user whose address and password these are, or null, for an unknown address, a wrong password and a disabled
   * person alike: each looks the address up and verifies one Argon2id hash, so neither the answer nor its time tells
   * them apart.
   */
  async login(req: ConsoleLoginRequest): Promise<ConsoleLoginReply> {
    const email = emailOf(req.email);
    const password = loginPasswordOf(req.password);
    const found = await this.users.findForLogin(email);
    const deadline = Date.now() + PASSWORD_CHECK_WAIT_MS;
    if (!found) {
      await this.checks.run(() => verifyNobody(password), deadline);
      return { user: null };
    }
    const matches = await this.checks.run(() => verifyPassword(found.passwordHash, password), deadline);
    // a disabled person is answered as a wrong password is, after the same check: the answer never confirms a guess
    return { user: matches && found.user.disabled_at === null ? toConsoleUser(found.user) : null };
  }
}
