import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { addScrapeSampler, metrics, Sql } from '@verity/platform';
import { JOB_KINDS } from '../sessions/sessions.repository.js';

/**
 * What Prometheus reads of the sessions service's own tables when it scrapes (at most once a second): the
 * outbox's unrelayed events and the age of the oldest (the relay is behind, or the stream is unreachable), and
 * the jobs due and not yet taken, by kind (each a queue of its own, `sessions_<kind>`). Each is one indexed query (`outbox_unrelayed_idx`, `jobs_due_idx`).
 */
@Injectable()
export class SessionsMetricsSamplers implements OnApplicationBootstrap {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  onApplicationBootstrap(): void {
    addScrapeSampler(async () => {
      const [o] = await this.db.rows<{ pending: string; lag: number | null }>(
        `SELECT count(*) AS pending, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS lag FROM sessions.outbox WHERE relayed_at IS NULL`,
      );
      metrics.outboxPending.set(Number(o?.pending ?? 0));
      metrics.outboxLag.set(Math.max(0, o?.lag ?? 0));
    });
    addScrapeSampler(async () => {
      const rows = await this.db.rows<{ kind: string; due: string }>(`SELECT kind, count(*) AS due FROM sessions.jobs WHERE run_after <= now() GROUP BY kind`);
      for (const kind of JOB_KINDS) metrics.queueDepth.set({ queue: `sessions_${kind}` }, Number(rows.find((r) => r.kind === kind)?.due ?? 0));
    });
  }
}
