import { Injectable } from '@nestjs/common';
import type {
  ConsoleInvitation,
  ConsoleInvitationAcceptReply,
  ConsoleInvitationAcceptRequest,
  ConsoleInvitationCreateRequest,
  ConsoleInvitationOpenReply,
  ConsoleInvitationOpenRequest,
  ConsoleInvitationRevokeRequest,
  CreatedConsoleInvitation,
} from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { isId, newId } from '@verity/keys';
import { OrganizationsRepository } from '../organizations/organizations.repository.js';
import { ConsoleInvitationsRepository, toInvitation } from './console-invitations.repository.js';
import { toConsoleUser } from './console-users.repository.js';
import { emailOf, invalid, newPasswordOf, roleOf } from './console-validation.js';
import { existingOrg } from './existing-org.js';
import { INVITATION_TTL_MS, invitationTokenHash, isInvitationToken, newInvitationToken } from './invitation-tokens.js';
import { hashPassword } from './passwords.js';

/**
 * Invitations to the console (docs/console.md, "Team"): the person invited sets their own password, so nobody else
 * ever knows it. The token is answered once, at creation, and kept as its SHA-256 only.
 */
@Injectable()
export class ConsoleInvitationsService {
  constructor(
    private readonly invitations: ConsoleInvitationsRepository,
    private readonly orgs: OrganizationsRepository,
  ) {}

  async create(req: ConsoleInvitationCreateRequest): Promise<CreatedConsoleInvitation> {
    const email = emailOf(req?.email);
    const role = roleOf(req.role);
    if (!isId('consoleUser', req.invited_by)) throw invalid('invited_by', 'invited_by must be a console user id (usr_…)');
    const org = await existingOrg(this.orgs, req.org_id);
    const token = newInvitationToken();
    const row = await this.invitations.insert({ id: newId('consoleInvitation'), orgId: org.id, email, role, invitedBy: req.invited_by, tokenHash: invitationTokenHash(token), ttlMs: INVITATION_TTL_MS });
    if (row === 'email_in_use') throw invalid('email', 'email is already in use');
    return { invitation: toInvitation(row), token };
  }

  async list(orgId: string): Promise<{ data: ConsoleInvitation[] }> {
    const org = await existingOrg(this.orgs, orgId);
    return { data: (await this.invitations.listPending(org.id)).map(toInvitation) };
  }

  /** A pending invitation of the organization stops working; 404 for another organization's, 422 for one no longer pending. */
  async revoke(req: ConsoleInvitationRevokeRequest): Promise<ConsoleInvitation> {
    const org = await existingOrg(this.orgs, req?.org_id);
    if (!isId('consoleInvitation', req.invitation_id)) throw DomainError.notFound('invitation_id');
    const row = await this.invitations.revoke(org.id, req.invitation_id);
    if (row) return toInvitation(row);
    if (!(await this.invitations.find(org.id, req.invitation_id))) throw DomainError.notFound('invitation_id');
    throw invalid('invitation_id', 'the invitation was already used, revoked or has expired');
  }

  /** The invitation of a token, whatever its status, and its organization's name; 404 for no invitation. */
  async open(req: ConsoleInvitationOpenRequest): Promise<ConsoleInvitationOpenReply> {
    const row = isInvitationToken(req?.token) ? await this.invitations.findByToken(invitationTokenHash(req.token)) : null;
    if (!row) throw DomainError.notFound('token');
    const org = await existingOrg(this.orgs, row.org_id);
    return { invitation: toInvitation(row), org_name: org.name };
  }

  /** The person's own password for a pending invitation: the account is made and the invitation used, at once. */
  async accept(req: ConsoleInvitationAcceptRequest): Promise<ConsoleInvitationAcceptReply> {
    if (!isInvitationToken(req?.token)) throw DomainError.notFound('token');
    const password = newPasswordOf(req.password);
    const hash = invitationTokenHash(req.token);
    // the password is hashed (tens of milliseconds of a core) only for a token of a pending invitation
    const found = await this.invitations.findByToken(hash);
    if (!found) throw DomainError.notFound('token');
    if (found.status !== 'pending') throw invalid('token', 'this invitation was already used, revoked or has expired');
    const result = await this.invitations.accept(hash, newId('consoleUser'), await hashPassword(password));
    if (result === 'missing') throw DomainError.notFound('token');
    if (result === 'not_pending') throw invalid('token', 'this invitation was already used, revoked or has expired');
    if (result === 'email_in_use') throw invalid('email', 'email is already in use');
    return { user: toConsoleUser(result.user), invitation: toInvitation(result.invitation) };
  }
}
