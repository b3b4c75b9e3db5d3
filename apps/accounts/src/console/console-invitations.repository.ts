import { Inject, Injectable } from '@nestjs/common';
import type { ConsoleInvitation, ConsoleRole } from '@verity/contracts';
import { Sql, type WithDates } from '@verity/platform';
import { USER_COLUMNS, type ConsoleUserRow } from './console-users.repository.js';

type InvitationRow = WithDates<Omit<ConsoleInvitation, 'object'>, 'created_at' | 'expires_at'>;

/** The columns an invitation is answered with (never the token's hash), its status read on Postgres's clock. */
const INVITATION_COLUMNS = `id, org_id, email, role, invited_by, created_at, expires_at,
  CASE WHEN accepted_at IS NOT NULL THEN 'accepted' WHEN revoked_at IS NOT NULL THEN 'revoked' WHEN expires_at <= now() THEN 'expired' ELSE 'pending' END AS status`;

const PENDING = 'accepted_at IS NULL AND revoked_at IS NULL';

export function toInvitation(row: InvitationRow): ConsoleInvitation {
  return {
    id: row.id,
    object: 'console_invitation',
    org_id: row.org_id,
    email: row.email,
    role: row.role,
    invited_by: row.invited_by,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    status: row.status,
  };
}

@Injectable()
export class ConsoleInvitationsRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /**
   * A new invitation, replacing (revoking) a pending one of the same address in the organization; `email_in_use`
   * when a console user of the region has the address already (nothing is written then).
   */
  async insert(i: { id: string; orgId: string; email: string; role: ConsoleRole; invitedBy: string; tokenHash: string; ttlMs: number }): Promise<InvitationRow | 'email_in_use'> {
    return this.db.tx(async (q) => {
      const taken = await q.rows(`SELECT 1 FROM accounts.console_users WHERE email = $1`, [i.email]);
      if (taken.length > 0) return 'email_in_use';
      await q.rows(`UPDATE accounts.console_invitations SET revoked_at = now() WHERE org_id = $1 AND email = $2 AND ${PENDING}`, [i.orgId, i.email]);
      const [row] = await q.rows<InvitationRow>(
        `INSERT INTO accounts.console_invitations (id, org_id, email, role, invited_by, token_hash, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7::double precision / 1000)) RETURNING ${INVITATION_COLUMNS}`,
        [i.id, i.orgId, i.email, i.role, i.invitedBy, i.tokenHash, i.ttlMs],
      );
      return row!;
    });
  }

  /** An organization's invitations still pending (not used, revoked or expired), oldest first. */
  async listPending(orgId: string): Promise<InvitationRow[]> {
    return this.db.rows<InvitationRow>(
      `SELECT ${INVITATION_COLUMNS} FROM accounts.console_invitations WHERE org_id = $1 AND ${PENDING} AND expires_at > now() ORDER BY created_at, id`,
      [orgId],
    );
  }

  async find(orgId: string, id: string): Promise<InvitationRow | null> {
    const rows = await this.db.rows<InvitationRow>(`SELECT ${INVITATION_COLUMNS} FROM accounts.console_invitations WHERE id = $1 AND org_id = $2`, [id, orgId]);
    return rows[0] ?? null;
  }

  /** Revokes a pending invitation of the organization; null when it has no such invitation pending. */
  async revoke(orgId: string, id: string): Promise<InvitationRow | null> {
    const rows = await this.db.rows<InvitationRow>(
      `UPDATE accounts.console_invitations SET revoked_at = now() WHERE id = $1 AND org_id = $2 AND ${PENDING} AND expires_at > now() RETURNING ${INVITATION_COLUMNS}`,
      [id, orgId],
    );
    return rows[0] ?? null;
  }

  async findByToken(tokenHash: string): Promise<InvitationRow | null> {
    const rows = await this.db.rows<InvitationRow>(`SELECT ${INVITATION_COLUMNS} FROM accounts.console_invitations WHERE token_hash = $1`, [tokenHash]);
    return rows[0] ?? null;
  }

  /**
   * Uses a pending invitation: the account is made with its address and role, and the invitation is marked used,
   * in one transaction that locks the invitation (two acceptances at once: one wins). `missing`: no invitation has
   * this token; `not_pending`: used, revoked or expired; `email_in_use`: the address got an account meanwhile.
   */
  async accept(tokenHash: string, userId: string, passwordHash: string): Promise<{ user: ConsoleUserRow; invitation: InvitationRow } | 'missing' | 'not_pending' | 'email_in_use'> {
    return this.db.tx(async (q) => {
      const [inv] = await q.rows<InvitationRow>(`SELECT ${INVITATION_COLUMNS} FROM accounts.console_invitations WHERE token_hash = $1 FOR UPDATE`, [tokenHash]);
      if (!inv) return 'missing';
      if (inv.status !== 'pending') return 'not_pending';
      const [user] = await q.rows<ConsoleUserRow>(
        `INSERT INTO accounts.console_users (id, org_id, email, role, password_hash) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (email) DO NOTHING RETURNING ${USER_COLUMNS}`,
        [userId, inv.org_id, inv.email, inv.role, passwordHash],
      );
      if (!user) return 'email_in_use';
      const [used] = await q.rows<InvitationRow>(
        `UPDATE accounts.console_invitations SET accepted_at = now(), accepted_user_id = $2 WHERE id = $1 RETURNING ${INVITATION_COLUMNS}`,
        [inv.id, userId],
      );
      return { user, invitation: used! };
    });
  }
}
