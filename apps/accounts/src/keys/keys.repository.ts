import { Inject, Injectable } from '@nestjs/common';
import type { ApiKeyRecord } from '@verity/contracts';
import type { KeyType, Mode, Scope } from '@verity/keys';
import { Sql, type WithDates } from '@verity/platform';
import type { OrgRow } from '../organizations/organizations.repository.js';

/** A row of `accounts.api_keys` (never its hash): the key as on the wire, with when it was revoked. */
export interface KeyRow extends WithDates<Omit<ApiKeyRecord, 'object' | 'region' | 'revoked'>, 'created_at'> {
  revoked_at: Date | null;
}

const KEY_COLUMNS = 'k.id, k.org_id, k.type, k.mode, k.scopes, k.revoked_at, k.created_at';

@Injectable()
export class KeysRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  async insert(k: { id: string; orgId: string; type: KeyType; mode: Mode; scopes: Scope[]; hash: string }): Promise<KeyRow> {
    const rows = await this.db.rows<KeyRow>(
      `INSERT INTO accounts.api_keys AS k (id, org_id, type, mode, scopes, key_hash) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING ${KEY_COLUMNS}`,
      [k.id, k.orgId, k.type, k.mode, k.scopes, k.hash],
    );
    return rows[0]!;
  }

  /** The active key with this hash and its organization, or null. */
  async findActiveByHash(hash: string): Promise<{ key: KeyRow; org: OrgRow } | null> {
    const rows = await this.db.rows<{ key: KeyRow; org: OrgRow }>(
      `SELECT row_to_json(k.*) AS key, row_to_json(o.*) AS org
         FROM accounts.api_keys k JOIN accounts.organizations o ON o.id = k.org_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
    const r = rows[0];
    if (!r) return null;
    const org = r.org as unknown as Record<string, unknown>;
    return {
      key: { ...r.key, created_at: new Date(r.key.created_at), revoked_at: null },
      org: {
        ...(org as unknown as OrgRow),
        past_due_since: org.past_due_since ? new Date(org.past_due_since as string) : null,
        wallet_balance: org.wallet_balance === null ? null : String(org.wallet_balance),
        created_at: new Date(org.created_at as string),
      },
    };
  }

  /** An organization's keys, revoked ones too, newest first; of one mode when given. */
  async listByOrg(orgId: string, mode: Mode | null): Promise<KeyRow[]> {
    return this.db.rows<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM accounts.api_keys k WHERE k.org_id = $1 AND ($2::text IS NULL OR k.mode = $2)
        ORDER BY k.created_at DESC, k.id DESC`,
      [orgId, mode],
    );
  }

  /** An active key by id, or null when unknown or revoked. */
  async findActive(id: string): Promise<KeyRow | null> {
    const rows = await this.db.rows<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM accounts.api_keys k WHERE k.id = $1 AND k.revoked_at IS NULL`,
      [id],
    );
    return rows[0] ?? null;
  }

  async revoke(id: string): Promise<KeyRow | null> {
    const rows = await this.db.rows<KeyRow>(
      `UPDATE accounts.api_keys AS k SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Replaces the secret of an active key; the old secret stops working at once. */
  async rotate(id: string, hash: string): Promise<KeyRow | null> {
    const rows = await this.db.rows<KeyRow>(
      `UPDATE accounts.api_keys AS k SET key_hash = $2, rotated_at = now() WHERE id = $1 AND revoked_at IS NULL
       RETURNING ${KEY_COLUMNS}`,
      [id, hash],
    );
    return rows[0] ?? null;
  }
}
