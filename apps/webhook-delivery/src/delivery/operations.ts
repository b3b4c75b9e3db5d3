import { Inject, Injectable } from '@nestjs/common';
import type { PurgeTestDataReply, PurgeTestDataRequest, WebhookReplayRequest, WebhookReplayResult } from '@verity/contracts';
import { DomainError, type Issue } from '@verity/errors';
import { isId } from '@verity/keys';
import { assertBeforeDeadline, purgeTarget, type RpcContext, Sql } from '@verity/platform';
import { SubscriptionsRepository } from '../subscriptions/subscriptions.repository.js';
import { DispatchJob } from './dispatch.job.js';
import { deliveryIdSql } from './fanout.js';

const S = 'webhook_delivery';
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
/** How long the purge's second pass waits for the attempts table (see `purgeTestData`). */
const PURGE_LOCK_TIMEOUT_MS = 5000;

export type ReplayFilter = Omit<WebhookReplayRequest, 'since'> & { since?: Date };

/**
 * Starts the new round of the deliveries matching the filter, on active subscriptions only, and returns their ids.
 * By event, the candidates are the ids the event's deliveries have (derived from the event and each subscription);
 * by session or by time, deliveries are found through their attempts: one never attempted needs no replay.
 */
export async function replayDeliveries(db: Sql, f: ReplayFilter): Promise<string[]> {
  const candidates = f.event_id
    ? `SELECT ${deliveryIdSql('$1', 's.id')} FROM ${S}.subscriptions s WHERE ($4::text IS NULL OR s.id = $4) AND ($5::text IS NULL OR s.org_id = $5)`
    : f.session_id
      ? `SELECT delivery_id FROM ${S}.attempts WHERE session_id = $2`
      : `SELECT delivery_id FROM ${S}.attempts WHERE created_at >= $3 AND ($4::text IS NULL OR subscription_id = $4) AND ($5::text IS NULL OR org_id = $5)`;
  const rows = await db.rows<{ id: string }>(
    `UPDATE ${S}.deliveries d
        SET status = 'pending', round = d.round + 1, round_base = d.attempts, next_attempt_at = now(), completed_at = NULL, updated_at = now()
       FROM ${S}.subscriptions s
      WHERE d.id IN (${candidates}) AND s.id = d.subscription_id AND s.status = 'active'
        AND ($1::text IS NULL OR d.event_id = $1) AND ($2::text IS NULL OR d.session_id = $2)
        AND ($3::timestamptz IS NULL OR d.created_at >= $3) AND ($4::text IS NULL OR d.subscription_id = $4)
        AND ($5::text IS NULL OR d.org_id = $5)
      RETURNING d.id`,
    [f.event_id ?? null, f.session_id ?? null, f.since ?? null, f.subscription_id ?? null, f.org_id ?? null],
  );
  return rows.map((x) => x.id);
}

/** Operators' work on stored deliveries: replay, and the test-data purge. */
@Injectable()
export class DeliveryOperations {
  constructor(
    @Inject(Sql) private readonly db: Sql,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly dispatcher: DispatchJob,
  ) {}

  /**
   * Replay: the matching deliveries start a new round of attempts at once, with the same delivery id and the same
   * `webhook-id`, so receivers that already processed them drop the copy. Attempt numbers keep counting; each round
   * has the schedule's full number of attempts. Deliveries of disabled subscriptions are not replayed.
   */
  async replay(req: WebhookReplayRequest): Promise<WebhookReplayResult> {
    const r = req ?? {};
    const issues: Issue[] = [];
    const selectors = (['event_id', 'session_id', 'since'] as const).filter((k) => r[k] !== undefined);
    if (selectors.length !== 1) {
      issues.push({ code: 'invalid_value', message: 'give exactly one of event_id, session_id, since', path: [selectors[1] ?? 'event_id'] });
    }
    let since: Date | undefined;
    if (r.since !== undefined) {
      if (typeof r.since !== 'string' || !ISO_WITH_OFFSET.test(r.since) || Number.isNaN(Date.parse(r.since))) {
        issues.push({ code: 'invalid_value', message: 'since must be an ISO 8601 date-time with an offset, e.g. 2026-11-22T09:00:00Z', path: ['since'] });
      } else since = new Date(r.since);
      if (r.subscription_id === undefined && r.org_id === undefined) {
        issues.push({ code: 'invalid_value', message: 'since needs subscription_id or org_id', path: ['since'] });
      }
    }
    for (const k of ['event_id', 'session_id', 'subscription_id', 'org_id'] as const) {
      const v = r[k];
      if (v !== undefined && (typeof v !== 'string' || v.length === 0 || v.length > 100)) issues.push({ code: 'invalid_value', message: `${k} must be an id`, path: [k] });
    }
    if (issues.length > 0) throw DomainError.validation(issues);
    if (r.subscription_id !== undefined && !(isId('webhookSubscription', r.subscription_id) && (await this.subscriptions.find(r.subscription_id)))) {
      throw DomainError.notFound('subscription_id');
    }
    const ids = await replayDeliveries(this.db, { ...r, since });
    this.dispatcher.wake();
    return { object: 'webhook_replay', replayed: ids.length, delivery_ids: ids.slice(0, 100) };
  }

  /** The test-data purge (docs/privacy.md): every test-mode delivery and attempt of the organization. Subscriptions stay. */
  async purgeTestData(req: PurgeTestDataRequest, ctx: RpcContext): Promise<PurgeTestDataReply> {
    const orgId = purgeTarget(req);
    assertBeforeDeadline(ctx);
    return { removed: await this.purge(orgId, () => assertBeforeDeadline(ctx)) };
  }

  /**
   * Deletes every test-mode delivery and attempt of an organization, in one transaction, with true counts.
   * Deliveries are found through indexes: those ever attempted, pending and cancelled ones (a succeeded or failed
   * delivery always has an attempt row). They are locked in id order, the order in which the ledger's batches lock
   * them, so that a purge and a batch never wait on each other in a cycle.
   *
   * An attempt in flight (its delivery leased) may record its outcome while the purge commits: that statement reads
   * the delivery under a snapshot taken before the commit and still writes the attempt's row. So when a purged
   * delivery was leased, a second transaction waits for every statement writing attempts that started before the
   * commit (a SHARE lock on the table) and deletes those rows too.
   */
  private async purge(orgId: string, beforeCommit: () => void): Promise<{ deliveries: number; attempts: number }> {
    const removed = await this.db.tx(async (q) => {
      const [d] = await q.rows<{ n: number; leased: string[] }>(
        `WITH owned AS (
           SELECT delivery_id AS id FROM ${S}.attempts WHERE org_id = $1 AND mode = 'test'
           UNION SELECT id FROM ${S}.deliveries WHERE status = 'pending' AND org_id = $1 AND mode = 'test'
           UNION SELECT id FROM ${S}.deliveries WHERE status = 'cancelled' AND org_id = $1 AND mode = 'test'
         ), locked AS (
           SELECT d.id FROM ${S}.deliveries d WHERE d.id IN (SELECT id FROM owned) AND d.org_id = $1 AND d.mode = 'test'
            ORDER BY d.id FOR UPDATE
         ), gone AS (
           DELETE FROM ${S}.deliveries d USING locked l WHERE d.id = l.id RETURNING d.id, d.lease_until IS NOT NULL AS leased
         )
         SELECT count(*)::int AS n, coalesce(array_agg(id) FILTER (WHERE leased), '{}') AS leased FROM gone`,
        [orgId],
      );
      const [a] = await q.rows<{ n: number }>(
        `WITH gone AS (DELETE FROM ${S}.attempts WHERE org_id = $1 AND mode = 'test' RETURNING 1) SELECT count(*)::int AS n FROM gone`,
        [orgId],
      );
      beforeCommit();
      return { deliveries: d!.n, attempts: a!.n, leased: d!.leased };
    });
    if (removed.leased.length === 0) return { deliveries: removed.deliveries, attempts: removed.attempts };
    const late = await this.db
      .tx(async (q) => {
        await q.rows(`SET LOCAL lock_timeout = '${PURGE_LOCK_TIMEOUT_MS}ms'`);
        await q.rows(`LOCK TABLE ${S}.attempts IN SHARE MODE`);
        const [r] = await q.rows<{ n: number }>(
          `WITH gone AS (DELETE FROM ${S}.attempts WHERE delivery_id = ANY($1::text[]) AND org_id = $2 AND mode = 'test' RETURNING 1)
           SELECT count(*)::int AS n FROM gone`,
          [removed.leased, orgId],
        );
        return r!.n;
      })
      .catch((e: unknown) => {
        // lock_not_available: the deliveries are gone, an attempt logged meanwhile may not be; a second purge removes it
        if ((e as { code?: unknown }).code !== '55P03') throw e;
        throw new DomainError('service_unavailable', { message: 'The test data was purged, but attempts logged meanwhile may remain: purge again.' });
      });
    return { deliveries: removed.deliveries, attempts: removed.attempts + late };
  }
}
