import { Inject, Injectable } from '@nestjs/common';
import type { WebhookSubscription } from '@verity/contracts';
import type { Mode } from '@verity/keys';
import { Sql, type WithDates } from '@verity/platform';

const S = 'webhook_delivery';

/** A stored subscription: the public fields (dates as stored), the page key and when a rotated-out secret stops signing. */
export type SubscriptionRow = WithDates<Omit<WebhookSubscription, 'object'>, 'created_at'> & { seq: string; previous_secret_expires_at: Date | null };

const COLUMNS = 'seq, id, org_id, mode, url, event_types, status, created_at, previous_secret_expires_at';

/** The only code touching the subscriptions table. Secrets come in and stay sealed (see SecretBox). */
@Injectable()
export class SubscriptionsRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  async insert(s: { id: string; org_id: string; mode: Mode; url: string; event_types: string[]; secret_sealed: string }): Promise<SubscriptionRow> {
    const rows = await this.db.rows<SubscriptionRow>(
      `INSERT INTO ${S}.subscriptions (id, org_id, mode, url, event_types, secret_sealed) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [s.id, s.org_id, s.mode, s.url, s.event_types, s.secret_sealed],
    );
    return rows[0]!;
  }

  async find(id: string): Promise<SubscriptionRow | null> {
    const rows = await this.db.rows<SubscriptionRow>(`SELECT ${COLUMNS} FROM ${S}.subscriptions WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Newest first, `limit + 1` rows so the caller can tell whether another page exists. */
  async list(orgId: string, mode: Mode | null, after: bigint | null, limit: number): Promise<SubscriptionRow[]> {
    return this.db.rows<SubscriptionRow>(
      `SELECT ${COLUMNS} FROM ${S}.subscriptions
        WHERE org_id = $1 AND ($2::text IS NULL OR mode = $2) AND ($3::bigint IS NULL OR seq < $3::bigint)
        ORDER BY seq DESC LIMIT $4`,
      [orgId, mode, after === null ? null : after.toString(), limit + 1],
    );
  }

  /** Disables a subscription and cancels its pending deliveries, in one transaction. */
  async disable(id: string): Promise<SubscriptionRow | null> {
    return this.db.tx(async (q) => {
      const rows = await q.rows<SubscriptionRow>(
        `UPDATE ${S}.subscriptions SET status = 'disabled', updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
        [id],
      );
      if (!rows[0]) return null;
      await q.rows(
        `UPDATE ${S}.deliveries SET status = 'cancelled', next_attempt_at = NULL, completed_at = now(), updated_at = now()
          WHERE subscription_id = $1 AND status = 'pending'`,
        [id],
      );
      return rows[0];
    });
  }

  /**
   * Replaces the signing secret; the one it replaces keeps signing until `overlapMs` from now (a secret
   * still overlapping from an earlier rotation is dropped). `seal` seals the new secret for this row.
   */
  async rotate(id: string, newSealed: string, overlapMs: number): Promise<SubscriptionRow | null> {
    const rows = await this.db.rows<SubscriptionRow>(
      `UPDATE ${S}.subscriptions
          SET previous_secret_sealed = secret_sealed, secret_sealed = $2,
              previous_secret_expires_at = now() + make_interval(secs => $3::double precision / 1000), updated_at = now()
        WHERE id = $1 AND status = 'active' RETURNING ${COLUMNS}`,
      [id, newSealed, overlapMs],
    );
    return rows[0] ?? null;
  }
}
