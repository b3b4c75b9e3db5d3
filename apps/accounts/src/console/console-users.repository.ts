import { Inject, Injectable } from '@nestjs/common';
import type { ConsoleRole, ConsoleUser } from '@verity/contracts';
import { Sql, type WithDates } from '@verity/platform';
import { ENROLMENT_TTL_MS } from './totp.js';

/** A row of `accounts.console_users` as answered (never the password hash). */
export type ConsoleUserRow = WithDates<Omit<ConsoleUser, 'object' | 'disabled_at' | 'totp_enabled_at'>, 'created_at'> & { disabled_at: Date | null; totp_enabled_at: Date | null };

/** The columns a user is answered with: never the password hash. */
export const USER_COLUMNS = `id, org_id, email, role, created_at, session_epoch, disabled_at, totp_enabled_at,
  (SELECT o.console_require_two_factor FROM accounts.organizations o WHERE o.id = console_users.org_id) AS totp_required`;

export function toConsoleUser(row: ConsoleUserRow): ConsoleUser {
  return {
    id: row.id,
    object: 'console_user',
    org_id: row.org_id,
    email: row.email,
    role: row.role,
    created_at: row.created_at.toISOString(),
    session_epoch: row.session_epoch,
    disabled_at: row.disabled_at ? row.disabled_at.toISOString() : null,
    totp_enabled_at: row.totp_enabled_at ? row.totp_enabled_at.toISOString() : null,
    totp_required: row.totp_required,
  };
}

@Injectable()
export class ConsoleUsersRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /** The new user, or null when the address is already in use in the region (nothing is written then). */
  async insert(u: { id: string; orgId: string; email: string; role: ConsoleRole; passwordHash: string }): Promise<ConsoleUserRow | null> {
    const rows = await this.db.rows<ConsoleUserRow>(
      `INSERT INTO accounts.console_users (id, org_id, email, role, password_hash) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (email) DO NOTHING RETURNING ${USER_COLUMNS}`,
      [u.id, u.orgId, u.email, u.role, u.passwordHash],
    );
    return rows[0] ?? null;
  }

  /** An organization's users, oldest first. */
  async listByOrg(orgId: string): Promise<ConsoleUserRow[]> {
    return this.db.rows<ConsoleUserRow>(
      `SELECT ${USER_COLUMNS} FROM accounts.console_users WHERE org_id = $1 ORDER BY created_at, id`,
      [orgId],
    );
  }

  async find(id: string): Promise<ConsoleUserRow | null> {
    const rows = await this.db.rows<ConsoleUserRow>(`SELECT ${USER_COLUMNS} FROM accounts.console_users WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /**
   * Changes a person's role (`{ role }`), removes them (`'remove'`), or disables or enables them (`{ disabled }`), in
   * one transaction that locks the organization's people first, so two owners demoting (or disabling) each other at
   * once cannot leave it with none. `missing`: no such person in the organization; `last_owner`: the change would
   * leave no owner who is not disabled (nothing is changed then). Disabling moves the person's epoch on: every session
   * of theirs ends, and enabling them again does not bring those back.
   */
  async change(orgId: string, userId: string, change: { role: ConsoleRole } | { disabled: boolean } | 'remove'): Promise<{ user: ConsoleUserRow | null } | 'missing' | 'last_owner'> {
    return this.db.tx(async (q) => {
      const people = await q.rows<{ id: string; role: ConsoleRole; disabled: boolean }>(
        `SELECT id, role, disabled_at IS NOT NULL AS disabled FROM accounts.console_users WHERE org_id = $1 ORDER BY id FOR UPDATE`,
        [orgId],
      );
      const person = people.find((p) => p.id === userId);
      if (!person) return 'missing';
      const after = change === 'remove' ? null : { role: 'role' in change ? change.role : person.role, disabled: 'disabled' in change ? change.disabled : person.disabled };
      const owners = people.filter((p) => p.role === 'owner' && !p.disabled && p.id !== userId).length + (after?.role === 'owner' && !after.disabled ? 1 : 0);
      if (owners === 0) return 'last_owner';
      if (change === 'remove') {
        await q.rows(`DELETE FROM accounts.console_users WHERE id = $1`, [userId]);
        return { user: null };
      }
      if ('role' in change) {
        const [row] = await q.rows<ConsoleUserRow>(`UPDATE accounts.console_users SET role = $2 WHERE id = $1 RETURNING ${USER_COLUMNS}`, [userId, change.role]);
        return { user: row! };
      }
      const [row] = await q.rows<ConsoleUserRow>(
        change.disabled
          ? `UPDATE accounts.console_users SET disabled_at = COALESCE(disabled_at, now()), session_epoch = session_epoch + (CASE WHEN disabled_at IS NULL THEN 1 ELSE 0 END) WHERE id = $1 RETURNING ${USER_COLUMNS}`
          : `UPDATE accounts.console_users SET disabled_at = NULL WHERE id = $1 RETURNING ${USER_COLUMNS}`,
        [userId],
      );
      return { user: row! };
    });
  }

  /** Ends every session of a person of `orgId` (the epoch moves on); null when there is no such person. */
  async signOut(orgId: string, userId: string): Promise<ConsoleUserRow | null> {
    const rows = await this.db.rows<ConsoleUserRow>(`UPDATE accounts.console_users SET session_epoch = session_epoch + 1 WHERE id = $1 AND org_id = $2 RETURNING ${USER_COLUMNS}`, [userId, orgId]);
    return rows[0] ?? null;
  }

  /** The person's hash to check a password against, or null. */
  async passwordHash(userId: string): Promise<string | null> {
    const rows = await this.db.rows<{ password_hash: string }>(`SELECT password_hash FROM accounts.console_users WHERE id = $1`, [userId]);
    return rows[0]?.password_hash ?? null;
  }

  /**
   * A new password, and every session ended; only while the hash is still `checked` (the one the current password
   * was checked against), so two changes at once cannot both pass on the same old password. Null when it changed.
   */
  async setPassword(userId: string, checked: string, passwordHash: string): Promise<ConsoleUserRow | null> {
    const rows = await this.db.rows<ConsoleUserRow>(
      `UPDATE accounts.console_users SET password_hash = $3, session_epoch = session_epoch + 1 WHERE id = $1 AND password_hash = $2 RETURNING ${USER_COLUMNS}`,
      [userId, checked, passwordHash],
    );
    return rows[0] ?? null;
  }

  /** The user with this (normalized) address and the hash to check a password against, or null. */
  async findForLogin(email: string): Promise<{ user: ConsoleUserRow; passwordHash: string } | null> {
    const rows = await this.db.rows<ConsoleUserRow & { password_hash: string }>(
      `SELECT ${USER_COLUMNS}, password_hash FROM accounts.console_users WHERE email = $1`,
      [email],
    );
    const r = rows[0];
    if (!r) return null;
    const { password_hash: passwordHash, ...user } = r;
    return { user, passwordHash };
  }

  /** What two-factor sign-in needs of a person: their secret (never answered beyond accounts), the last step taken, the one being enrolled. */
  async totpState(userId: string): Promise<TotpState | null> {
    const rows = await this.db.rows<TotpState>(
      `SELECT ${USER_COLUMNS}, totp_secret, totp_last_step::float8 AS totp_last_step,
              CASE WHEN totp_pending_at > now() - make_interval(secs => $2::double precision / 1000) THEN totp_pending_secret END AS totp_pending_secret
         FROM accounts.console_users WHERE id = $1`,
      [userId, ENROLMENT_TTL_MS],
    );
    return rows[0] ?? null;
  }

  /** The secret shown for enrolment, until its first code or 15 minutes; only while two-factor sign-in is off. */
  async setPendingSecret(userId: string, secret: string): Promise<boolean> {
    const rows = await this.db.rows(`UPDATE accounts.console_users SET totp_pending_secret = $2, totp_pending_at = now() WHERE id = $1 AND totp_secret IS NULL RETURNING id`, [userId, secret]);
    return rows.length > 0;
  }

  /**
   * Turns two-factor sign-in on with the secret being enrolled (only if it is still that one), taking `step` as the
   * last code used, replacing the recovery codes, and ending every session; null when it changed meanwhile.
   */
  async enableTotp(userId: string, secret: string, step: number, recoveryCodeHashes: string[]): Promise<ConsoleUserRow | null> {
    return this.db.tx(async (q) => {
      const [row] = await q.rows<ConsoleUserRow>(
        `UPDATE accounts.console_users
            SET totp_secret = totp_pending_secret, totp_enabled_at = now(), totp_last_step = $3, totp_pending_secret = NULL, totp_pending_at = NULL,
                session_epoch = session_epoch + 1
          WHERE id = $1 AND totp_secret IS NULL AND totp_pending_secret = $2 RETURNING ${USER_COLUMNS}`,
        [userId, secret, step],
      );
      if (!row) return null;
      await q.rows(`DELETE FROM accounts.console_recovery_codes WHERE user_id = $1`, [userId]);
      await q.rows(`INSERT INTO accounts.console_recovery_codes (user_id, code_hash) SELECT $1, unnest($2::text[])`, [userId, recoveryCodeHashes]);
      return row;
    });
  }

  /** Takes a code of `step`: only if no code of that step or a later one was taken before (atomic: a code is good once). */
  async takeTotpStep(userId: string, step: number): Promise<ConsoleUserRow | null> {
    const rows = await this.db.rows<ConsoleUserRow>(
      `UPDATE accounts.console_users SET totp_last_step = $2
        WHERE id = $1 AND totp_secret IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING ${USER_COLUMNS}`,
      [userId, step],
    );
    return rows[0] ?? null;
  }

  /** Uses up an unused recovery code of the person; false when they have no such code unused. */
  async useRecoveryCode(userId: string, codeHash: string): Promise<boolean> {
    const rows = await this.db.rows(`UPDATE accounts.console_recovery_codes SET used_at = now() WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING user_id`, [userId, codeHash]);
    return rows.length > 0;
  }

  async recoveryCodesLeft(userId: string): Promise<number> {
    const [row] = await this.db.rows<{ n: number }>(`SELECT count(*)::int AS n FROM accounts.console_recovery_codes WHERE user_id = $1 AND used_at IS NULL`, [userId]);
    return row?.n ?? 0;
  }

  /** Turns two-factor sign-in off: the secret and the recovery codes are deleted. */
  async disableTotp(userId: string): Promise<ConsoleUserRow | null> {
    return this.db.tx(async (q) => {
      const [row] = await q.rows<ConsoleUserRow>(
        `UPDATE accounts.console_users SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL, totp_pending_secret = NULL, totp_pending_at = NULL
          WHERE id = $1 RETURNING ${USER_COLUMNS}`,
        [userId],
      );
      await q.rows(`DELETE FROM accounts.console_recovery_codes WHERE user_id = $1`, [userId]);
      return row ?? null;
    });
  }

  /**
   * An owner's reset of a person's two-factor sign-in (of `orgId`): the secret, the one being enrolled and the recovery
   * codes are deleted and every session of theirs ends; 'missing' for no such person of the organization, 'off' when
   * they have none.
   */
  async resetTotp(orgId: string, userId: string): Promise<ConsoleUserRow | 'missing' | 'off'> {
    return this.db.tx(async (q) => {
      const [row] = await q.rows<ConsoleUserRow>(
        `UPDATE accounts.console_users
            SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL, totp_pending_secret = NULL, totp_pending_at = NULL,
                session_epoch = session_epoch + 1
          WHERE id = $1 AND org_id = $2 AND totp_secret IS NOT NULL RETURNING ${USER_COLUMNS}`,
        [userId, orgId],
      );
      if (!row) {
        const [exists] = await q.rows(`SELECT 1 FROM accounts.console_users WHERE id = $1 AND org_id = $2`, [userId, orgId]);
        return exists ? 'off' : 'missing';
      }
      await q.rows(`DELETE FROM accounts.console_recovery_codes WHERE user_id = $1`, [userId]);
      return row;
    });
  }

  /** Up to `limit` people whose TOTP secret (or the one being enrolled) is stored in clear, by an earlier release. */
  async clearTotpSecrets(limit: number): Promise<Array<{ id: string; totp_secret: string | null; totp_pending_secret: string | null }>> {
    return this.db.rows(
      `SELECT id, CASE WHEN totp_secret NOT LIKE 'v1.%' THEN totp_secret END AS totp_secret,
              CASE WHEN totp_pending_secret NOT LIKE 'v1.%' THEN totp_pending_secret END AS totp_pending_secret
         FROM accounts.console_users
        WHERE totp_secret NOT LIKE 'v1.%' OR totp_pending_secret NOT LIKE 'v1.%'
        ORDER BY id LIMIT $1`,
      [limit],
    );
  }

  /** Replaces a secret stored in clear by its sealed form, only if it is still that value. */
  async sealTotpSecret(userId: string, column: 'totp_secret' | 'totp_pending_secret', clear: string, sealed: string): Promise<void> {
    await this.db.rows(`UPDATE accounts.console_users SET ${column} = $3 WHERE id = $1 AND ${column} = $2 RETURNING id`, [userId, clear, sealed]);
  }

  /** Whether the organization requires two-factor sign-in in the console; null when there is no such organization. */
  async setTwoFactorRequired(orgId: string, required: boolean): Promise<boolean | null> {
    const rows = await this.db.rows<{ required: boolean }>(`UPDATE accounts.organizations SET console_require_two_factor = $2 WHERE id = $1 RETURNING console_require_two_factor AS required`, [orgId, required]);
    return rows[0]?.required ?? null;
  }
}

/** A person and their two-factor state, inside accounts only. */
export type TotpState = ConsoleUserRow & { totp_secret: string | null; totp_last_step: number | null; totp_pending_secret: string | null };
