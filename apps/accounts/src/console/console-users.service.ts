import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { ConsoleLoginReply, ConsoleLoginRequest, ConsoleUser, ConsoleUserCreateRequest } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { isId, newId } from '@verity/keys';
import { OrganizationsRepository } from '../organizations/organizations.repository.js';
import { existingOrg } from './existing-org.js';
import { emailOf, invalid, loginPasswordOf, newPasswordOf, roleOf } from './console-validation.js';
import { ConsoleUsersRepository, toConsoleUser } from './console-users.repository.js';
import { hashPassword, verifyNobody, verifyPassword, warmUp } from './passwords.js';

/**
 * The people who sign in to the region's console (docs/console.md). Passwords are kept as Argon2id hashes only,
 * and never appear in a reply, an error or a log line.
 */
@Injectable()
export class ConsoleUsersService implements OnModuleInit {
  constructor(
    private readonly users: ConsoleUsersRepository,
    private readonly orgs: OrganizationsRepository,
  ) {}

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

  /**
   * The user whose address and password these are, or null, for an unknown address and a wrong password alike:
   * both look the address up and verify one Argon2id hash, so neither the answer nor its time tells them apart.
   */
  async login(req: ConsoleLoginRequest): Promise<ConsoleLoginReply> {
    const email = emailOf(req.email);
    const password = loginPasswordOf(req.password);
    const found = await this.users.findForLogin(email);
    if (!found) {
      await verifyNobody(password);
      return { user: null };
    }
    return { user: (await verifyPassword(found.passwordHash, password)) ? toConsoleUser(found.user) : null };
  }
}
